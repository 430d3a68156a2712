import { addressBudget } from '../host-row.js';
import { settingsForHost } from '../policy/host-rules.js';
import { afterFetch, mergeBudgets } from '../policy/politeness.js';
import { validatorColumns } from '../policy/recrawl.js';
import type {
  CompleteResult,
  Completion,
  CrawlerId,
  FetchReport,
  LeaseId,
  Outcome,
  Release,
} from '../types.js';
import { URL_STATE } from '../url-state.js';
import { HOST_COLUMNS, type HostRecord, type HostRow } from './host-rows.js';
import { LEASE_ID, rowIdsOf } from './lease-ids.js';
import {
  firstOfEach,
  type LinkCandidate,
  probeSql,
  queueHosts,
  stageLinks,
  unseen,
  withoutKnown,
} from './link-inserts.js';
import { Params } from './params.js';
import {
  lockOrSkip,
  PENDING_RETURNING,
  type PendingRow,
  pendingInsert,
  takeOffQueue,
} from './pending-links.js';
import { adoptOrphans, requeue1, retireIfDead } from './requeue.js';
import type { LeasedRow, Tx } from './tx.js';
import { writeInOneStatement } from './writes.js';

const S = URL_STATE;

/** The leased rows these lease ids still name (not expired and handed on), locked. */
const HELD = `SELECT id, ${LEASE_ID} AS lease_id, host, rank, released FROM crawler_links
  WHERE id = ANY($1::int8[]) AND status = ${S.leased} ORDER BY id FOR UPDATE`;
const MARK_RELEASED = `UPDATE crawler_links SET released = true WHERE id = ANY($1::int8[])`;
/** A host's fetches in flight, less those whose reports this transaction has applied already. */
const LEASED_OF_HOST = `SELECT count(*)::int AS n FROM crawler_links
  WHERE crawl = $1 AND host = $2 AND status = ${S.leased} AND NOT released AND id <> ALL($3::int8[])`;

/** The leased rows of these leases, by lease id. */
export async function heldLeases(tx: Tx, ids: readonly LeaseId[]): Promise<Map<LeaseId, LeasedRow>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.q<LeasedRow>(HELD, [rowIdsOf(ids)]);
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
  await tx.hosts.lock(fresh.map((r) => (held.get(r.leaseId) as LeasedRow).host));
  const reported: number[] = [];
  for (const r of fresh) {
    const lease = held.get(r.leaseId) as LeasedRow;
    if (lease.released) continue; // released twice in one batch
    lease.released = true;
    await applyReport(tx, lease, r.report, reported);
  }
  // Marked after: a host moving to its address's budget takes this fetch along too, and
  // its report then frees the slot there.
  await tx.q(MARK_RELEASED, [reported]);
}

/**
 * The leased rows of the leases (by row id; the caller checks the lease ids) and their
 * hosts, locked in one statement: the rows by id, then the hosts in key order, as
 * separate statements would; which outlinks the crawl holds already (withoutKnown); and
 * the links pending for those hosts, taken out to be queued now (pending-links.ts).
 */
const LOCK = `WITH held AS MATERIALIZED (
    SELECT id, ${LEASE_ID} AS lease_id, host, rank, released FROM crawler_links
    WHERE id = ANY($1::int8[]) AND status = ${S.leased} ORDER BY id FOR UPDATE),
  locked AS MATERIALIZED (
    SELECT ${HOST_COLUMNS} FROM hosts
    WHERE crawl = $2 AND host IN (SELECT host FROM held)
    ORDER BY host FOR UPDATE),
  drained AS (
    DELETE FROM pending_links WHERE crawl = $2 AND host IN (SELECT host FROM locked)
    RETURNING ${PENDING_RETURNING})
  SELECT (SELECT coalesce(json_agg(held), '[]') FROM held) AS held,
         (SELECT coalesce(json_agg(locked), '[]') FROM locked) AS hosts,
         (${probeSql('$2', '$3')}) AS known,
         (SELECT coalesce(json_agg(drained), '[]') FROM drained) AS drained`;

