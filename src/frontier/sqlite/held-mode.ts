import { hostBudget } from '../host-row.js';
import { leaseExpiry } from '../policy/lease-expiry.js';
import type { HeldLease } from './held-leases.js';
import { URL_STATE } from './schema.js';
import type { StoredRow } from './statements.js';
import type { Store } from './store.js';
import type { LeaseRow, Tx } from './tx.js';

// What a store held by one process (a held seen set) does of its own, besides keeping
// its leases in memory (held-leases.ts) and reading hosts' queues ahead (queue-heads.ts):
// it says so in the file, takes over the leases of an earlier holder that died, and
// knows when the file's lease rows and retries come due without asking the file.

/** The queue's counts from its rows: each host's queued URLs and first rank, the totals. */
const RECOUNT_QUEUE = `
  UPDATE hosts SET
    queued = (SELECT count(*) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}),
    min_rank = coalesce(
      (SELECT min(rank) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}), min_rank);
  UPDATE totals SET
    queued = (SELECT count(*) FROM urls WHERE state = ${URL_STATE.queued}),
    leased = (SELECT count(*) FROM urls WHERE state = ${URL_STATE.leased});
`;

/**
 * At open, in its own transaction: a process that holds the store keeps its leases in
 * memory (held-leases.ts) and says so in the file until it closes with none. If it
 * crashed, the file's counts still count its leases as leased and their hosts' slots as
 * taken, with no lease rows to give them back when they expire: the next process to
 * open the store (nobody else can have it then) counts them from the rows again, and
 * nothing is in flight. Answers the holder's incarnation (0: not held).
 */
export function markLeaseMode(s: Store, held: boolean, tx: Tx): number {
  if (s.st.getMeta.get('held_leases') !== undefined) {
    s.db.exec(RECOUNT_QUEUE);
    for (const key of s.st.busyBudgets.all() as string[]) {
      // A host's budget: its row is read so that flush() writes its ready time again.
      if (key === hostBudget(key)) tx.hosts.host(key);
      tx.hosts.setBudget(key, { ...tx.hosts.budget(key), inFlight: 0 });
    }
  }
  if (!held) {
    s.st.deleteMeta.run('held_leases');
    return 0;
  }
  s.st.putMeta.run('held_leases', '1');
  const n = Number(s.st.getMeta.get('lease_incarnation') ?? 0) + 1;
  s.st.putMeta.run('lease_incarnation', String(n));
  return n;
}

/** A held store's due times, from the file (at the start, and after a rollback). */
export function readDueTimes(s: Store): void {
  if (s.held === null) return;
  s.rowLeaseDue = s.st.nextExpiry.get() as number | null;
  s.retryDue = s.st.nextRetry.get() as number | null;
}

/** Whether something of the file's may be due by `at`: yes when the time is not known (undefined). */
export function isDue(due: number | null | undefined, at: number): boolean {
  return due === undefined || (due !== null && due <= at);
}

/** A held lease as the code that handles lease rows sees it. */
export function heldRow(held: HeldLease): LeaseRow {
  return { seq: held.seq, released: held.released ? 1 : 0, host: held.host, rank: held.rank, held };
}

/**
 * A lease handed out by a holder of the store that has since died (a server killed and
 * started again, its bunnies finishing what they had): its row is queued again and,
 * unless this holder has leased it since, the fetch is taken as if the lease had lived.
 * Its host's slot was freed when the store was opened (released).
 */
export function earlierHoldersLease(s: Store, seq: number, gen: number): LeaseRow | undefined {
  if (s.held === null || !s.held.fromEarlierHolder(gen) || s.held.has(seq)) return undefined;
  const row = s.st.storedRow.get(seq) as StoredRow | undefined;
  if (row?.state !== URL_STATE.queued) return undefined;
  return { seq, released: 1, host: row.host, rank: row.rank };
}

/**
 * An earlier holder's lease becomes this holder's, as if it had leased the row now:
 * counted leased, and passed over by lease calls. Its crawler is not known (0).
 */
export function adopt(s: Store, earlier: LeaseRow, gen: number, tx: Tx): LeaseRow {
  const held: HeldLease = {
    seq: earlier.seq,
    gen,
    host: earlier.host,
    rank: earlier.rank,
    crawler: 0,
    expiresAt: leaseExpiry(tx.now, s.settings),
    released: true,
  };
  s.held?.hold(held);
  s.heads?.forget(earlier.host);
  tx.delta.queued--;
  tx.delta.leased++;
  const h = tx.hosts.host(earlier.host);
  // Its host's first rank may be this URL's: the next lease call reads it again.
  h.queued = Math.max(0, h.queued - 1);
  tx.hosts.touch(h);
  return heldRow(held);
}
