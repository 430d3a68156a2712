import { afterLostLease } from '../policy/politeness.js';
import { RETIRED_REASON, shouldRetire } from '../policy/retirement.js';
import type { CrawlerId, PendingRecord, RejectedLink } from '../types.js';
import type { HeldLease } from './held-leases.js';
import { heldRow, isDue } from './held-mode.js';
import { endLease } from './leases.js';
import { URL_STATE } from './schema.js';
import type { Store } from './store.js';
import type { LeaseRow, Tx } from './tx.js';

/** A lease ran out (or its crawler is gone): the URL is queued again, one try counted. */
export function reclaimLease(s: Store, seq: number, tx: Tx): void {
  const lease = s.st.leaseOf.get(seq) as LeaseRow | undefined;
  if (lease !== undefined) giveBack(s, lease, tx);
}

/** A held lease ran out (or its crawler is gone): given back as a lease row would be. */
export function reclaimHeld(s: Store, lease: HeldLease, tx: Tx): void {
  giveBack(s, heldRow(lease), tx);
}

/** A lease, with a row or held, ran out or lost its crawler: its slot back, one try counted. */
function giveBack(s: Store, lease: LeaseRow, tx: Tx): void {
  const h = tx.hosts.host(lease.host);
  if (lease.released === 0) tx.hosts.setBudget(h.budget, afterLostLease(tx.hosts.budget(h.budget)));
  endLease(s, lease, tx);
  tx.delta.expiredLeases++;
  // Nobody in particular will write the record of a URL failed here: the next completer adopts it.
  requeue1(s, lease.seq, lease.host, lease.rank, 1, null, tx);
}

/** lease(): retries whose time has come are queued again. */
export function requeueDueRetries(s: Store, tx: Tx): void {
  if (!isDue(s.retryDue, tx.now)) return;
  for (const r of s.st.dueRetries.all(tx.now) as { seq: number; host: string; rank: number }[]) {
    tx.delta.retrying--;
    requeue1(s, r.seq, r.host, r.rank, 0, null, tx);
  }
  if (s.held !== null) s.retryDue = s.st.nextRetry.get() as number | null;
}

/**
 * A URL goes back to the queue (after an expired lease, a retry, a deferral), with
 * `tries` more attempts counted, at its `rank` (policy/queue-rank.ts). A host given up on takes no URL back: it is failed
 * as 'host-unreachable' and its record goes to `holder` (null: to the next completer).
 */
export function requeue1(
  s: Store,
  seq: number,
  host: string,
  rank: number,
  tries: number,
  holder: CrawlerId | null,
  tx: Tx,
): void {
  const h = tx.hosts.host(host);
  if (h.retired) {
    s.st.retire.run(holder, seq);
    tx.delta.failed++;
    if (holder !== null) tx.records.push(recordOf(s, seq));
    return;
  }
  s.st.requeueAfterLease.run(tries, seq);
  s.heads?.forget(host);
  tx.hosts.queue(h, rank);
  tx.delta.queued++;
}

/**
 * A budget that failed to connect --retire-after times in a row is given up on: its
 * hosts' queued and retrying URLs are failed as 'host-unreachable' and handed back
 * to be recorded. URLs in flight finish on their own.
 */
export function retireIfDead(s: Store, host: string, crawler: CrawlerId, tx: Tx): void {
  const h = tx.hosts.host(host);
  if (h.retired || !shouldRetire(tx.hosts.budget(h.budget).failures, s.settings)) return;
  for (const member of tx.hosts.membersOf(h.budget).concat(h.host)) {
    const m = tx.hosts.host(member);
    if (m.retired) continue;
    m.retired = true;
    m.queued = 0;
    s.heads?.forget(member);
    tx.hosts.touch(m);
    const rows = s.st.waitingOfHost.all(member) as (RejectedLink & { seq: number; state: number })[];
    for (const r of rows) {
      // A held lease's row is queued in the file, but leased: its completion settles it.
      if (s.held?.has(r.seq)) continue;
      s.st.retire.run(crawler, r.seq);
      if (r.state === URL_STATE.retrying) tx.delta.retrying--;
      else tx.delta.queued--;
      tx.delta.failed++;
      tx.records.push({ id: r.seq, url: r.url, depth: r.depth, via: r.via, reason: RETIRED_REASON });
    }
  }
}

/** Records nobody was given (URLs failed while reclaiming a lease) go to this completer. */
export function adoptOrphans(s: Store, crawler: CrawlerId, tx: Tx): void {
  for (const seq of s.st.orphans.all() as number[]) {
    s.st.setHolder.run(crawler, seq);
    tx.records.push(recordOf(s, seq));
  }
}

function recordOf(s: Store, seq: number): PendingRecord {
  return s.st.recordById.get(seq) as PendingRecord;
}
