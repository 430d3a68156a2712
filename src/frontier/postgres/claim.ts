import { isPlaced } from '../host-row.js';
import { leaseOf } from '../lease-of.js';
import { leaseExpiry } from '../policy/lease-expiry.js';
import {
  afterLease,
  leasesThisTurn,
  NEVER,
  type PolitenessSettings,
  readyAt,
  startDeadline,
} from '../policy/politeness.js';
import type { CrawlerId, Lease } from '../types.js';
import { HOST_COLUMNS, type HostRecord } from './host-rows.js';
import { leaseIdSql } from './lease-ids.js';
import { LINK_KIND, LINK_STATUS } from './status.js';
import type { Tx } from './tx.js';

const S = LINK_STATUS;

/**
 * A lease reaches its crawler a commit and a round trip after the store decided it: a
 * start window shorter than that (a gap under 80 ms) could never be met, and the lease
 * would come back late every time. The policy keeps starts the gap apart whatever the
 * window: the host's next lease waits the gap after this one's deadline.
 */
const START_WINDOW_FLOOR_MS = 20;

/**
 * The hosts whose turn it is, shallowest queue head first, locked for this transaction.
 * SKIP LOCKED: a host another process is leasing from or completing right now is not
 * waited for; this one takes the next host. With --politeness-key ip a host is ready
 * when its address's row is.
 */
const READY_HOSTS = `SELECT ${HOST_COLUMNS} FROM hosts
  WHERE crawl = $1 AND queued > 0 AND NOT retired AND ready_at <= $2
  ORDER BY min_depth, ready_at LIMIT $3 FOR UPDATE SKIP LOCKED`;
const READY_HOSTS_SHARED = `SELECT ${HOST_COLUMNS.split(', ')
  .map((c) => `h.${c}`)
  .join(', ')} FROM hosts h JOIN hosts b ON b.crawl = h.crawl AND b.host = h.budget
  WHERE h.crawl = $1 AND h.queued > 0 AND NOT h.retired AND b.ready_at <= $2
  ORDER BY h.min_depth, b.ready_at LIMIT $3 FOR UPDATE OF h SKIP LOCKED`;

/**
 * The claim, in one statement: for each locked host, its first k queued URLs (depth,
 * then insertion order) become claimed, each with a new lease id; the (k+1)-th, if any,
 * is the host's new queue head. The host locks make the URL rows this host's alone.
 */
const CLAIM = `WITH pick AS (
    SELECT p.host, p.k, l.id, l.depth, l.rn
    FROM unnest($2::text[], $3::int[]) AS p(host, k)
    CROSS JOIN LATERAL (
      SELECT id, depth, row_number() OVER (ORDER BY depth, id) AS rn FROM crawler_links
      WHERE crawl = $1 AND host = p.host AND status = ${S.queued}
      ORDER BY depth, id LIMIT p.k + 1) AS l
  ), taken AS (
    UPDATE crawler_links AS c SET status = ${S.claimed}, leases = c.leases + 1,
      lease_expires = $4, crawler_id = $5, released = false, updated_at = $6
    FROM pick WHERE c.id = pick.id AND pick.rn <= pick.k
    RETURNING c.id, ${leaseIdSql('c')} AS lease_id, c.url, c.host, c.depth, c.via, c.redirects, c.kind, c.attempts
  )
  SELECT false AS head, id, lease_id, url, host, depth, via, redirects, kind, attempts FROM taken
  UNION ALL
  SELECT true, NULL, NULL, NULL, host, depth, NULL, NULL, NULL, NULL FROM pick WHERE rn = k + 1`;

interface ClaimRow {
  head: boolean;
  id: number;
  lease_id: number;
  url: string;
  host: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: number;
  attempts: number;
}

/**
 * Up to `want` leases from the hosts ready now, never more in flight per budget than
 * --per-host, never two request starts closer than its gap (policy/politeness.ts says
 * how many each host's turn may take, by when its request must start, and when the
 * host's next turn comes). Hosts come shallowest head first, and the leases are handed
 * out by depth. With --politeness-key ip a host not yet on its address gets its one
 * placement lease (needsAddress), which makes no request.
 */
