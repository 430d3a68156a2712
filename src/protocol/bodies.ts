/**
 * The JSON body of each of our packets, checked field by field into its typed shape. A body
 * that passes here is safe to hand to the server or the remote frontier as it is.
 */
import {
  array,
  bad,
  boolean,
  duration,
  freeObject,
  integer,
  isObject,
  nullableInteger,
  nullableString,
  object,
  oneOf,
  string,
  stringItem,
} from './fields.js';
import type {
  Bodies,
  JsonObject,
  OurPacketName,
  WireCompletion,
  WireCompletionPart,
  WireCookie,
  WireExtended,
  WireLease,
  WireLink,
  WireModuleCounts,
  WireModuleRecord,
  WireOutcome,
  WireRecord,
  WireRejected,
  WireRelease,
  WireReport,
  WireRobotsEntry,
  WireSeen,
  WireStats,
  WireValidators,
} from './types.js';
import { CRAWL_NAME, CRAWL_NAME_RULE } from './types.js';

/**
 * The most a LEASE may ask: URLs in one answer (more than any crawling process fetches
 * at once), and how long the server may hold it waiting for a ready host (well under a
 * lease time, so a client that asks again after it has lost nothing).
 */
export const LEASE_LIMITS = { n: 4096, waitMs: 60_000 } as const;

const KINDS = ['page', 'sitemap', 'requisite'] as const;
const ENDS = ['finished', 'max-pages'] as const;
const OUTCOMES = ['done', 'failed', 'refused', 'retry', 'deferred'] as const;
const SHA256 = /^[0-9a-f]{64}$/;

const ROBOTS_ANSWERS = ['known', 'read', 'busy', 'none'] as const;
const ROBOTS_STATES = ['parsed', 'allow-all', 'unavailable'] as const;

/** The entry's fields of ROBOTSREPLY ('known') and SAVEROBOTS (read): its text is the body's list. */
function robotsEntry(o: JsonObject, where: string): Omit<WireRobotsEntry, 'text'> {
  const entry: Omit<WireRobotsEntry, 'text'> = {
    state: oneOf(o, 'state', where, ROBOTS_STATES),
    status: nullableInteger(o, 'status', where),
  };
  if (o.failure !== undefined) {
    const f = object(o.failure, `${where}.failure`);
    entry.failure = {
      error: string(f, 'error', `${where}.failure`, true),
      message: string(f, 'message', `${where}.failure`),
    };
    if (f.connectFailed !== undefined)
      entry.failure.connectFailed = boolean(f, 'connectFailed', `${where}.failure`);
  }
  return entry;
}

function report(v: unknown, where: string): WireReport {
  const o = object(v, where);
  const r: WireReport = { fetchMs: duration(o, 'fetchMs', where) };
  if (o.crawlDelayMs !== undefined) r.crawlDelayMs = duration(o, 'crawlDelayMs', where);
  if (o.retryAfterMs !== undefined) r.retryAfterMs = duration(o, 'retryAfterMs', where);
  if (o.connectFailed !== undefined) r.connectFailed = boolean(o, 'connectFailed', where);
  if (o.noRequest !== undefined) r.noRequest = boolean(o, 'noRequest', where);
  if (o.address !== undefined) r.address = nullableString(o, 'address', where);
  return r;
}

function lease(v: unknown, where: string): WireLease {
  const o = object(v, where);
  const l: WireLease = {
    id: string(o, 'id', where, true),
    url: string(o, 'url', where, true),
    host: string(o, 'host', where),
    depth: integer(o, 'depth', where),
    via: nullableString(o, 'via', where),
    redirects: integer(o, 'redirects', where),
    kind: oneOf(o, 'kind', where, KINDS),
    attempt: integer(o, 'attempt', where, 1),
    expiresAt: integer(o, 'expiresAt', where),
  };
  if (o.startBy !== undefined) l.startBy = integer(o, 'startBy', where);
  if (o.needsAddress !== undefined) {
    if (o.needsAddress !== true) bad(`${where}.needsAddress`, 'must be true when present');
    l.needsAddress = true;
  }
  if (o.previous !== undefined) {
    const where2 = `${where}.previous`;
    const p = object(o.previous, where2);
    l.previous = { fetchedAt: integer(p, 'fetchedAt', where2), ...validators(p, where2) };
  }
  return l;
}

