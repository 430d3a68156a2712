import { plusCounts, type StoreCounts } from '../store-counts.js';
import type { Store } from './store.js';

/** The crawl's counts as the file has them (committed, and this transaction's so far). */
export function totals(s: Store): StoreCounts {
  return s.st.totals.get() as StoreCounts;
}

/** The file's counts with a transaction's changes not yet written. */
export function totalsWith(s: Store, d: StoreCounts): StoreCounts {
  return plusCounts(totals(s), d);
}

/** The crawl's --max-pages: the last process to start wrote it (Infinity: none). */
export function maxPages(s: Store): number {
  // Held, the store is this process's: the budget is the one it wrote when it opened.
  if (s.held !== null) return s.settings.maxPages;
  const v = s.st.getMeta.get('max_pages') as string | undefined;
  return v === undefined ? Number.POSITIVE_INFINITY : Number(v);
}
