import { type CrawlerLife, crawlerGone, MACHINE } from '../liveness.js';
import type { CrawlerId } from '../types.js';
import { reclaimHeld, reclaimLease } from './requeue.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** registerCrawler(): a new crawler's row; leases of crawlers that died are given back first. */
export function registerCrawler(s: Store, name: string, tx: Tx): CrawlerId {
  reclaimFromGone(s, tx);
  const info = s.st.insertCrawler.run(name, MACHINE, process.pid, tx.now, tx.now);
  return Number(info.lastInsertRowid);
}

/** At a crawler's start: leases and site claims of crawlers that died are given back now. */
function reclaimFromGone(s: Store, tx: Tx): void {
  for (const c of s.st.activeCrawlers.all() as (CrawlerLife & { id: number })[]) {
    if (!crawlerGone(c, tx.now, s.settings.leaseMs)) continue;
    for (const seq of s.st.leasesOf.all(c.id) as number[]) reclaimLease(s, seq, tx);
    for (const lease of s.held?.ofCrawler(c.id) ?? []) reclaimHeld(s, lease, tx);
    s.st.leaveCrawler.run(tx.now, c.id);
  }
}

/** leave(): the crawler's leases go back to the queue, and it is marked gone. */
export function leaveCrawler(s: Store, crawler: CrawlerId, tx: Tx): void {
  for (const seq of s.st.leasesOf.all(crawler) as number[]) reclaimLease(s, seq, tx);
  for (const lease of s.held?.ofCrawler(crawler) ?? []) reclaimHeld(s, lease, tx);
  s.st.leaveCrawler.run(tx.now, crawler);
}

/** The crawlers still alive at `now` (liveness.ts): what they hold is theirs. */
export function liveCrawlers(s: Store, now: number): Set<number> {
  const live = new Set<number>();
  for (const c of s.st.activeCrawlers.all() as (CrawlerLife & { id: number })[]) {
    if (!crawlerGone(c, now, s.settings.leaseMs)) live.add(c.id);
  }
  return live;
}
