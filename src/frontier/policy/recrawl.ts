import type { PreviousFetch, Validators } from '../types.js';

/**
 * --recrawl-after: when a URL that was fetched is due again. A URL done at `fetchedAt`
 * is due once `afterMs` has passed by the store's clock; the stores queue the due ones
 * at the start of a run (requeueDue), so a run still ends when its queue is empty.
 * Only URLs that got a response are due again (a failed one has --retry-failed), and
 * not those of a host given up on (they stay as they were).
 */
export function recrawlCutoff(now: number, afterMs: number): number | null {
  if (!(afterMs > 0) || !Number.isFinite(afterMs)) return null;
  return now - afterMs;
}

/** How many due URLs one statement queues at most; a store loops until none is left. */
export const RECRAWL_BATCH = 1000;

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
