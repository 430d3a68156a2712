import type { CrawlerId, SiteFacts } from '../types.js';
import { liveCrawlers } from './crawlers.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** claimSite(): whether this crawler runs the site's hooks (nobody has, or its claimer died). */
export function claimSite(s: Store, origin: string, crawler: CrawlerId, tx: Tx): boolean {
  if (s.st.claimNewSite.run(origin, crawler).changes === 1) return true;
  const row = s.st.getSite.get(origin) as { claimed_by: number | null; recorded: number };
  if (row.recorded === 1 || row.claimed_by === crawler) return false;
  // Claimed by a crawler that died before its hooks finished: run them again, not never.
  if (row.claimed_by !== null && liveCrawlers(s, tx.now).has(row.claimed_by)) return false;
  return s.st.reclaimSite.run(crawler, origin).changes === 1;
}

export function recordSite(s: Store, site: SiteFacts): void {
  s.st.recordSite.run(site.origin, site.address, site.firstSeen, JSON.stringify(site.info));
}

export function sitesOf(s: Store): SiteFacts[] {
  const rows = s.st.sites.all() as {
    origin: string;
    address: string | null;
    first_seen: number;
    info: string;
  }[];
  return rows.map((r) => ({
    origin: r.origin,
    address: r.address,
    firstSeen: r.first_seen,
    info: JSON.parse(r.info) as Record<string, unknown>,
  }));
}
