import { queueRank } from '../policy/queue-rank.js';
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

/** Whether the URL's work is over: done, or failed or refused with its record written (a store may keep it out of memory). */
export function isFinal(e: UrlEntry): boolean {
  return e.state === 'done' || ((e.state === 'failed' || e.state === 'refused') && !e.unlogged);
}

/** The line a caller writes for a URL that was refused or given up on. */
export function recordOf(e: UrlEntry): PendingRecord {
  return { id: e.id, url: e.url, depth: e.depth, via: e.via, reason: e.reason ?? '' };
}
