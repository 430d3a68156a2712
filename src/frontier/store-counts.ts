import { type CrawlCounts, pagesLeft } from './policy/crawl-budget.js';
import type { FrontierStats } from './types.js';

/**
 * The crawl's counts a store keeps (SQLite's totals row, PostgreSQL's crawl_counts
 * slots), or the changes one transaction makes to them: one shape for both stores.
 */
export interface StoreCounts {
  queued: number;
  leased: number;
  retrying: number;
  done: number;
  failed: number;
  rejected: number;
  staleCompletions: number;
  expiredLeases: number;
}

/** Counts of nothing: what a transaction's changes start from. */
export function noCounts(): StoreCounts {
  return {
    queued: 0,
    leased: 0,
    retrying: 0,
    done: 0,
    failed: 0,
    rejected: 0,
    staleCompletions: 0,
    expiredLeases: 0,
  };
}

/** `a` with `b` added: the committed counts with a transaction's changes not yet written. */
export function plusCounts(a: StoreCounts, b: StoreCounts): StoreCounts {
  return {
    queued: a.queued + b.queued,
    leased: a.leased + b.leased,
    retrying: a.retrying + b.retrying,
    done: a.done + b.done,
    failed: a.failed + b.failed,
    rejected: a.rejected + b.rejected,
    staleCompletions: a.staleCompletions + b.staleCompletions,
    expiredLeases: a.expiredLeases + b.expiredLeases,
  };
}

/** What the end-of-crawl and budget rules (policy/crawl-budget.ts) read. */
export function crawlCountsOf(c: StoreCounts): CrawlCounts {
  return { queued: c.queued, leased: c.leased, retrying: c.retrying, final: c.done + c.failed };
}

/** stats() as every store answers it from its counts: `hosts` known, `maxPages` the crawl's (Infinity: none). */
export function statsOfCounts(t: StoreCounts, hosts: number, maxPages: number): FrontierStats {
  return {
    queued: t.queued,
    leased: t.leased,
    retrying: t.retrying,
    done: t.done,
    failed: t.failed,
    rejected: t.rejected,
    hosts,
    staleCompletions: t.staleCompletions,
    expiredLeases: t.expiredLeases,
    budgetLeft: Number.isFinite(maxPages) ? pagesLeft(maxPages, crawlCountsOf(t)) : null,
  };
}