/** A cookie of the jar: a key, and the cookie (opaque text) or null for one deleted. */
function cookie(v: unknown, where: string): WireCookie {
  const o = object(v, where);
  return { key: string(o, 'key', where, true), value: nullableString(o, 'value', where) };
}

/** ETag and Last-Modified, each present or not. */
function validators(o: JsonObject, where: string): WireValidators {
  return {
    ...(o.etag === undefined ? {} : { etag: string(o, 'etag', where) }),
    ...(o.lastModified === undefined ? {} : { lastModified: string(o, 'lastModified', where) }),
    ...(o.capturedAt === undefined ? {} : { capturedAt: integer(o, 'capturedAt', where) }),
  };
}

function link(v: unknown, where: string): WireLink {
  const o = object(v, where);
  const l: WireLink = {
    url: string(o, 'url', where, true),
    depth: integer(o, 'depth', where),
    via: nullableString(o, 'via', where),
  };
  if (o.redirects !== undefined) l.redirects = integer(o, 'redirects', where);
  if (o.kind !== undefined) l.kind = oneOf(o, 'kind', where, KINDS);
  return l;
}

function rejected(v: unknown, where: string): WireRejected {
  const o = object(v, where);
  return {
    url: string(o, 'url', where, true),
    depth: integer(o, 'depth', where),
    via: nullableString(o, 'via', where),
    reason: string(o, 'reason', where, true),
  };
}

function record(v: unknown, where: string): WireRecord {
  const o = object(v, where);
  return { id: string(o, 'id', where, true), ...rejected(o, where) };
}

/** Checks a free-form record: fully on decode; on encode only its kind, as the splitter cuts it to fit. */
type RecordCheck = (v: unknown, where: string) => JsonObject;

const moduleRecord =
  (free: RecordCheck) =>
  (v: unknown, where: string): WireModuleRecord => {
    const o = object(v, where);
    return { module: string(o, 'module', where, true), record: free(o.record, `${where}.record`) };
  };

function outcome(v: unknown, where: string): WireOutcome {
  const o = object(v, where);
  const kind = oneOf(o, 'kind', where, OUTCOMES);
  switch (kind) {
    case 'done':
      return o.validators === undefined
        ? { kind }
        : {
            kind,
            validators: validators(object(o.validators, `${where}.validators`), `${where}.validators`),
          };
    case 'deferred':
      return { kind };
    case 'failed':
      return { kind, error: string(o, 'error', where, true) };
    case 'refused':
      return { kind, reason: string(o, 'reason', where, true) };
    case 'retry':
      return { kind, error: string(o, 'error', where, true), afterMs: integer(o, 'afterMs', where) };
  }
}

/** A completion, or (no `outcome`) the continuation of one whose head is in an earlier entry. */
const completion =
  (free: RecordCheck) =>
  (v: unknown, where: string): WireCompletion | WireCompletionPart => {
    const o = object(v, where);
    const lists = {
      outlinks: array(o, 'outlinks', where, link, true),
      rejected: array(o, 'rejected', where, rejected, true),
      modules: array(o, 'modules', where, moduleRecord(free), true),
    };
    const id = string(o, 'lease', where, true);
    if (o.outcome === undefined) return { lease: id, ...lists };
    const head: WireCompletion = {
      lease: id,
      outcome: outcome(o.outcome, `${where}.outcome`),
      report: report(o.report, `${where}.report`),
      page: o.page === null ? null : free(o.page, `${where}.page`),
      ...lists,
    };
    if (o.hasForm !== undefined) head.hasForm = boolean(o, 'hasForm', where);
    return head;
  };

function release(v: unknown, where: string): WireRelease {
  const o = object(v, where);
  return { lease: string(o, 'lease', where, true), report: report(o.report, `${where}.report`) };
}

function extended(v: unknown, where: string): WireExtended {
  const o = object(v, where);
  return { id: string(o, 'id', where, true), expiresAt: integer(o, 'expiresAt', where) };
}

