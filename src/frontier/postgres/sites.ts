import type { CrawlerId, SiteFacts } from '../types.js';
import { liveCrawlers } from './crawlers.js';
import type { Database } from './database.js';
import type { Tx } from './tx.js';

/** True for exactly one caller per origin; a claim whose crawler died can be claimed again. */
export async function claimSite(tx: Tx, origin: string, crawler: CrawlerId): Promise<boolean> {
  const made = await tx.q(
    `INSERT INTO sites (crawl, origin, claimed_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
    [tx.crawl, origin, crawler],
  );
  if (made.length === 1) return true;
  const [row] = await tx.q<{ claimed_by: number | null; recorded: boolean }>(
    `SELECT claimed_by, recorded FROM sites WHERE crawl = $1 AND origin = $2 FOR UPDATE`,
    [tx.crawl, origin],
  );
  if (row === undefined || row.recorded || row.claimed_by === crawler) return false;
  // Claimed by a crawler that died before its hooks finished: run them again, not never.
  if (row.claimed_by !== null && (await liveCrawlers(tx)).has(row.claimed_by)) return false;
  await tx.q(`UPDATE sites SET claimed_by = $3 WHERE crawl = $1 AND origin = $2`, [
    tx.crawl,
    origin,
    crawler,
  ]);
  return true;
}

export async function recordSite(tx: Tx, site: SiteFacts): Promise<void> {
  await tx.q(
    `INSERT INTO sites (crawl, origin, address, first_seen, info, recorded) VALUES ($1, $2, $3, $4, $5, true)
     ON CONFLICT (crawl, origin) DO UPDATE SET address = excluded.address, first_seen = excluded.first_seen,
       info = excluded.info, recorded = true`,
    [tx.crawl, site.origin, site.address, site.firstSeen, JSON.stringify(site.info)],
  );
}

export async function sitesOf(db: Database, crawl: number): Promise<SiteFacts[]> {
  const rows = await db.query<{
    origin: string;
    address: string | null;
    first_seen: number;
    info: Record<string, unknown>;
  }>(
    `SELECT origin, address, first_seen, info FROM sites WHERE crawl = $1 AND recorded ORDER BY first_seen, origin`,
    [crawl],
  );
  return rows.map((r) => ({ origin: r.origin, address: r.address, firstSeen: r.first_seen, info: r.info }));
}
