import type { CrawlCounts } from '../policy/crawl-budget.js';
import type { Store } from './store.js';
import type { Delta } from './tx.js';

/** The crawl's counts as the file has them (committed, and this transaction's so far). */
export function totals(s: Store): Delta {
  return s.st.totals.get() as Delta;
}

/** The file's counts with a transaction's changes not yet written. */
export function totalsWith(s: Store, d: Delta): Delta {
  const t = totals(s);
  return {
    queued: t.queued + d.queued,
    leased: t.leased + d.leased,
    retrying: t.retrying + d.retrying,
    done: t.done + d.done,
    failed: t.failed + d.failed,
    rejected: t.rejected + d.rejected,
    staleCompletions: t.staleCompletions + d.staleCompletions,
    expiredLeases: t.expiredLeases + d.expiredLeases,
  };
}

export function countsOf(t: Delta): CrawlCounts {
  return { queued: t.queued, leased: t.leased, retrying: t.retrying, final: t.done + t.failed };
}

/** The crawl's --max-pages: the last process to start wrote it (Infinity: none). */
export function maxPages(s: Store): number {
  // Held, the store is this process's: the budget is the one it wrote when it opened.
  if (s.held !== null) return s.settings.maxPages;
  const v = s.st.getMeta.get('max_pages') as string | undefined;
  return v === undefined ? Number.POSITIVE_INFINITY : Number(v);
}
