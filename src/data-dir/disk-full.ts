import { count } from '../english.js';
import { DiskFullError } from '../errors.js';

/**
 * Whether an error is the disk filling up: a write of a file (ENOSPC, EDQUOT for a user
 * over quota) or SQLite's "database or disk is full" (SQLITE_FULL), whichever part of
 * the crawl met it first.
 */
export function isDiskFull(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return true;
  // An error from a worker thread (the WARC writer) comes across without its code.
  return err instanceof Error && /\b(ENOSPC|EDQUOT)\b|database or disk is full/.test(err.message);
}

/**
 * The one line a full disk ends a crawl with: where, what this run had written (kept:
 * the store commits what it wrote, pages.jsonl and the WARC files hold whole records),
 * and how to go on.
 */
export function diskFullError(dataDir: string, fetchedThisRun: number, cause: unknown): DiskFullError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new DiskFullError(
    `the disk of ${dataDir} is full (${why}): the crawl stopped; this run fetched ${count(fetchedThisRun, 'page')}, kept there; free some space and run the same command again to go on`,
    { cause },
  );
}
