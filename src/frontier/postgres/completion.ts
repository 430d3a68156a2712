import { addressBudget } from '../host-row.js';
import { afterFetch, mergeBudgets } from '../policy/politeness.js';
import type { CompleteResult, Completion, CrawlerId, FetchReport, LeaseId, Release } from '../types.js';
import { hostsOfLinks } from './host-keys.js';
import type { HostRow } from './host-rows.js';
import { LEASE_ID, rowIdsOf } from './lease-ids.js';
import { insertLinks } from './link-inserts.js';
import { adoptOrphans, requeue1, retireIfDead } from './requeue.js';
import { LINK_STATUS } from './status.js';
import type { ClaimedRow, Tx } from './tx.js';

const S = LINK_STATUS;

/** The claimed rows these lease ids still name (not expired and handed on), locked. */
const HELD = `SELECT id, ${LEASE_ID} AS lease_id, host, depth, released FROM crawler_links
  WHERE id = ANY($1::int8[]) AND status = ${S.claimed} ORDER BY id FOR UPDATE`;
const MARK_RELEASED = `UPDATE crawler_links SET released = true WHERE id = ANY($1::int8[])`;
const DONE = `UPDATE crawler_links AS l SET status = ${S.done}, attempts = attempts + 1, error = NULL,
    lease_expires = NULL, crawler_id = $1, has_form = u.has_form, updated_at = $2
  FROM unnest($3::int8[], $4::bool[]) AS u(id, has_form) WHERE l.id = u.id`;
const FINAL = `UPDATE crawler_links SET status = $2, attempts = attempts + $3, error = $4, lease_expires = NULL,
    crawler_id = $5, updated_at = $6 WHERE id = $1`;
const RETRYING = `UPDATE crawler_links SET status = ${S.retrying}, attempts = attempts + 1, error = $2,
    due_at = $3, lease_expires = NULL, updated_at = $4 WHERE id = $1`;
/** A host's fetches in flight, less those whose reports this transaction has applied already. */
const LEASED_OF_HOST = `SELECT count(*)::int AS n FROM crawler_links
  WHERE crawl = $1 AND host = $2 AND status = ${S.claimed} AND NOT released AND id <> ALL($3::int8[])`;

/** The claimed rows of these leases, by lease id. */
export async function heldLeases(tx: Tx, ids: readonly LeaseId[]): Promise<Map<LeaseId, ClaimedRow>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.q<ClaimedRow>(HELD, [rowIdsOf(ids)]);
  return new Map(rows.map((r) => [r.lease_id, r]));
}

/** The fetches are over: their hosts' budgets learn from the reports and free the slots. */
export async function applyReleases(tx: Tx, releases: readonly Release[]): Promise<void> {
  if (releases.length === 0) return;
  const held = await heldLeases(
    tx,
    releases.map((r) => r.leaseId),
  );
  const fresh = releases.filter((r) => held.get(r.leaseId)?.released === false);
  if (fresh.length === 0) return;
  await tx.hosts.lock(fresh.map((r) => (held.get(r.leaseId) as ClaimedRow).host));
  const reported: number[] = [];
  for (const r of fresh) {
    const lease = held.get(r.leaseId) as ClaimedRow;
    if (lease.released) continue; // released twice in one batch
    lease.released = true;
    await applyReport(tx, lease, r.report, reported);
  }
  // Marked after: a host moving to its address's budget takes this fetch along too, and
  // its report then frees the slot there.
  await tx.q(MARK_RELEASED, [reported]);
}

/**
 * A batch of completions in one transaction: outcomes, freed hosts, and every page's
 * outlinks in one insert. A completion whose lease expired and went to someone else
 * changes nothing and comes back stale.
 */
