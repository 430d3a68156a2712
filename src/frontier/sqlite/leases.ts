import { leaseExpiry } from '../policy/lease-expiry.js';
import type { Completion, ExtendedLease, LeaseId } from '../types.js';
import type { HeldLease } from './held-leases.js';
import { adopt, earlierHoldersLease, heldRow } from './held-mode.js';
import { GENERATIONS, splitLeaseId } from './lease-ids.js';
import type { Store } from './store.js';
import type { LeaseRow, Tx } from './tx.js';

/** The URL row a lease id names, if that lease still holds it (not expired and handed on). */
export function leaseOf(s: Store, id: LeaseId, tx?: Tx): LeaseRow | undefined {
  const { seq, gen } = splitLeaseId(id);
  if (s.held !== null) {
    const held = s.held.get(seq, gen);
    if (held !== undefined) return heldRow(held);
  }
  // A store opened held may still have lease rows of a shared run before it.
  const row = s.st.leaseOf.get(seq) as (LeaseRow & { lease_gen: number }) | undefined;
  if (row !== undefined) return row.lease_gen % GENERATIONS === gen ? row : undefined;
  const earlier = earlierHoldersLease(s, seq, gen);
  return earlier === undefined || tx === undefined ? earlier : adopt(s, earlier, gen, tx);
}

/** The lease is over: its URL is no longer counted leased. */
export function endLease(s: Store, lease: LeaseRow, tx: Tx): void {
  if (lease.held !== undefined) s.held?.take(lease.held);
  tx.delta.leased--;
}

/** extend(): each lease still held runs out a lease time from now. */
export function extendLeases(s: Store, leaseIds: readonly LeaseId[], tx: Tx): ExtendedLease[] {
  const expiresAt = leaseExpiry(tx.now, s.settings);
  return leaseIds
    .filter((id) => {
      const { seq, gen } = splitLeaseId(id);
      const held = s.held === null ? undefined : leaseOf(s, id, tx)?.held;
      if (held === undefined) return s.st.extendLease.run(expiresAt, seq, gen).changes === 1;
      held.expiresAt = expiresAt;
      return true;
    })
    .map((id) => ({ id, expiresAt }));
}

/**
 * extend() of leases this process holds, all of them: their expiry is in memory alone,
 * so no transaction is needed (a server extends every batch it is asked to complete).
 * null when some lease is not held here: the file must be asked.
 */
export function extendHeld(s: Store, leaseIds: readonly LeaseId[]): ExtendedLease[] | null {
  const held = s.held;
  if (held === null) return null;
  const found: HeldLease[] = [];
  for (const id of leaseIds) {
    const { seq, gen } = splitLeaseId(id);
    const lease = held.get(seq, gen);
    if (lease === undefined) return null;
    found.push(lease);
  }
  const expiresAt = leaseExpiry(s.now(), s.settings);
  for (const lease of found) lease.expiresAt = expiresAt;
  return leaseIds.map((id) => ({ id, expiresAt }));
}

/**
 * The completions whose lease still holds, read in one snapshot: outside a transaction
 * each read takes a snapshot of its own, some 8 µs here against 2 within one.
 */
export function stillLeased(s: Store, batch: readonly Completion[]): Completion[] {
  // Leases this process holds are known in memory: the file is read only for others.
  const held = s.held;
  const inMemory = (c: Completion) => {
    const { seq, gen } = splitLeaseId(c.leaseId);
    return held !== null && held.get(seq, gen) !== undefined;
  };
  if (batch.every(inMemory)) return [...batch];
  const read = s.db.transaction(() => batch.filter((c) => leaseOf(s, c.leaseId) !== undefined));
  return read.deferred();
}
