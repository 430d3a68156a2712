import { isPlaced } from '../host-row.js';
import { leaseOf } from '../lease-of.js';
import { settingsForHost } from '../policy/host-rules.js';
import { leaseExpiry } from '../policy/lease-expiry.js';
import {
  afterLease,
  leasesThisTurn,
  type PolitenessSettings,
  readyAt,
  startDeadline,
} from '../policy/politeness.js';
import { queueRank } from '../policy/queue-rank.js';
import { previousOf } from '../policy/recrawl.js';
import { noCounts } from '../store-counts.js';
import type { CrawlerId, Lease } from '../types.js';
import { kindOf, URL_STATE } from '../url-state.js';
import { countsUpdate } from './counts.js';
import type { HostRecord } from './host-rows.js';
import { leaseIdSql } from './lease-ids.js';
import { Params, withParts } from './params.js';
import type { Tx } from './tx.js';

const S = URL_STATE;

/**
 * A lease reaches its crawler a commit and a round trip after the store decided it: a
 * start window shorter than that (a gap under 80 ms) could never be met, and the lease
 * would come back late every time. The policy keeps starts the gap apart whatever the
 * window: the host's next lease waits the gap after this one's deadline.
 */
const START_WINDOW_FLOOR_MS = 20;

/**
 * The claim, in one statement with what it writes: for each locked host, its first k
 * queued URLs (rank, policy/queue-rank.ts, then insertion order) become leased, each with a new lease id; the
 * (k+1)-th, if any, is the host's new queue head. The host locks make the URL rows this
 * host's alone. The host rows (HostRows.pendingUpdate, written only if every host gave
 * its k) and the counts (by the rows taken) are written by the same statement.
 */
const claimSql = (p: Params, plan: readonly Turn[], hostRows: string | null, counts: string, at: ClaimAt) => {
  const parts = {
    pick: `SELECT p.host, p.k, l.id, l.rank, l.rn
    FROM unnest(${p.add(plan.map((t) => t.host))}::text[], ${p.add(plan.map((t) => t.k))}::int[]) AS p(host, k)
    CROSS JOIN LATERAL (
      SELECT id, rank, row_number() OVER (ORDER BY rank, id) AS rn FROM crawler_links
      WHERE crawl = ${at.crawl} AND host = p.host AND status = ${S.queued}
      ORDER BY rank, id LIMIT p.k + 1) AS l`,
    taken: `UPDATE crawler_links AS c SET status = ${S.leased}, leases = c.leases + 1,
      lease_expires = ${p.add(at.expiresAt)}, crawler_id = ${p.add(at.crawler)}, released = false, updated_at = ${p.add(at.now)}
    FROM pick WHERE c.id = pick.id AND pick.rn <= pick.k
    RETURNING c.id, ${leaseIdSql('c')} AS lease_id, c.url, c.host, c.depth, c.rank, c.via, c.redirects, c.kind, c.attempts,
      c.fetched_at, c.etag, c.last_modified, c.captured_at`,
    heads: `SELECT host, rank FROM pick WHERE rn = k + 1`,
    host_rows: hostRows,
    counts,
  };
  return `${withParts(parts)}SELECT false AS head, id, lease_id, url, host, depth, rank, via, redirects, kind, attempts,
    fetched_at, etag, last_modified, captured_at
  FROM taken
  UNION ALL
  SELECT true, NULL, NULL, NULL, host, NULL, rank, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM heads`;
};

interface ClaimAt {
  crawl: string;
  expiresAt: number;
  crawler: CrawlerId;
  now: number;
}

/** One host's turn: how many of its URLs the claim takes. */
interface Turn {
  host: string;
  k: number;
}

/** The number of rows the claim took, for the statement's other parts. */
const TAKEN = '(SELECT count(*) FROM taken)';

interface ClaimRow {
  head: boolean;
  id: number;
  lease_id: number;
  url: string;
  host: string;
  depth: number;
  rank: number;
  via: string | null;
  redirects: number;
  kind: number;
  attempts: number;
  fetched_at: string | null;
  etag: string | null;
  last_modified: string | null;
  captured_at: string | null;
}

/**
 * Up to `want` leases from the ready hosts (lookForLeases), never more in flight per
 * budget than --per-host, never two request starts closer than its gap (policy/
 * politeness.ts says how many each host's turn may take, by when its request must start,
 * and when the host's next turn comes). Hosts come lowest-ranked head first, and the leases
 * are handed out by rank (policy/queue-rank.ts). With --politeness-key ip a host not yet on its address gets
 * its one placement lease (needsAddress), which makes no request.
 *
 * The host rows are computed before the claim, as every host giving its k URLs leaves
 * them, so that one statement claims and writes; in the rare case a host's count was
 * stale and it gave fewer, they are computed again from what was taken and written later.
 */
