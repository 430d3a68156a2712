import type { CrawlEnd } from '../types.js';

/** What the end-of-crawl decision reads: the store's counts, whoever made them. */
export interface CrawlCounts {
  queued: number;
  leased: number;
  retrying: number;
  /** Done and failed: the outcomes --max-pages counts. */
  final: number;
}

/**
 * --max-pages counts URLs with a final outcome, across every crawler. A lease is a
 * promise of one, so the crawl hands out at most (max - final - leased); a URL whose try
 * is retried comes back and may use the room again.
 */
export function pagesLeft(maxPages: number, c: CrawlCounts): number {
  return Math.max(0, maxPages - c.final - c.leased);
}

/** The crawl is over when nothing can happen any more: the store decides, never a crawler. */
export function crawlEnd(maxPages: number, c: CrawlCounts): CrawlEnd | null {
  if (c.leased > 0) return null;
  if (c.queued === 0 && c.retrying === 0) return 'finished';
  if (c.final >= maxPages) return 'max-pages';
  return null;
}
