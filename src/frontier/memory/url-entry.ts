import { queueRank, REQUISITE_RANK } from '../policy/queue-rank.js';
import type { CrawlerId, LeaseId, PendingRecord, PreviousFetch, RecordId, UrlKind } from '../types.js';

/** Where a URL stands; SQLite's and PostgreSQL's rows keep the same states as numbers. */
export type UrlState = 'queued' | 'leased' | 'retrying' | 'done' | 'failed' | 'refused';

/** One URL the store knows: what a row of the embedded store holds, as an object. */
export interface UrlEntry {
  /** Its record id: the order URLs came in, as a row key is. */
  id: RecordId;
  url: string;
  host: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: UrlKind;
  state: UrlState;
  /** Tries spent so far. */
  attempts: number;
  /** Why it was refused or failed. */
  reason: string | null;
  /** Failed or refused, and its record not written yet (acknowledge() clears it). */
  unlogged: boolean;
  /** Who must write that record; null: the next crawler to complete something adopts it. */
  holder: CrawlerId | null;
  /** Retrying: epoch ms (the store's clock) when it goes back to the queue. */
  retryAt: number;
  /** Its last response, once it was fetched (--recrawl-after's conditional request). */
  previous?: PreviousFetch;
}

/** One hand-out of one URL; the id names it, and dies with it. */
export interface HeldLease {
  id: LeaseId;
  entry: UrlEntry;
  crawler: CrawlerId;
  expiresAt: number;
  /** release() freed its host's slot already; complete() does not free it again. */
  released: boolean;
}

/** Where the entry stands in its host's queue. */
export function rankOf(e: UrlEntry): number {
  return queueRank(e.kind, e.depth);
}

/** Depths past this share one place in a queue's order on disk (no crawl goes that deep). */
const DEPTHS = 2 ** 20;
const IDS = 2 ** 32;

/**
 * A queued URL's place in its host's queue as one number, (rank, id) in order, for a
 * queue kept on disk (MemoryHost.rest): its rank's depth (past DEPTHS, DEPTHS - 1), after
 * every page's if it is a requisite, then its id. Below 2^53 for ids below 2^32.
 */
export function keyOf(e: UrlEntry): number {
  const rank = rankOf(e);
  const requisite = rank >= REQUISITE_RANK;
  const depth = Math.min(requisite ? rank - REQUISITE_RANK : rank, DEPTHS - 1);
  return ((requisite ? DEPTHS : 0) + depth) * IDS + e.id;
}

/** The rank a place (keyOf) stands for. */
export function rankOfKey(key: number): number {
  const code = Math.floor(key / IDS);
  return code >= DEPTHS ? REQUISITE_RANK + (code - DEPTHS) : code;
}

/** The URL id a place (keyOf) stands for. */
export function idOfKey(key: number): number {
  return key % IDS;
}

/** Whether the URL's work is over: done, or failed or refused with its record written (a store may keep it out of memory). */
export function isFinal(e: UrlEntry): boolean {
  return e.state === 'done' || ((e.state === 'failed' || e.state === 'refused') && !e.unlogged);
}

/** The line a caller writes for a URL that was refused or given up on. */
export function recordOf(e: UrlEntry): PendingRecord {
  return { id: e.id, url: e.url, depth: e.depth, via: e.via, reason: e.reason ?? '' };
}
