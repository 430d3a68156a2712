import type { FrontierStats } from '../frontier/types.js';
import type { CrawlProgress } from '../options/options.js';
import type { RunCounter } from '../output/run-counts.js';

/**
 * A crawl's progress from the store's counts (all runs) and this run's lines: what the
 * progress line, onProgress, and every command's summary show.
 */
export function progressOf(s: FrontierStats, counts: RunCounter, started: number): CrawlProgress {
  const elapsedMs = Date.now() - started;
  return {
    done: s.done,
    failed: s.failed,
    queued: s.queued + s.retrying,
    inFlight: s.leased,
    rejected: s.rejected,
    fetchedThisRun: counts.fetched,
    errorsThisRun: counts.errors,
    elapsedMs,
    pagesPerSec: elapsedMs > 0 ? (counts.fetched * 1000) / elapsedMs : 0,
    ...(s.seen === undefined ? {} : { seen: s.seen }),
  };
}
