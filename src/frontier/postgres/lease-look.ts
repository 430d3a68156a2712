import { expiredThrough } from '../policy/lease-expiry.js';
import { NEVER } from '../policy/politeness.js';
import { noCounts, type StoreCounts } from '../store-counts.js';
import { URL_STATE } from '../url-state.js';
import { COUNTS_SQL } from './counts.js';
import { HOST_COLUMNS, type HostRecord } from './host-rows.js';
import type { Tx } from './tx.js';

const S = URL_STATE;

/**
 * The hosts whose turn it is, lowest-ranked queue head first (policy/queue-rank.ts), locked for this transaction.
 * SKIP LOCKED: a host another process is leasing from or completing right now is not
 * waited for; this one takes the next host. With --politeness-key ip a host is ready
 * when its address's row is.
 */
const READY_HOSTS = `SELECT ${HOST_COLUMNS} FROM hosts
  WHERE crawl = $1 AND queued > 0 AND NOT retired AND ready_at <= $2
  ORDER BY min_rank, ready_at LIMIT $3 FOR UPDATE SKIP LOCKED`;
const READY_HOSTS_SHARED = `SELECT ${HOST_COLUMNS.split(', ')
  .map((c) => `h.${c}`)
  .join(', ')} FROM hosts h JOIN hosts b ON b.crawl = h.crawl AND b.host = h.budget
  WHERE h.crawl = $1 AND h.queued > 0 AND NOT h.retired AND b.ready_at <= $2
  ORDER BY h.min_rank, b.ready_at LIMIT $3 FOR UPDATE OF h SKIP LOCKED`;

/**
 * What a lease call looks at first, in one statement: whether leases ran out or retries
 * came due (then they are taken back first, and the hosts read again), the crawl's page
 * budget and counts, and up to $3 ready hosts, locked (READY_HOSTS).
 */
const look = (ready: string) => `WITH ready AS (${ready})
  SELECT c.*,
    EXISTS (SELECT 1 FROM crawler_links WHERE crawl = $1 AND status = ${S.leased} AND lease_expires <= $4) AS ran_out,
    EXISTS (SELECT 1 FROM crawler_links WHERE crawl = $1 AND status = ${S.retrying} AND due_at <= $2) AS came_due,
    (SELECT max_pages FROM crawls WHERE id = $1) AS max_pages,
    (SELECT coalesce(json_agg(r), '[]') FROM ready r) AS hosts
  FROM (${COUNTS_SQL}) AS c`;
const LOOK = look(READY_HOSTS);
const LOOK_SHARED = look(READY_HOSTS_SHARED);

export interface LeaseLook {
  /** Leases ran out or retries came due: take them back, then read the hosts again (readyHosts). */
  backlog: boolean;
  maxPages: number;
  counts: StoreCounts;
  /** Ready hosts, locked, lowest-ranked queue head first. */
  ready: HostRecord[];
}

/** The first statement of a lease call (LOOK). */
export async function lookForLeases(tx: Tx, n: number): Promise<LeaseLook> {
  const [r] = await tx.q<LookRow>(tx.settings.key === 'ip' ? LOOK_SHARED : LOOK, [
    tx.crawl,
    tx.now,
    n,
    expiredThrough(tx.now),
  ]);
  if (r === undefined) throw new Error('the lease look returned no row');
  const counts = noCounts();
  for (const c of Object.keys(counts) as (keyof StoreCounts)[]) counts[c] = r[c];
  return {
    backlog: r.ran_out || r.came_due,
    maxPages: r.max_pages ?? Number.POSITIVE_INFINITY,
    counts,
    ready: r.hosts,
  };
}

interface LookRow extends StoreCounts {
  /** Leases ran out. */
  ran_out: boolean;
  /** Retries came due. */
  came_due: boolean;
  max_pages: number | null;
  hosts: HostRecord[];
}

/** The ready hosts, locked, again (after taking back what ran out). */
export async function readyHosts(tx: Tx, n: number): Promise<HostRecord[]> {
  return tx.q<HostRecord>(tx.settings.key === 'ip' ? READY_HOSTS_SHARED : READY_HOSTS, [tx.crawl, tx.now, n]);
}

const NEXT_HOST = `SELECT min(ready_at) AS t FROM hosts WHERE crawl = $1 AND queued > 0 AND NOT retired`;
const NEXT_HOST_SHARED = `SELECT min(b.ready_at) AS t FROM hosts h JOIN hosts b ON b.crawl = h.crawl AND b.host = h.budget
  WHERE h.crawl = $1 AND h.queued > 0 AND NOT h.retired`;
const NEXT_EXPIRY_OR_RETRY = `SELECT
  (SELECT min(lease_expires) FROM crawler_links WHERE crawl = $1 AND status = ${S.leased}) AS expiry,
  (SELECT min(due_at) FROM crawler_links WHERE crawl = $1 AND status = ${S.retrying}) AS retry`;

/** When a lease runs out or a retry comes due: the only news a store with nothing ready can have. */
export async function nextExpiryOrRetry(tx: Pick<Tx, 'q' | 'crawl'>): Promise<number | null> {
  const [r] = await tx.q<{ expiry: number | null; retry: number | null }>(NEXT_EXPIRY_OR_RETRY, [tx.crawl]);
  const known = [r?.expiry ?? null, r?.retry ?? null].filter((t): t is number => t !== null);
  return known.length === 0 ? null : Math.min(...known);
}

/** The next moment a host's turn comes, a lease runs out or a retry comes due. */
export async function nextReadyAt(tx: Pick<Tx, 'q' | 'crawl' | 'settings'>): Promise<number | null> {
  const [r] = await tx.q<{ t: number | null }>(tx.settings.key === 'ip' ? NEXT_HOST_SHARED : NEXT_HOST, [
    tx.crawl,
  ]);
  const host = r?.t ?? null;
  const other = await nextExpiryOrRetry(tx);
  const known = [host === null || host >= NEVER ? null : host, other].filter((t): t is number => t !== null);
  return known.length === 0 ? null : Math.min(...known);
}
