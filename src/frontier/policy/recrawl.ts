import type { PreviousFetch, Validators } from '../types.js';

import type { CrawlCounts } from './crawl-budget.js';

/**
 * --recrawl-after: when a URL that was fetched is due again. A URL done at `fetchedAt`
 * is due once `afterMs` has passed by the store's clock. The stores queue the due ones
 * when a run starts (requeueDue), and while it runs their lease calls queue the ones
 * that come due (dueLookNeeded), so a run ends when nothing is queued, leased, waiting
 * to retry or due. Only URLs that got a response are due again (a failed one has
 * --retry-failed), and not those of a host given up on (they stay as they were).
 */
export function recrawlCutoff(now: number, afterMs: number): number | null {
  if (!(afterMs > 0) || !Number.isFinite(afterMs)) return null;
  return now - afterMs;
}

/** How many due URLs one statement queues at most; a store loops until none is left. */
export const RECRAWL_BATCH = 1000;

/** How often a running crawl's lease calls look for URLs come due while there is other work. */
export const DUE_LOOK_MS = 1000;

/**
 * Whether this lease call looks for URLs come due (--recrawl-after, `afterMs`), by the
 * counts of the crawl before it leases. Never without --recrawl-after, nor once the
 * crawl has its --max-pages (a run at its budget ends there, as it would without). Else
 * once `nextLook` has come (a look a second while the crawl has other work), and always
 * when nothing is queued or waiting to retry: the crawl is never said to be over with a
 * URL due.
 */
export function dueLookNeeded(
  afterMs: number | undefined,
  now: number,
  nextLook: number,
  maxPages: number,
  c: CrawlCounts,
): boolean {
  if (afterMs === undefined || recrawlCutoff(now, afterMs) === null) return false;
  if (c.final >= maxPages) return false;
  return now >= nextLook || (c.queued === 0 && c.retrying === 0);
}

/** The columns both stores keep of a URL's last response (PostgreSQL's bigints come as text). */
export interface RecrawlColumns {
  fetched_at: number | string | null;
  etag: string | null;
  last_modified: string | null;
  captured_at: number | string | null;
}

/** A URL's stored columns as the lease carries them: set when it was fetched before. */
export function previousOf(row: RecrawlColumns): PreviousFetch | undefined {
  if (row.fetched_at === null) return undefined;
  return {
    fetchedAt: Number(row.fetched_at),
    ...(row.etag === null ? {} : { etag: row.etag }),
    ...(row.last_modified === null ? {} : { lastModified: row.last_modified }),
    ...(row.captured_at === null ? {} : { capturedAt: Number(row.captured_at) }),
  };
}

/** What a done outcome keeps: its validators (etag, last_modified, captured_at), each null when absent. */
export function validatorColumns(v: Validators | undefined): [string | null, string | null, number | null] {
  return [v?.etag ?? null, v?.lastModified ?? null, v?.capturedAt ?? null];
}
