import { type CrawlerLife, crawlerGone, MACHINE } from '../liveness.js';
import type { CrawlerId } from '../types.js';
import { URL_STATE } from '../url-state.js';
import { LEASE_ID } from './lease-ids.js';
import { reclaimLease } from './requeue.js';
import type { LeasedRow, Tx } from './tx.js';

const ACTIVE = `SELECT id, host AS machine, pid, last_seen AS "lastSeen", left_at AS "leftAt"
  FROM crawlers WHERE crawl = $1 AND left_at IS NULL`;
const INSERT = `INSERT INTO crawlers (crawl, name, host, pid, started, last_seen) VALUES ($1, $2, $3, $4, $5, $5)
  RETURNING id`;
const LEAVE = `UPDATE crawlers SET left_at = $2 WHERE id = $1 AND left_at IS NULL`;
const TOUCH = `UPDATE crawlers SET last_seen = $2 WHERE id = $1`;
// Through the leased rows of the crawl (as many as are in flight): no index by crawler to keep up.
const LEASES_OF = `SELECT id, ${LEASE_ID} AS lease_id, host, rank, released FROM crawler_links
  WHERE crawl = $2 AND crawler_id = $1 AND status = ${URL_STATE.leased} ORDER BY id FOR UPDATE`;

/** A new crawler id from the crawlers table's sequence, after giving back what dead crawlers held. */
export async function registerCrawler(tx: Tx, name: string): Promise<CrawlerId> {
  await reclaimFromGone(tx);
  const [row] = await tx.q<{ id: number }>(INSERT, [tx.crawl, name, MACHINE, process.pid, tx.now]);
  return (row as { id: number }).id;
}

/** The crawler is stopping: its leases go back to the queue at once. */
export async function leaveCrawl(tx: Tx, crawler: CrawlerId): Promise<void> {
  await giveBack(tx, crawler);
  await tx.q(LEAVE, [crawler, tx.now]);
}

/** Heard from now (lease calls say so, at most once a second). */
export async function touchCrawler(tx: Tx, crawler: CrawlerId): Promise<void> {
  await tx.q(TOUCH, [crawler, tx.now]);
}

/** The crawlers of this crawl that still run (liveness.ts decides). */
export async function liveCrawlers(tx: Tx): Promise<Set<number>> {
  const rows = await tx.q<CrawlerLife & { id: number }>(ACTIVE, [tx.crawl]);
  return new Set(rows.filter((c) => !crawlerGone(c, tx.now, tx.settings.leaseMs)).map((c) => c.id));
}

/** At a crawler's start: leases of crawlers that died are given back now, not when they expire. */
async function reclaimFromGone(tx: Tx): Promise<void> {
  for (const c of await tx.q<CrawlerLife & { id: number }>(ACTIVE, [tx.crawl])) {
    if (!crawlerGone(c, tx.now, tx.settings.leaseMs)) continue;
    await giveBack(tx, c.id);
    await tx.q(LEAVE, [c.id, tx.now]);
  }
}

async function giveBack(tx: Tx, crawler: CrawlerId): Promise<void> {
  const rows = await tx.q<LeasedRow>(LEASES_OF, [crawler, tx.crawl]);
  if (rows.length === 0) return;
  await tx.hosts.lock(rows.map((r) => r.host));
  for (const r of rows) await reclaimLease(tx, r);
}