export async function claimLeases(
  tx: Tx,
  want: number,
  crawler: CrawlerId,
  ready: readonly HostRecord[],
): Promise<Lease[]> {
  const shared = tx.settings.key === 'ip';
  const politeness = {
    ...tx.settings,
    startWindowFloorMs: START_WINDOW_FLOOR_MS,
  } satisfies PolitenessSettings;
  if (ready.length === 0) return [];
  for (const r of ready) tx.hosts.adopt(r);
  await tx.hosts.lockBudgets();
  // How many each host's turn takes, from its budget as the turns before it left it.
  const plan: Turn[] = [];
  const planned = new Map<string, ReturnType<typeof tx.hosts.budget>>();
  let room = want;
  for (const r of ready) {
    if (room === 0) break;
    const h = tx.hosts.host(r.host);
    const b = planned.get(h.budget) ?? tx.hosts.budget(h.budget);
    const placed = isPlaced(h.budget, shared);
    const own = settingsForHost(politeness, h.host);
    if (h.retired || h.queued <= 0 || readyAt(b, own, placed) > tx.now) continue;
    const k = Math.min(leasesThisTurn(b, own, room, placed), h.queued);
    if (k <= 0) continue;
    let next = b;
    for (let i = 0; i < k; i++) next = afterLease(next, own, tx.now, placed);
    planned.set(h.budget, next);
    plan.push({ host: h.host, k });
    room -= k;
  }
  if (plan.length === 0) return [];
  const expiresAt = leaseExpiry(tx.now, tx.settings);
  const keys = plan.flatMap((t) => [t.host, tx.hosts.host(t.host).budget]);
  const saved = tx.hosts.save(keys);
  // As if every host gives its k: the usual case, written by the claim statement.
  const startBy = takeTurns(tx, politeness, plan, (t) => t.k);
  const total = plan.reduce((sum, t) => sum + t.k, 0);
  const p = new Params();
  const hostRows = tx.hosts.pendingUpdate(p, {
    heads: 'heads',
    claimed: new Set(plan.map((t) => t.host)),
    when: `${TAKEN} = ${p.add(total)}`,
  });
  const counts = countsUpdate(p, tx.crawl, tx.delta, { queued: `-${TAKEN}`, leased: TAKEN }) as string;
  const crawl = p.add(tx.crawl);
  const rows = await tx.q<ClaimRow>(
    claimSql(p, plan, hostRows?.sql ?? null, counts, { crawl, expiresAt, crawler, now: tx.now }),
    p.values,
  );
  // The counts are written, the claim's included.
  Object.assign(tx.delta, noCounts());
  const takenOf = new Map<string, ClaimRow[]>();
  const headOf = new Map<string, number>();
  let taken = 0;
  for (const r of rows) {
    if (r.head) headOf.set(r.host, r.rank);
    else {
      takenOf.set(r.host, [...(takenOf.get(r.host) ?? []), r]);
      taken++;
    }
  }
  if (taken === total) {
    hostRows?.written();
  } else {
    // A host had fewer queued URLs than its count said: its turn took only those.
    tx.hosts.restore(saved);
    const fewer = takeTurns(tx, politeness, plan, (t) => takenOf.get(t.host)?.length ?? 0);
    for (const [host, by] of fewer) startBy.set(host, by);
  }
  for (const { host } of plan) {
    // The table is the truth: no row past the ones taken means the count was stale.
    const h = tx.hosts.host(host);
    const head = headOf.get(host);
    h.queued = head === undefined ? 0 : h.queued;
    if (head !== undefined) h.minRank = head;
  }
  const leases: Lease[] = [];
  for (const { host } of plan) {
    const placed = isPlaced(tx.hosts.host(host).budget, shared);
    const mine = (takenOf.get(host) ?? []).sort((a, b) => a.rank - b.rank || a.id - b.id);
    for (const r of mine) {
      const row = {
        ...r,
        kind: kindOf(r.kind),
        previous: previousOf(r),
      };
      leases.push(leaseOf(r.lease_id, row, host, expiresAt, { startBy: startBy.get(host), placed }));
    }
  }
  // Breadth-first across hosts: the batch goes out by rank (requisites after every page).
  return leases.sort((a, b) => queueRank(a.kind, a.depth) - queueRank(b.kind, b.depth));
}

/**
 * Moves each host's budget on by the leases its turn took (`count`), in plan order, and
 * takes them off its queue (the claim statement sets the queue from the table); returns
 * the start deadline of each host's leases.
 */
function takeTurns(
  tx: Tx,
  politeness: PolitenessSettings & Pick<Tx['settings'], 'hosts' | 'key'>,
  plan: readonly Turn[],
  count: (t: Turn) => number,
): Map<string, number | undefined> {
  const startBy = new Map<string, number | undefined>();
  for (const t of plan) {
    const h = tx.hosts.host(t.host);
    const placed = isPlaced(h.budget, tx.settings.key === 'ip');
    const own = settingsForHost(politeness, t.host);
    let b = tx.hosts.budget(h.budget);
    startBy.set(t.host, startDeadline(b, own, tx.now, placed));
    const n = count(t);
    for (let i = 0; i < n; i++) b = afterLease(b, own, tx.now, placed);
    tx.hosts.setBudget(h.budget, b);
    h.queued -= n;
    tx.hosts.touch(h);
  }
  return startBy;
}