function crawlName(o: JsonObject, where: string): string {
  const name = string(o, 'crawl', where, true);
  if (!CRAWL_NAME.test(name)) bad(`${where}.crawl`, `must be ${CRAWL_NAME_RULE}`);
  return name;
}

function moduleCounts(v: unknown, where: string): WireModuleCounts {
  const o = object(v, where);
  return {
    name: string(o, 'name', where, true),
    calls: integer(o, 'calls', where),
    errors: integer(o, 'errors', where),
    timeouts: integer(o, 'timeouts', where),
    skipped: integer(o, 'skipped', where),
    ms: duration(o, 'ms', where),
  };
}

function seenStats(v: unknown, where: string): WireSeen {
  const o = object(v, where);
  const s: WireSeen = { kind: string(o, 'kind', where, true), size: integer(o, 'size', where) };
  for (const key of ['capacity', 'bits', 'hashes'] as const) {
    if (o[key] !== undefined) s[key] = integer(o, key, where);
  }
  for (const key of ['fpRate', 'estimatedFpRate'] as const) {
    if (o[key] === undefined) continue;
    const rate = o[key];
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
      bad(`${where}.${key}`, 'must be a number from 0 to 1');
    s[key] = rate;
  }
  return s;
}

function settings(o: JsonObject, where: string): JsonObject {
  return freeObject(o.settings, `${where}.settings`);
}

type Checker<T extends OurPacketName> = (o: JsonObject, w: string, free: RecordCheck) => Bodies[T];