const DONE_PART = (p: Params, crawler: CrawlerId, now: number, done: readonly DoneRow[]) =>
  `UPDATE crawler_links AS l SET status = ${S.done}, attempts = attempts + 1, error = NULL,
    lease_expires = NULL, crawler_id = ${p.add(crawler)}, has_form = u.has_form, updated_at = ${p.add(now)},
    fetched_at = ${p.add(now)}, etag = u.etag, last_modified = u.last_modified, captured_at = u.captured_at
  FROM unnest(${p.add(done.map((d) => d.id))}::int8[], ${p.add(done.map((d) => d.hasForm))}::bool[],
    ${p.add(done.map((d) => d.validators[0]))}::text[], ${p.add(done.map((d) => d.validators[1]))}::text[],
    ${p.add(done.map((d) => d.validators[2]))}::int8[]) AS u(id, has_form, etag, last_modified, captured_at)
  WHERE l.id = u.id`;

/**
 * The other outcomes in one UPDATE, each column as its own statement would set it: failed
 * and refused are final (the completer is kept), a retry waits for due_at, a deferred
 * URL is queued again (of a host given up on, requeue1 fails them at once instead).
 */
const SETTLED_PART = (p: Params, crawler: CrawlerId, now: number, rows: readonly SettledRow[]) =>
  `UPDATE crawler_links AS l SET status = u.status, attempts = l.attempts + u.tries,
    error = CASE WHEN u.status = ${S.queued} THEN l.error ELSE u.error END, lease_expires = NULL,
    due_at = CASE WHEN u.status = ${S.retrying} THEN u.due_at WHEN u.status = ${S.queued} THEN NULL ELSE l.due_at END,
    crawler_id = CASE WHEN u.status IN (${S.failed}, ${S.rejected}) THEN ${p.add(crawler)}::int8 ELSE l.crawler_id END,
    updated_at = ${p.add(now)}
  FROM unnest(${p.add(rows.map((r) => r.id))}::int8[], ${p.add(rows.map((r) => r.status))}::int2[],
    ${p.add(rows.map((r) => r.tries))}::int[], ${p.add(rows.map((r) => r.error))}::text[],
    ${p.add(rows.map((r) => r.dueAt))}::int8[]) AS u(id, status, tries, error, due_at)
  WHERE l.id = u.id`;

interface DoneRow {
  id: number;
  hasForm: boolean;
  validators: ReturnType<typeof validatorColumns>;
}

interface SettledRow {
  id: number;
  status: number;
  tries: number;
  error: string | null;
  dueAt: number | null;
}

/**
 * A batch of completions in one transaction of a few statements: the leases and their
 * hosts locked, the outlinks the crawl holds found and the links pending for those hosts
 * taken (one statement); the hosts of the other outlinks locked where nobody holds them
 * and which of their links are new (two, when there are any); everything written (one:
 * outcomes, new links, links left pending, host rows, counts). A completion whose lease
 * expired and went to someone else changes nothing and comes back stale.
 */
