import type { FetchErrorReason } from '../../fetch/types.js';
import type {
  Bodies,
  WireCompletion,
  WireLease,
  WireLink,
  WireOutcome,
  WireRecord,
  WireRejected,
  WireReport,
  WireRobotsEntry,
} from '../../protocol/index.js';
import type {
  Completion,
  FetchReport,
  Lease,
  NewLink,
  Outcome,
  PendingRecord,
  RejectedLink,
  RobotsAnswer,
  RobotsEntry,
} from '../types.js';

/**
 * The Frontier contract's shapes to the packet protocol's and back: the one place where
 * the two meet, used by the remote store (client side) and the server. Ids are numbers
 * in the contract and opaque strings on the wire.
 */

export function idOnWire(id: number): string {
  return String(id);
}

/** An id the other side sent; NaN (matching nothing) when it is not one of ours. */
export function idFromWire(id: string): number {
  return /^\d{1,16}$/.test(id) ? Number(id) : Number.NaN;
}

/**
 * Times travel as whole milliseconds. A store may hold fractions (a gap of twice a
 * response time): a deadline is rounded down, so the bunny is never told it has longer.
 */
export function leaseToWire(l: Lease): WireLease {
  const w: WireLease = { ...l, id: idOnWire(l.id), expiresAt: Math.floor(l.expiresAt) };
  if (l.startBy !== undefined) w.startBy = Math.floor(l.startBy);
  return w;
}

/** A moment to wait for, rounded up: asking again before it would find nothing. */
export function readyAtToWire(at: number | null): number | null {
  return at === null ? null : Math.ceil(at);
}

export function leaseFromWire(l: WireLease): Lease {
  return { ...l, id: idFromWire(l.id) };
}

export function linkToWire(l: NewLink): WireLink {
  const w: WireLink = { url: l.url, depth: l.depth, via: l.via };
  if (l.redirects !== undefined) w.redirects = l.redirects;
  if (l.kind !== undefined) w.kind = l.kind;
  return w;
}

export function linkFromWire(l: WireLink): NewLink {
  return linkToWire(l);
}

export function rejectedToWire(r: RejectedLink): WireRejected {
  return { url: r.url, depth: r.depth, via: r.via, reason: r.reason };
}

export function recordToWire(r: PendingRecord): WireRecord {
  return { ...rejectedToWire(r), id: idOnWire(r.id) };
}

export function recordFromWire(r: WireRecord): PendingRecord {
  return { ...rejectedToWire(r), id: idFromWire(r.id) };
}

export function reportToWire(r: FetchReport): WireReport {
  const w: WireReport = { fetchMs: Math.max(0, r.fetchMs) };
  if (r.crawlDelayMs !== undefined) w.crawlDelayMs = r.crawlDelayMs;
  if (r.retryAfterMs !== undefined) w.retryAfterMs = r.retryAfterMs;
  if (r.connectFailed !== undefined) w.connectFailed = r.connectFailed;
  if (r.address !== undefined) w.address = r.address;
  if (r.noRequest !== undefined) w.noRequest = r.noRequest;
  return w;
}

export function reportFromWire(w: WireReport): FetchReport {
  return reportToWire(w);
}

function outcomeToWire(o: Outcome): WireOutcome {
  return o.kind === 'retry' ? { ...o, afterMs: Math.max(0, Math.round(o.afterMs)) } : o;
}

export function completionToWire(c: Completion): WireCompletion {
  const w: WireCompletion = {
    lease: idOnWire(c.leaseId),
    outcome: outcomeToWire(c.outcome),
    report: reportToWire(c.report ?? { fetchMs: 0 }),
    page: c.record ?? null,
    outlinks: c.outlinks.map(linkToWire),
    rejected: c.rejected.map(rejectedToWire),
    modules: (c.moduleRecords ?? []).map((m) => ({ module: m.module, record: m.record })),
  };
  if (c.hasForm !== undefined) w.hasForm = c.hasForm;
  return w;
}

export function completionFromWire(w: WireCompletion): Completion {
  const c: Completion = {
    leaseId: idFromWire(w.lease),
    outcome: w.outcome,
    report: reportFromWire(w.report),
    outlinks: w.outlinks.map(linkFromWire),
    rejected: w.rejected,
    record: w.page,
    moduleRecords: w.modules,
  };
  if (w.hasForm !== undefined) c.hasForm = w.hasForm;
  return c;
}

/** Pieces of a robots.txt's text on the wire: 8 Ki characters, so that even a piece of escapes fits a packet. */
const TEXT_PIECE = 8192;

const FETCH_ERRORS: readonly FetchErrorReason[] = [
  'timeout',
  'too-large',
  'dns',
  'refused',
  'reset',
  'tls',
  'protocol',
  'network',
  'private-address',
  'late',
];

export function robotsEntryToWire(e: RobotsEntry): WireRobotsEntry {
  const text: string[] = [];
  for (let at = 0; e.text !== null && at < e.text.length; at += TEXT_PIECE) {
    text.push(e.text.slice(at, at + TEXT_PIECE));
  }
  const wire: WireRobotsEntry = { state: e.state, status: e.status, text };
  if (e.failure !== undefined) wire.failure = { ...e.failure };
  return wire;
}

export function robotsEntryFromWire(
  w: Partial<Omit<WireRobotsEntry, 'text'>> & { text: string[] },
): RobotsEntry {
  const entry: RobotsEntry = {
    state: w.state ?? 'unavailable',
    status: w.status ?? null,
    text: w.state === 'parsed' ? w.text.join('') : null,
  };
  const f = w.failure;
  if (f !== undefined) {
    // A failure kind this side does not know is a network failure: the rules are the same.
    const error = (FETCH_ERRORS as readonly string[]).includes(f.error)
      ? (f.error as FetchErrorReason)
      : 'network';
    entry.failure = {
      error,
      message: f.message,
      ...(f.connectFailed === true ? { connectFailed: true } : {}),
    };
  }
  return entry;
}

export function robotsAnswerToWire(a: RobotsAnswer | { kind: 'none' }): Bodies['ROBOTSREPLY'] {
  if (a.kind !== 'known') return { answer: a.kind, text: [] };
  return { answer: 'known', validForMs: a.robots.validForMs, ...robotsEntryToWire(a.robots.entry) };
}

export function robotsAnswerFromWire(w: Bodies['ROBOTSREPLY']): RobotsAnswer | { kind: 'none' } {
  if (w.answer !== 'known') return { kind: w.answer };
  return { kind: 'known', robots: { entry: robotsEntryFromWire(w), validForMs: w.validForMs ?? 1 } };
}
