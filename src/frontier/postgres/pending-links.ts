import { HOST_COLUMNS, type HostRecord } from './host-rows.js';
import { firstOfEach, type LinkCandidate, stageLinks, unseen } from './link-inserts.js';
import { Params, type Part } from './params.js';
import type { Tx } from './tx.js';
import { writeInOneStatement } from './writes.js';

/**
 * Links waiting for their host's row. Only a transaction that holds a host's row queues
 * its URLs (the seen check is then true until it commits, and the host's queue count,
 * --max-pages-per-host and retirement are decided under the same lock). On the web nearly
 * every page links to the same few big hosts, and a completion that waited for each
 * such host's row waited behind every other completion doing the same: measured at 10^5
 * hosts, most of the database's time went to those waits. So a completion takes the rows
 * of its links' hosts only if nobody holds them (SKIP LOCKED), and leaves the links of
 * the others in `pending_links`. They count as queued from then on (a crawl does not end
 * with links pending), and whoever holds the host next queues them: a completion of
 * one of its pages (completion.ts, in its first statement), or a lease call, which sweeps
 * the hosts of the oldest pending links that nobody holds (sweepPending).
 */

/** A drained link's columns, as a candidate needs them (the fingerprint as text: a JS number would round it). */
export const PENDING_RETURNING = 'host, fingerprint::text AS fp, url, depth, via, redirects, kind';

export interface PendingRow {
  host: string;
  fp: string;
  url: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: number;
}

/** Links taken out of pending_links: off the queued count, as candidates to queue again. */
export function takeOffQueue(tx: Tx, rows: readonly PendingRow[]): LinkCandidate[] {
  tx.delta.queued -= rows.length;
  return rows.map((r) => ({ ...r, reason: null }));
}

/** The INSERT of links left for their hosts' next holders, for a write statement's WITH list. */
export function pendingInsert(p: Params, crawl: number, links: readonly LinkCandidate[]): Part {
  if (links.length === 0) return null;
  const col = <T>(f: (c: LinkCandidate) => T) => p.add(links.map(f));
  return `INSERT INTO pending_links (crawl, host, fingerprint, url, depth, via, redirects, kind)
  SELECT ${p.add(crawl)}::int, u.host, u.fp, u.url, u.depth, u.via, u.redirects, u.kind
  FROM unnest(${col((c) => c.host)}::text[], ${col((c) => c.fp)}::int8[], ${col((c) => c.url)}::text[],
    ${col((c) => c.depth)}::int[], ${col((c) => c.via)}::text[], ${col((c) => c.redirects)}::int2[],
    ${col((c) => c.kind)}::int2[]) AS u(host, fp, url, depth, via, redirects, kind)`;
}

const TRY_LOCK = `WITH l AS MATERIALIZED (
    SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND host = ANY($2::text[]) ORDER BY host FOR UPDATE SKIP LOCKED)
  SELECT (SELECT coalesce(json_agg(l), '[]') FROM l) AS locked,
    (SELECT coalesce(array_agg(host), '{}') FROM hosts WHERE crawl = $1 AND host = ANY($2::text[])) AS existing`;

/**
 * Locks the rows of these hosts that nobody holds, and makes and locks the rows of hosts
 * new to the crawl (a new host's row is rarely anyone else's yet); returns the hosts
 * whose rows another transaction holds, whose links go to pending_links.
 */
export async function lockOrSkip(tx: Tx, hosts: Iterable<string>): Promise<Set<string>> {
  const wanted = tx.hosts.notLocked(hosts);
  const busy = new Set<string>();
  if (wanted.length > 0) {
    const [r] = await tx.q<{ locked: HostRecord[]; existing: string[] }>(TRY_LOCK, [tx.crawl, wanted]);
    for (const h of r?.locked ?? []) tx.hosts.adopt(h);
    const existing = new Set(r?.existing ?? []);
    for (const h of wanted) if (existing.has(h) && !tx.hosts.has(h)) busy.add(h);
    await tx.hosts.lock(wanted.filter((h) => !existing.has(h)));
  }
  await tx.hosts.lockBudgets();
  return busy;
}

/** Pending links' rows looked at per sweep: their hosts are the ones tried. */
const SWEEP_ROWS = 1000;

/**
 * The hosts of the oldest pending links, those nobody holds locked, and every link
 * pending for them taken out, in one statement. A host another transaction holds is
 * tried again by the next sweep; its own completions drain it meanwhile.
 */
const SWEEP = `WITH oldest AS (
    SELECT DISTINCT host FROM (SELECT host FROM pending_links WHERE crawl = $1 ORDER BY id LIMIT ${SWEEP_ROWS}) AS o),
  locked AS MATERIALIZED (
    SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND host IN (SELECT host FROM oldest)
    ORDER BY host FOR UPDATE SKIP LOCKED),
  drained AS (
    DELETE FROM pending_links WHERE crawl = $1 AND host IN (SELECT host FROM locked)
    RETURNING ${PENDING_RETURNING})
  SELECT (SELECT coalesce(json_agg(locked), '[]') FROM locked) AS hosts,
    (SELECT coalesce(json_agg(drained), '[]') FROM drained) AS drained`;

/**
 * A lease call's first work: pending links of hosts nobody holds are queued (or dropped
 * as known, or refused by the store's rules: those records go to the next completer).
 */
export async function sweepPending(tx: Tx): Promise<void> {
  const [r] = await tx.q<{ hosts: HostRecord[]; drained: PendingRow[] }>(SWEEP, [tx.crawl]);
  if (r === undefined || r.drained.length === 0) return;
  for (const h of r.hosts) tx.hosts.adopt(h);
  await tx.hosts.lockBudgets();
  const fresh = await unseen(tx, firstOfEach([takeOffQueue(tx, r.drained)]));
  const p = new Params();
  await writeInOneStatement(tx, p, {}, stageLinks(tx, fresh, null, p));
}