export async function completeBatch(
  tx: Tx,
  batch: readonly Completion[],
  /** Each completion's outlinks and rejected links, hashed (candidatesOf). */
  links: readonly (readonly LinkCandidate[])[],
  crawler: CrawlerId,
  /** Also take the records nobody was given (see adoptOrphans). */
  adopt = true,
): Promise<CompleteResult> {
  const ids = batch.map((c) => c.leaseId);
  if (ids.length === 0) return { added: 0, records: tx.records, stale: [] };
  const allCandidates = firstOfEach(links);
  const [locked] = await tx.q<{
    held: LeasedRow[];
    hosts: HostRecord[];
    known: string[];
    drained: PendingRow[];
  }>(LOCK, [rowIdsOf(ids), tx.crawl, allCandidates.map((c) => c.fp)]);
  const held = new Map((locked?.held ?? []).map((r) => [r.lease_id, r]));
  for (const h of locked?.hosts ?? []) tx.hosts.adopt(h);
  // One completion per lease: a lease id given twice in a batch counts once.
  const seen = new Set<LeaseId>();
  const live = batch.filter((c) => held.has(c.leaseId) && !seen.has(c.leaseId) && seen.add(c.leaseId));
  const stale = batch.filter((c) => !held.has(c.leaseId)).map((c) => c.leaseId);
  tx.delta.staleCompletions += stale.length;
  const maybe = firstOfEach([
    withoutKnown(
      live.length === batch.length
        ? allCandidates
        : firstOfEach(links.filter((_, i) => live.includes(batch[i] as Completion))),
      locked?.known ?? [],
    ),
    takeOffQueue(tx, locked?.drained ?? []),
  ]);
  // The hosts another transaction holds are not waited for: their links are left pending.
  const busy = await lockOrSkip(tx, [
    ...live.map((c) => (held.get(c.leaseId) as LeasedRow).host),
    ...queueHosts(maybe),
  ]);
  const pending: LinkCandidate[] = [];
  const toProbe: LinkCandidate[] = [];
  for (const c of maybe) (c.reason === null && busy.has(c.host) ? pending : toProbe).push(c);
  tx.delta.queued += pending.length;
  const done: DoneRow[] = [];
  const settled: SettledRow[] = [];
  const reported: number[] = [];
  for (const c of live) {
    const lease = held.get(c.leaseId) as LeasedRow;
    if (!lease.released) await applyReport(tx, lease, c.report ?? { fetchMs: 0 }, reported);
    tx.delta.leased--;
    if (c.outcome.kind === 'done') {
      done.push({
        id: lease.id,
        hasForm: c.hasForm === true,
        validators: validatorColumns(c.outcome.validators),
      });
      tx.delta.done++;
    } else {
      const row = await settle(tx, lease, c.outcome, crawler);
      if (row !== null) settled.push(row);
    }
  }
  const fresh = await unseen(tx, toProbe);
  const p = new Params();
  const staged = stageLinks(tx, fresh, crawler, p);
  await writeInOneStatement(
    tx,
    p,
    {
      done: done.length === 0 ? null : DONE_PART(p, crawler, tx.now, done),
      settled: settled.length === 0 ? null : SETTLED_PART(p, crawler, tx.now, settled),
      pending: pendingInsert(p, tx.crawl, pending),
    },
    staged,
  );
  for (const host of new Set(live.map((c) => (held.get(c.leaseId) as LeasedRow).host)))
    await retireIfDead(tx, host, crawler);
  if (adopt) await adoptOrphans(tx, crawler);
  return { added: staged.added + pending.length, records: tx.records, stale };
}

/**
 * A completed lease's outcome other than done, as a row of the settled UPDATE; null when
 * it was written already (a URL of a host given up on is failed by requeue1 at once).
 */
async function settle(
  tx: Tx,
  lease: LeasedRow,
  o: Exclude<Outcome, { kind: 'done' }>,
  crawler: CrawlerId,
): Promise<SettledRow | null> {
  switch (o.kind) {
    case 'failed':
      tx.delta.failed++;
      return { id: lease.id, status: S.failed, tries: 1, error: o.error, dueAt: null };
    case 'refused':
      tx.delta.rejected++;
      return { id: lease.id, status: S.rejected, tries: 0, error: o.reason, dueAt: null };
    case 'retry':
      // A host given up on takes no retry: requeue1 fails the URL instead.
      if (tx.hosts.host(lease.host).retired) {
        await requeue1(tx, lease.id, lease.host, lease.rank, 1, crawler);
        return null;
      }
      tx.delta.retrying++;
      return { id: lease.id, status: S.retrying, tries: 1, error: o.error, dueAt: tx.now + o.afterMs };
    case 'deferred': {
      const h = tx.hosts.host(lease.host);
      if (h.retired) {
        await requeue1(tx, lease.id, lease.host, lease.rank, 0, crawler);
        return null;
      }
      tx.hosts.queue(h, lease.rank);
      tx.delta.queued++;
      return { id: lease.id, status: S.queued, tries: 0, error: null, dueAt: null };
    }
  }
}

/**
 * One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot.
 * `reported`: the leases whose reports this transaction has applied (this one joins
 * them), which are no longer in flight whatever their rows say yet.
 */
async function applyReport(tx: Tx, lease: LeasedRow, report: FetchReport, reported: number[]): Promise<void> {
  const h = tx.hosts.host(lease.host);
  if (tx.settings.key === 'ip' && report.address != null)
    await moveToAddress(tx, h, report.address, reported);
  const settings = settingsForHost(tx.settings, lease.host);
  tx.hosts.setBudget(h.budget, afterFetch(tx.hosts.budget(h.budget), report, settings, tx.now));
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
