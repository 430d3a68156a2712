/**
 * robots.txt per origin (scheme://host:port): fetched before the origin's first page, shared by
 * concurrent checks, kept for a day (RFC 9309 section 2.4), and retried sooner when unreachable.
 */
import type { FetchFailure, FetchOutcome } from '../types.js';
import {
  DEFAULT_ROBOTS_TTL_MS,
  DEFAULT_UNAVAILABLE_RETRY_MS,
  entryOfLoad,
  type HeldRobots,
  keptAfterRead,
  loadOfEntry,
  type RobotsAnswer,
  type RobotsEntry,
  type StoredRobots,
} from './robots-entry.js';
import {
  LateStartError,
  loadRobotsTxt,
  type RobotsFetch,
  type RobotsLoad,
  type RobotsState,
} from './robots-fetch.js';
import { productTokenOf } from './robots-txt.js';

export { LateStartError, type RobotsFetch, type RobotsState } from './robots-fetch.js';

export interface RobotsVerdict {
  allowed: boolean;
  /** 'robots' when a rule disallows the URL; 'robots-unavailable' when the origin's robots.txt answered 5xx or could not be reached (everything disallowed until a retry succeeds). */
  reason?: 'robots' | 'robots-unavailable';
  crawlDelayMs: number | null;
  /** For 'robots-unavailable' because no answer came at all: the fetch failure (refused, dns...). */
  failure?: FetchFailure;
  /**
   * True if this call waited for robots.txt to be fetched over the network (the caller keeps the
   * host's politeness gap before its next request). Every check that joined the same fetch gets true.
   */
  fetched: boolean;
}

export interface RobotsSummary {
  origin: string;
  status: number | null;
  state: RobotsState;
  crawlDelayMs: number | null;
  sitemaps: string[];
  fetchedAt: number;
}

/**
 * The crawl's own robots.txt entries, kept by its store for all its crawlers: asked
 * before a file is read, and told what was read, so that a crawl reads each file once
 * (and again when it expires) however many processes crawl.
 */
export interface CrawlRobots {
  robots(origin: string): Promise<RobotsAnswer>;
  /** What this crawler read; null: it read nothing after all (its request was late), and gives the read back. */
  recordRobots(origin: string, entry: RobotsEntry | null): Promise<StoredRobots | null>;
}

export interface RobotsCacheOptions {
  fetch: RobotsFetch;
  /**
   * The crawl's entries (its store). Without it this cache decides alone: each process
   * that uses one reads every origin's file itself.
   */
  shared?: CrawlRobots;
  /** The full User-Agent header; the product token is derived from it. */
  userAgent: string;
  /** How long a fetched robots.txt is used, default 24 h (RFC 9309 section 2.4). */
  ttlMs?: number;
  /** How long a 5xx/unreachable verdict holds before trying again, default 1 h. */
  unavailableRetryMs?: number;
  now?: () => number;
  /** Default DEFAULT_MAX_ORIGINS, or DEFAULT_MAX_ORIGINS_SHARED with `shared`. */
  maxOrigins?: number;
}

export { DEFAULT_ROBOTS_TTL_MS, DEFAULT_UNAVAILABLE_RETRY_MS };
/**
 * Origins kept at most. A crawl of the open web meets millions of sites; past this, the
 * one loaded longest ago is forgotten (and read again if the crawl comes back to it).
 */
export const DEFAULT_MAX_ORIGINS = 100_000;
/**
 * Origins kept at most when the crawl's store keeps the entries (`shared`): a forgotten
 * one costs a question to the store, not a request to the site, so a crawler of 10^5
 * hosts keeps the rules of the last 10^4 it met rather than all of them in its memory.
 */
export const DEFAULT_MAX_ORIGINS_SHARED = 10_000;

/** What refresh() did: the requests it made itself (none when it joined a load already running). */
export interface RobotsRefresh {
  requests: FetchOutcome[];
}

type CacheEntry = HeldRobots<RobotsLoad>;

export class RobotsCache {
  readonly #fetch: RobotsFetch;
  readonly #shared: CrawlRobots | undefined;
  readonly #productToken: string;
  readonly #ttlMs: number;
  readonly #unavailableRetryMs: number;
  readonly #now: () => number;
  readonly #maxOrigins: number;
  readonly #entries = new Map<string, CacheEntry>();
  /** One fetch per origin at a time: checks that arrive meanwhile wait for the same promise. */
  readonly #loading = new Map<string, Promise<CacheEntry>>();

  constructor(options: RobotsCacheOptions) {
    this.#fetch = options.fetch;
    this.#shared = options.shared;
    this.#productToken = productTokenOf(options.userAgent);
    this.#ttlMs = options.ttlMs ?? DEFAULT_ROBOTS_TTL_MS;
    this.#unavailableRetryMs = options.unavailableRetryMs ?? DEFAULT_UNAVAILABLE_RETRY_MS;
    this.#now = options.now ?? Date.now;
    this.#maxOrigins =
      options.maxOrigins ?? (options.shared === undefined ? DEFAULT_MAX_ORIGINS : DEFAULT_MAX_ORIGINS_SHARED);
  }