const CHECKERS: { [T in OurPacketName]: Checker<T> } = {
  AUTH: (o, w) => ({ token: string(o, 'token', w, true) }),
  HELLO: (o, w) => {
    const b: Bodies['HELLO'] = { name: string(o, 'name', w, true), protocol: integer(o, 'protocol', w, 1) };
    if (o.version !== undefined) b.version = string(o, 'version', w);
    if (o.crawl !== undefined) b.crawl = crawlName(o, w);
    if (o.modules !== undefined) b.modules = array(o, 'modules', w, stringItem);
    if (o.loadsModules !== undefined) b.loadsModules = boolean(o, 'loadsModules', w);
    return b;
  },
  WELCOME: (o, w) => {
    const b: Bodies['WELCOME'] = {
      crawlerId: string(o, 'crawlerId', w, true),
      protocol: integer(o, 'protocol', w, 1),
      leaseMs: integer(o, 'leaseMs', w),
      settings: settings(o, w),
    };
    if (o.missingModules !== undefined) b.missingModules = array(o, 'missingModules', w, stringItem);
    return b;
  },
  LEASE: (o, w) => ({
    n: integer(o, 'n', w, 1, LEASE_LIMITS.n),
    waitMs: integer(o, 'waitMs', w, 0, LEASE_LIMITS.waitMs),
  }),
  LEASES: (o, w) => ({
    leases: array(o, 'leases', w, lease),
    ended: o.ended === null ? null : oneOf(o, 'ended', w, ENDS),
    nextReadyAt: nullableInteger(o, 'nextReadyAt', w),
  }),
  COMPLETE: (o, w, free) => ({ completions: array(o, 'completions', w, completion(free)) }),
  COMPLETED: (o, w) => ({
    stale: array(o, 'stale', w, stringItem),
    records: array(o, 'records', w, record),
    added: integer(o, 'added', w),
  }),
  RELEASE: (o, w) => ({ releases: array(o, 'releases', w, release) }),
  EXTEND: (o, w) => ({ leases: array(o, 'leases', w, stringItem) }),
  EXTENDED: (o, w) => ({ leases: array(o, 'leases', w, extended), stale: array(o, 'stale', w, stringItem) }),
  ADD: (o, w) => ({ links: array(o, 'links', w, link), rejected: array(o, 'rejected', w, rejected, true) }),
  ADDED: (o, w) => ({ added: integer(o, 'added', w), records: array(o, 'records', w, record) }),
  ACK: (o, w, free) => {
    const ack: Bodies['ACK'] = { ids: array(o, 'ids', w, stringItem) };
    // Optional: absent in an ACK of a client that writes its records' lines itself.
    if (o.lines !== undefined) ack.lines = array(o, 'lines', w, free);
    return ack;
  },
  CLAIMSITE: (o, w, free) => {
    const claim: Bodies['CLAIMSITE'] = {
      origin: string(o, 'origin', w, true),
      address: nullableString(o, 'address', w),
    };
    if (o.site !== undefined) claim.site = free(o.site, `${w}.site`);
    return claim;
  },
  CLAIMED: (o, w) => ({ claimed: boolean(o, 'claimed', w) }),
  RECORDSITE: (o, w, free) => ({
    origin: string(o, 'origin', w, true),
    address: nullableString(o, 'address', w),
    firstSeen: integer(o, 'firstSeen', w),
    info: free(o.info, `${w}.info`),
  }),
  STATS: () => ({}),
  LEAVE: () => ({}),
  CRAWL: (o, w) => ({ crawl: crawlName(o, w) }),
  COOKIES: () => ({}),
  COOKIEJAR: (o, w) => ({ cookies: array(o, 'cookies', w, cookie) }),
  SAVECOOKIES: (o, w) => ({ cookies: array(o, 'cookies', w, cookie) }),
  ROBOTS: (o, w) => ({ origin: string(o, 'origin', w, true) }),
  // Fields in the order the doc writes them: the entry's, then its text.
  ROBOTSREPLY: (o, w) => {
    const answer = oneOf(o, 'answer', w, ROBOTS_ANSWERS);
    if (answer !== 'known') return { answer, text: array(o, 'text', w, stringItem) };
    const validForMs = integer(o, 'validForMs', w, 1);
    return { answer, validForMs, ...robotsEntry(o, w), text: array(o, 'text', w, stringItem) };
  },
  SAVEROBOTS: (o, w) => {
    const origin = string(o, 'origin', w, true);
    const read = boolean(o, 'read', w);
    const entry = read ? robotsEntry(o, w) : {};
    return { origin, read, ...entry, text: array(o, 'text', w, stringItem) };
  },
  SEEDS: (o, w) => ({
    origins: array(o, 'origins', w, stringItem),
    addresses: array(o, 'addresses', w, stringItem),
  }),
  SEEDLIST: (o, w) => ({
    origins: array(o, 'origins', w, stringItem),
    addresses: array(o, 'addresses', w, stringItem),
  }),
  MODCOUNTS: (o, w) => ({ modules: array(o, 'modules', w, moduleCounts) }),
  STATSREPLY: (o, w) => {
    const s: WireStats = {
      queued: integer(o, 'queued', w),
      inFlight: integer(o, 'inFlight', w),
      done: integer(o, 'done', w),
      failed: integer(o, 'failed', w),
      rejected: integer(o, 'rejected', w),
      hosts: integer(o, 'hosts', w),
      bunnies: integer(o, 'bunnies', w),
    };
    for (const key of ['retrying', 'staleCompletions', 'expiredLeases'] as const) {
      if (o[key] !== undefined) s[key] = integer(o, key, w);
    }
    if (o.budgetLeft !== undefined) s.budgetLeft = nullableInteger(o, 'budgetLeft', w);
    if (o.seen !== undefined) s.seen = seenStats(o.seen, `${w}.seen`);
    return s;
  },
  MODULE: (o, w) => {
    const sha256 = string(o, 'sha256', w);
    if (!SHA256.test(sha256)) bad(`${w}.sha256`, 'must be 64 lowercase hex digits');
    return { name: string(o, 'name', w, true), sha256, source: string(o, 'source', w) };
  },
  OK: () => ({}),
  ERROR: (o, w) => ({ code: integer(o, 'code', w), message: string(o, 'message', w) }),
};

/**
 * Checks a parsed JSON body of packet `type`; throws BAD_FIELD. `toFit`: the body is about to
 * be split, which cuts free-form records to fit, so their size and depth are not held against it.
 */
export function checkBody<T extends OurPacketName>(type: T, body: unknown, toFit = false): Bodies[T] {
  if (!isObject(body)) object(body, type);
  return (CHECKERS[type] as Checker<T>)(body as JsonObject, type, toFit ? object : freeObject);
}