export async function completeBatch(
  tx: Tx,
  batch: readonly Completion[],
  crawler: CrawlerId,
  /** Also take the records nobody was given (see adoptOrphans). */
  adopt = true,
): Promise<CompleteResult> {
  const held = await heldLeases(
    tx,
    batch.map((c) => c.leaseId),
  );
  const live = batch.filter((c) => held.has(c.leaseId));
  const stale = batch.filter((c) => !held.has(c.leaseId)).map((c) => c.leaseId);
  tx.delta.stale += stale.length;
  const outlinks = live.flatMap((c) => c.outlinks);
  const rejected = live.flatMap((c) => c.rejected);
  // Every host this batch changes, locked at once in key order.
  await tx.hosts.lock([
    ...live.map((c) => (held.get(c.leaseId) as ClaimedRow).host),
    ...hostsOfLinks(outlinks),
  ]);
  const done: { id: number; hasForm: boolean }[] = [];
  const reported: number[] = [];
  for (const c of live) {
    const lease = held.get(c.leaseId) as ClaimedRow;
    if (!lease.released) await applyReport(tx, lease, c.report ?? { fetchMs: 0 }, reported);
    tx.delta.claimed--;
    if (c.outcome.kind === 'done') {
      done.push({ id: lease.id, hasForm: c.hasForm === true });
      tx.delta.done++;
    } else {
      await settle(tx, lease, c, crawler);
    }
  }
  if (done.length > 0) {
    await tx.q(DONE, [crawler, tx.now, done.map((d) => d.id), done.map((d) => d.hasForm)]);
  }
  const added = await insertLinks(tx, outlinks, rejected, crawler);
  for (const host of new Set(live.map((c) => (held.get(c.leaseId) as ClaimedRow).host)))
    await retireIfDead(tx, host, crawler);
  if (adopt) await adoptOrphans(tx, crawler);
  return { added, records: tx.records, stale };
}

/** Writes a completed lease's outcome, other than done (those go in one statement). */
async function settle(tx: Tx, lease: ClaimedRow, c: Completion, crawler: CrawlerId): Promise<void> {
  const o = c.outcome;
  switch (o.kind) {
    case 'done':
      return;
    case 'failed':
      await tx.q(FINAL, [lease.id, S.failed, 1, o.error, crawler, tx.now]);
      tx.delta.failed++;
      return;
    case 'refused':
      await tx.q(FINAL, [lease.id, S.rejected, 0, o.reason, crawler, tx.now]);
      tx.delta.rejected++;
      return;
    case 'retry':
      // A host given up on takes no retry: requeue1 fails the URL instead.
      if (tx.hosts.host(lease.host).retired) {
        await requeue1(tx, lease.id, lease.host, lease.depth, 1, crawler);
        return;
      }
      await tx.q(RETRYING, [lease.id, o.error, tx.now + o.afterMs, tx.now]);
      tx.delta.retrying++;
      return;
    case 'deferred':
      await requeue1(tx, lease.id, lease.host, lease.depth, 0, crawler);
      return;
  }
}

/**
 * One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot.
 * `reported`: the leases whose reports this transaction has applied (this one joins
 * them), which are no longer in flight whatever their rows say yet.
 */
async function applyReport(
  tx: Tx,
  lease: ClaimedRow,
  report: FetchReport,
  reported: number[],
): Promise<void> {
  const h = tx.hosts.host(lease.host);
  if (tx.settings.key === 'ip' && report.address != null)
    await moveToAddress(tx, h, report.address, reported);
  tx.hosts.setBudget(h.budget, afterFetch(tx.hosts.budget(h.budget), report, tx.settings, tx.now));
  reported.push(lease.id);
}

/**
 * --politeness-key ip: the host was found at `address` (a placement lease's report, or
 * a fetch's), so from now on it shares one budget (the row 'ip:ADDRESS') with every
 * other host there. Its fetches in flight move along with it, the one reporting
 * included.
 */
async function moveToAddress(
  tx: Tx,
  h: HostRow,
  address: string,
  reported: readonly number[],
): Promise<void> {
  const key = addressBudget(address);
  if (h.budget === key) return;
  await tx.hosts.lockShared([key]);
  const [row] = await tx.q<{ n: number }>(LEASED_OF_HOST, [tx.crawl, h.host, reported]);
  const inFlight = row?.n ?? 0;
  const from = tx.hosts.budget(h.budget);
  tx.hosts.setBudget(h.budget, { ...from, inFlight: Math.max(0, from.inFlight - inFlight) });
  tx.hosts.setBudget(key, mergeBudgets(tx.hosts.budget(key), { ...from, inFlight }));
  h.budget = key;
  tx.hosts.touch(h);
}
