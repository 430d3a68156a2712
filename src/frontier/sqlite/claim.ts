import { leaseOf } from '../lease-of.js';
import { crawlEnd, pagesLeft } from '../policy/crawl-budget.js';
import { settingsForHost } from '../policy/host-rules.js';
import { expiredThrough, leaseExpiry } from '../policy/lease-expiry.js';
import { afterLease, leasesThisTurn, NEVER, readyAt, startDeadline } from '../policy/politeness.js';
import { inPass, REQUISITE_RANK } from '../policy/queue-rank.js';
import { previousOf } from '../policy/recrawl.js';
import { crawlCountsOf } from '../store-counts.js';
import type { CrawlerId, Lease, LeaseBatch } from '../types.js';
import { maxPages, totalsWith } from './counts.js';
import { isDue } from './held-mode.js';
import { leaseIdOf } from './lease-ids.js';
import { passEnd } from './passes.js';
import type { QueuedRow } from './queue-heads.js';
import { requeueComeDue } from './recrawl.js';
import { reclaimHeld, reclaimLease, requeueDueRetries } from './requeue.js';
import { kindOf } from './schema.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** lease(): up to n URLs from ready hosts, lowest rank first, within the crawl's budget. */
export function claim(s: Store, n: number, crawler: CrawlerId, tx: Tx): LeaseBatch {
  // Heard from: at most once a second, a row write each lease would be waste.
  if (tx.now - (s.lastTouched.get(crawler) ?? 0) >= 1000) {
    s.st.touchCrawler.run(tx.now, crawler);
    s.lastTouched.set(crawler, tx.now);
  }
  if (isDue(s.rowLeaseDue, expiredThrough(tx.now))) {
    for (const seq of s.st.expiredLeases.all(expiredThrough(tx.now)) as number[]) reclaimLease(s, seq, tx);
    if (s.held !== null) s.rowLeaseDue = s.st.nextExpiry.get() as number | null;
  }
  for (const lease of s.held?.expired(expiredThrough(tx.now)) ?? []) reclaimHeld(s, lease, tx);
  requeueDueRetries(s, tx);
  requeueComeDue(s, tx);
  // The queries below read the hosts table: let them see what came back to the queue.
  tx.hosts.flush();
  const before = totalsWith(s, tx.delta);
  const want = Math.min(n, pagesLeft(maxPages(s), crawlCountsOf(before)));
  const leases: Lease[] = [];
  // Rank by rank (policy/queue-rank.ts: depth, requisites after every page), the hosts
  // whose first URL has that rank, in the order they became ready.
  let rank = -1;
  while (leases.length < want) {
    const next = s.st.nextRank.get(rank) as number | undefined;
    if (next === undefined) break;
    rank = next;
    if (!inPass(rank, s.passDepth)) {
      // Past a pass's pages: the requisites of its depths, which rank after every page, are in it still.
      if (rank >= REQUISITE_RANK) break;
      rank = REQUISITE_RANK - 1;
      continue;
    }
    const ready = s.st.readyAtRank.all(rank, tx.now, want - leases.length) as string[];
    for (const host of ready) {
      if (leases.length >= want) break;
      claimFromHost(s, host, rank, want - leases.length, crawler, tx, leases);
    }
    // The next rank's query reads the hosts table: let it see this level's claims.
    tx.hosts.flush();
  }
  const after = totalsWith(s, tx.delta);
  const ended = crawlEnd(maxPages(s), crawlCountsOf(after)) ?? passEnd(s, after, tx);
  return {
    leases,
    ended,
    nextReadyAt: ended !== null || want === 0 ? nextExpiryOrRetry(s) : nextReadyAt(s),
  };
}

/** Leases up to `room` URLs of one host at `rank` (later ones wait for their level). */
function claimFromHost(
  s: Store,
  host: string,
  rank: number,
  room: number,
  crawler: CrawlerId,
  tx: Tx,
  out: Lease[],
): void {
  const h = tx.hosts.host(host);
  let b = tx.hosts.budget(h.budget);
  const placed = tx.hosts.placed(h.budget);
  const settings = settingsForHost(s.settings, host);
  if (h.retired || h.queued <= 0 || readyAt(b, settings, placed) > tx.now) return;
  const k = leasesThisTurn(b, settings, room, placed);
  if (k <= 0) return;
  const rows = headOf(s, host, k + 1);
  let n = 0;
  while (n < k && n < rows.length && (rows[n] as QueuedRow).rank <= rank) n++;
  const taken = rows.slice(0, n);
  const expiresAt = leaseExpiry(tx.now, s.settings);
  const startBy = startDeadline(b, settings, tx.now, placed);
  for (const r of taken) {
    const gen =
      s.held === null
        ? (s.st.leaseUrl.get(expiresAt, crawler, r.seq) as number)
        : s.held.add({ seq: r.seq, host, rank: r.rank, crawler, expiresAt });
    const id = leaseIdOf(r.seq, gen);
    b = afterLease(b, settings, tx.now, placed);
    const row = {
      ...r,
      kind: kindOf(r.kind),
      previous: previousOf(r),
    };
    out.push(leaseOf(id, row, host, expiresAt, { startBy, placed }));
  }
  tx.hosts.setBudget(h.budget, b);
  // The table is the truth: fewer rows than counted means the count was stale.
  h.queued = rows.length > n ? h.queued - n : 0;
  const head = rows[n];
  if (head !== undefined) h.minRank = head.rank;
  tx.hosts.touch(h);
  tx.delta.queued -= taken.length;
  tx.delta.leased += taken.length;
  s.heads?.take(host, n);
}

/** At least `want` of the host's next queued rows that no lease holds, or all there are. */
function headOf(s: Store, host: string, want: number): readonly QueuedRow[] {
  const read = (limit: number): QueuedRow[] => {
    // A held lease's row is still queued in the file: it is read, and passed over.
    const held = s.held?.countOn(host) ?? 0;
    const rows = s.st.headOfHost.all(host, limit + held) as QueuedRow[];
    return held > 0 ? rows.filter((r) => !s.held?.has(r.seq)) : rows;
  };
  return s.heads === null ? read(want) : s.heads.rowsOf(host, want, read);
}

function nextReadyAt(s: Store): number | null {
  const host = s.st.nextHostReady.get() as number | null;
  const other = nextExpiryOrRetry(s);
  const candidates = [host === null || host >= NEVER ? null : host, other].filter(
    (t): t is number => t !== null,
  );
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/** When a lease runs out or a retry comes due: the only news a store with nothing ready can have. */
function nextExpiryOrRetry(s: Store): number | null {
  const times = [
    s.rowLeaseDue === undefined ? (s.st.nextExpiry.get() as number | null) : s.rowLeaseDue,
    s.retryDue === undefined ? (s.st.nextRetry.get() as number | null) : s.retryDue,
    s.held?.nextExpiry() ?? null,
  ];
  const known = times.filter((t): t is number => t !== null);
  return known.length === 0 ? null : Math.min(...known);
}
