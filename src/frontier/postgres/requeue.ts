import { expiredThrough } from '../policy/lease-expiry.js';
import { afterLostLease } from '../policy/politeness.js';
import { RETIRED_REASON, shouldRetire } from '../policy/retirement.js';
import type { CrawlerId, PendingRecord } from '../types.js';
import { URL_STATE } from '../url-state.js';
import { LEASE_ID } from './lease-ids.js';
import type { LeasedRow, Tx } from './tx.js';

const S = URL_STATE;

/** How many expired leases or due retries one lease call takes back at most (the rest, the next). */
const BACKLOG = 256;

const EXPIRED = `SELECT id, ${LEASE_ID} AS lease_id, host, rank, released FROM crawler_links
  WHERE crawl = $1 AND status = ${S.leased} AND lease_expires <= $2
  ORDER BY lease_expires LIMIT ${BACKLOG} FOR UPDATE SKIP LOCKED`;
const DUE = `SELECT id, host, rank FROM crawler_links
  WHERE crawl = $1 AND status = ${S.retrying} AND due_at <= $2
  ORDER BY due_at LIMIT ${BACKLOG} FOR UPDATE SKIP LOCKED`;
const TO_QUEUE = `UPDATE crawler_links SET status = ${S.queued}, attempts = attempts + $2, lease_expires = NULL,
    due_at = NULL, updated_at = $3 WHERE id = $1`;
const RETIRE = `UPDATE crawler_links SET status = ${S.failedUnlogged}, error = '${RETIRED_REASON}', holder = $2,
    lease_expires = NULL, due_at = NULL, updated_at = $3 WHERE id = ANY($1::int8[])`;
const WAITING_OF_HOST = `SELECT id, url, depth, via, status FROM crawler_links
  WHERE crawl = $1 AND host = $2 AND status IN (${S.queued}, ${S.retrying}) ORDER BY id FOR UPDATE`;
const ORPHANS = `UPDATE crawler_links SET holder = $2 WHERE id IN (
    SELECT id FROM crawler_links WHERE crawl = $1 AND holder IS NULL
      AND status IN (${S.rejectedUnlogged}, ${S.failedUnlogged}) LIMIT 1000 FOR UPDATE SKIP LOCKED)
  RETURNING id, url, depth, via, error AS reason`;
const RECORD = `SELECT id, url, depth, via, error AS reason FROM crawler_links WHERE id = $1`;

/** lease(): leases that ran out (policy/lease-expiry.ts) go back to the queue, one try counted. */
export async function reclaimExpired(tx: Tx): Promise<void> {
  const rows = await tx.q<LeasedRow>(EXPIRED, [tx.crawl, expiredThrough(tx.now)]);
  if (rows.length === 0) return;
  await tx.hosts.lock(rows.map((r) => r.host));
  for (const r of rows) await reclaimLease(tx, r);
}

/** A lease ran out (or its crawler is gone): the URL is queued again, one try counted. */
export async function reclaimLease(tx: Tx, lease: LeasedRow): Promise<void> {
  const h = tx.hosts.host(lease.host);
  if (!lease.released) tx.hosts.setBudget(h.budget, afterLostLease(tx.hosts.budget(h.budget)));
  tx.delta.leased--;
  tx.delta.expiredLeases++;
  // Nobody in particular will write the record of a URL failed here: the next completer adopts it.
  await requeue1(tx, lease.id, lease.host, lease.rank, 1, null);
}

/** lease(): retries whose time has come are queued again. */
export async function requeueDueRetries(tx: Tx): Promise<void> {
  const rows = await tx.q<{ id: number; host: string; rank: number }>(DUE, [tx.crawl, tx.now]);
  if (rows.length === 0) return;
  await tx.hosts.lock(rows.map((r) => r.host));
  for (const r of rows) {
    tx.delta.retrying--;
    await requeue1(tx, r.id, r.host, r.rank, 0, null);
  }
}

/**
 * A URL goes back to the queue (after an expired lease, a retry, a deferral), with
 * `tries` more attempts counted, at its `rank` (policy/queue-rank.ts). A host given up on takes no URL back: it is failed as
 * 'host-unreachable' and its record goes to `holder` (null: to the next completer).
 */
export async function requeue1(
  tx: Tx,
  id: number,
  host: string,
  rank: number,
  tries: number,
  holder: CrawlerId | null,
): Promise<void> {
  const h = tx.hosts.host(host);
  if (h.retired) {
    await tx.q(RETIRE, [[id], holder, tx.now]);
    tx.delta.failed++;
    if (holder !== null) tx.records.push(await recordOf(tx, id));
    return;
  }
  await tx.q(TO_QUEUE, [id, tries, tx.now]);
  tx.hosts.queue(h, rank);
  tx.delta.queued++;
}

/**
 * A budget that failed to connect --retire-after times in a row is given up on: its
 * hosts' queued and retrying URLs are failed as 'host-unreachable' and handed back to
 * be recorded. URLs in flight finish on their own.
 */
export async function retireIfDead(tx: Tx, host: string, crawler: CrawlerId): Promise<void> {
  const h = tx.hosts.host(host);
  if (h.retired || !shouldRetire(tx.hosts.budget(h.budget).failures, tx.settings)) return;
  const members = h.budget === h.host ? [] : await tx.hosts.membersOf(h.budget);
  for (const member of [...members, h.host]) {
    const m = tx.hosts.host(member);
    if (m.retired) continue;
    m.retired = true;
    m.queued = 0;
    tx.hosts.touch(m);
    const rows = await tx.q<{ id: number; url: string; depth: number; via: string | null; status: number }>(
      WAITING_OF_HOST,
      [tx.crawl, member],
    );
    if (rows.length === 0) continue;
    await tx.q(RETIRE, [rows.map((r) => r.id), crawler, tx.now]);
    for (const r of rows) {
      if (r.status === S.retrying) tx.delta.retrying--;
      else tx.delta.queued--;
      tx.delta.failed++;
      tx.records.push({ id: r.id, url: r.url, depth: r.depth, via: r.via, reason: RETIRED_REASON });
    }
  }
}

/** Records nobody was given (URLs failed while reclaiming a lease) go to this completer. */
export async function adoptOrphans(tx: Tx, crawler: CrawlerId): Promise<void> {
  for (const r of await tx.q<PendingRecord>(ORPHANS, [tx.crawl, crawler])) tx.records.push(r);
}

async function recordOf(tx: Tx, id: number): Promise<PendingRecord> {
  const [r] = await tx.q<PendingRecord>(RECORD, [id]);
  return r as PendingRecord;
}