export async function claimLeases(tx: Tx, want: number, crawler: CrawlerId): Promise<Lease[]> {
  const shared = tx.settings.key === 'ip';
  const politeness: PolitenessSettings = { ...tx.settings, startWindowFloorMs: START_WINDOW_FLOOR_MS };
  const ready = await tx.q<HostRecord>(shared ? READY_HOSTS_SHARED : READY_HOSTS, [tx.crawl, tx.now, want]);
  if (ready.length === 0) return [];
  for (const r of ready) tx.hosts.adopt(r);
  await tx.hosts.lockBudgets();
  // How many each host's turn takes, from its budget as the turns before it left it.
  const plan: { host: string; k: number }[] = [];
  const planned = new Map<string, ReturnType<typeof tx.hosts.budget>>();
  let room = want;
  for (const r of ready) {
    if (room === 0) break;
    const h = tx.hosts.host(r.host);
    const b = planned.get(h.budget) ?? tx.hosts.budget(h.budget);
    const placed = isPlaced(h.budget, shared);
    if (h.retired || h.queued <= 0 || readyAt(b, politeness, placed) > tx.now) continue;
    const k = Math.min(leasesThisTurn(b, politeness, room, placed), h.queued);
    if (k <= 0) continue;
    let next = b;
    for (let i = 0; i < k; i++) next = afterLease(next, politeness, tx.now, placed);
    planned.set(h.budget, next);
    plan.push({ host: h.host, k });
    room -= k;
  }
  if (plan.length === 0) return [];
  const expiresAt = leaseExpiry(tx.now, tx.settings);
  const rows = await tx.q<ClaimRow>(CLAIM, [
    tx.crawl,
    plan.map((p) => p.host),
    plan.map((p) => p.k),
    expiresAt,
    crawler,
    tx.now,
  ]);
  const leases: Lease[] = [];
  const takenOf = new Map<string, ClaimRow[]>();
  const headOf = new Map<string, number>();
  for (const r of rows) {
    if (r.head) headOf.set(r.host, r.depth);
    else takenOf.set(r.host, [...(takenOf.get(r.host) ?? []), r]);
  }
  for (const { host } of plan) {
    const h = tx.hosts.host(host);
    const taken = (takenOf.get(host) ?? []).sort((a, b) => a.depth - b.depth || a.id - b.id);
    let b = tx.hosts.budget(h.budget);
    const placed = isPlaced(h.budget, shared);
    const startBy = startDeadline(b, politeness, tx.now, placed);
    for (const r of taken) {
      b = afterLease(b, politeness, tx.now, placed);
      leases.push(
        leaseOf(
          r.lease_id,
          { ...r, kind: r.kind === LINK_KIND.sitemap ? 'sitemap' : 'page' },
          host,
          expiresAt,
          { startBy, placed },
        ),
      );
    }
    tx.hosts.setBudget(h.budget, b);
    // The table is the truth: no row past the ones taken means the count was stale.
    const head = headOf.get(host);
    h.queued = head === undefined ? 0 : h.queued - taken.length;
    if (head !== undefined) h.minDepth = head;
    tx.hosts.touch(h);
    tx.delta.queued -= taken.length;
    tx.delta.claimed += taken.length;
  }
  // Breadth-first across hosts: the batch goes out shallowest first.
  return leases.sort((a, b) => a.depth - b.depth);
}

const NEXT_HOST = `SELECT min(ready_at) AS t FROM hosts WHERE crawl = $1 AND queued > 0 AND NOT retired`;
const NEXT_HOST_SHARED = `SELECT min(b.ready_at) AS t FROM hosts h JOIN hosts b ON b.crawl = h.crawl AND b.host = h.budget
  WHERE h.crawl = $1 AND h.queued > 0 AND NOT h.retired`;
const NEXT_EXPIRY_OR_RETRY = `SELECT
  (SELECT min(lease_expires) FROM crawler_links WHERE crawl = $1 AND status = ${S.claimed}) AS expiry,
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
