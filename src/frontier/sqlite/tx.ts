import type { StoreCounts } from '../store-counts.js';
import type { PendingRecord } from '../types.js';
import type { HeldLease } from './held-leases.js';
import type { HostTable } from './host-table.js';

/** What one call's work in a write transaction works with (group-commit.ts makes it). */
export interface Tx {
  now: number;
  /** Shared by every call in the transaction: read once, written once at its end. */
  hosts: HostTable;
  /** Shared too: the transaction's changes to the counts so far. */
  /** Changes to the crawl's counts made by this transaction, written once at its end. */
  delta: StoreCounts;
  /** This call's own: the lines it hands back to be written. */
  records: PendingRecord[];
}

/** A leased URL as completions, releases and expiry read it. */
export interface LeaseRow {
  seq: number;
  released: number;
  host: string;
  /** Its rank (policy/queue-rank.ts): where it goes back in its host's queue. */
  rank: number;
  /** Set for a lease held in memory (no lease row in the file). */
  held?: HeldLease;
}