  /** Whether `url` (a canonical http(s) URL) may be fetched. Rejects with a TypeError for anything else. */
  async check(url: string): Promise<RobotsVerdict> {
    const parsed = URL.parse(url);
    if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new TypeError(`robots.txt applies to http(s) URLs only: ${url}`);
    }
    const origin = parsed.origin;
    let entry = this.#entries.get(origin);
    let fetched = false;
    if (entry === undefined || this.#now() >= entry.expiresAt) {
      entry = await this.#refresh(origin);
      fetched = true;
    }
    return verdictFor(entry.entry, parsed.pathname + parsed.search, fetched);
  }

  /**
   * The verdict for `url` (a canonical http(s) URL) from what is cached, without any
   * request; undefined when its origin's robots.txt must be read (again) first.
   */
  cached(url: string): RobotsVerdict | undefined {
    const parsed = URL.parse(url);
    if (parsed === null) return undefined;
    const entry = this.#entries.get(parsed.origin);
    if (entry === undefined || this.#now() >= entry.expiresAt) return undefined;
    return verdictFor(entry.entry, parsed.pathname + parsed.search, false);
  }

  /**
   * Reads `origin`'s robots.txt now, or waits for the read already under way. The caller
   * that started the read gets the requests it made (redirects included), to archive
   * them and to count them as requests to the host.
   */
  async refresh(origin: string, startBy?: number): Promise<RobotsRefresh> {
    const pending = this.#loading.get(origin);
    if (pending !== undefined) {
      await pending;
      return { requests: [] };
    }
    const requests: FetchOutcome[] = [];
    const recording = async (url: string) => {
      // The first request is the lease's own: it goes out by the lease's deadline or not at
      // all, and then nothing is read or cached (the ones after it follow its redirects).
      const outcome = await this.#fetch(url, requests.length === 0 ? startBy : undefined);
      if (!outcome.ok && outcome.error === 'late') return outcome;
      requests.push(outcome);
      return outcome;
    };
    await this.#refresh(origin, recording);
    return { requests };
  }

  /** What is known of `origin`'s robots.txt, or undefined before its first check() completed. */
  summaryOf(origin: string): RobotsSummary | undefined {
    // Keys are URL.origin spellings; another spelling of the same origin finds the same entry.
    const key = this.#entries.has(origin) ? origin : (URL.parse(origin)?.origin ?? origin);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const load = entry.entry;
    return {
      origin: key,
      status: load.status,
      state: load.state,
      crawlDelayMs: load.robots.crawlDelayMs,
      sitemaps: [...load.robots.sitemaps],
      fetchedAt: entry.fetchedAt,
    };
  }

  #refresh(origin: string, fetch: RobotsFetch = this.#fetch): Promise<CacheEntry> {
    const pending = this.#loading.get(origin);
    if (pending !== undefined) return pending;
    const loading = this.#load(origin, fetch).finally(() => this.#loading.delete(origin));
    this.#loading.set(origin, loading);
    return loading;
  }

  async #load(origin: string, fetch: RobotsFetch): Promise<CacheEntry> {
    const shared = this.#shared;
    if (shared === undefined) {
      const load = await loadRobotsTxt(fetch, origin, this.#productToken);
      const times = { ttlMs: this.#ttlMs, unavailableRetryMs: this.#unavailableRetryMs };
      return this.#keep(origin, keptAfterRead(this.#entries.get(origin), load, this.#now(), times));
    }
    const answer = await shared.robots(origin);
    // Another crawler is reading the file: like a request that could not start in time,
    // nothing is asked of the host now, and the lease goes back.
    if (answer.kind === 'busy')
      throw new LateStartError(`${origin}/robots.txt is being read by another crawler`);
    if (answer.kind === 'known') return this.#keepStored(origin, answer.robots, null);
    let load: RobotsLoad;
    try {
      load = await loadRobotsTxt(fetch, origin, this.#productToken);
    } catch (err) {
      await shared.recordRobots(origin, null);
      throw err;
    }
    const kept = await shared.recordRobots(origin, entryOfLoad(load));
    if (kept === null) {
      // The crawl took the read back (it ran past its claim): use it here until it is retried.
      const now = this.#now();
      return this.#keep(origin, { entry: load, fetchedAt: now, expiresAt: now + this.#unavailableRetryMs });
    }
    return this.#keepStored(origin, kept, load);
  }

  /** What the crawl keeps, as rules: `read` when it is what this crawler just read (no parse again). */
  #keepStored(origin: string, stored: StoredRobots, read: RobotsLoad | null): CacheEntry {
    const now = this.#now();
    const same =
      read !== null && read.state === stored.entry.state && (read.text ?? null) === stored.entry.text;
    const load = same ? read : loadOfEntry(stored.entry, origin, this.#productToken);
    return this.#keep(origin, { entry: load, fetchedAt: now, expiresAt: now + stored.validForMs });
  }

  #keep(origin: string, entry: CacheEntry): CacheEntry {
    // Re-inserted so the Map's order is the order of loading: the oldest goes first when full.
    this.#entries.delete(origin);
    this.#entries.set(origin, entry);
    if (this.#entries.size > this.#maxOrigins) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return entry;
  }
}

function verdictFor(load: RobotsLoad, pathAndQuery: string, fetched: boolean): RobotsVerdict {
  const crawlDelayMs = load.robots.crawlDelayMs;
  if (load.robots.isAllowed(pathAndQuery)) return { allowed: true, crawlDelayMs, fetched };
  if (load.state !== 'unavailable') return { allowed: false, reason: 'robots', crawlDelayMs, fetched };
  const verdict: RobotsVerdict = { allowed: false, reason: 'robots-unavailable', crawlDelayMs, fetched };
  if (load.failure !== undefined) verdict.failure = load.failure;
  return verdict;
}
