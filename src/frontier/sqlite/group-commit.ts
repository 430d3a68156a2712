import type { Waiters } from '../long-poll.js';
import { PendingReleases, type TakenReleases } from '../pending-releases.js';
import { noCounts } from '../store-counts.js';
import { applyRelease } from './fetch-reports.js';
import { readDueTimes } from './held-mode.js';
import { HostTable } from './host-table.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** A call's work, waiting for the next group commit. */
interface QueuedWrite {
  work: (tx: Tx) => unknown;
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
}

/** No releases: a call run again alone, after its group failed, carries none. */
export const NO_RELEASES: TakenReleases = { releases: [], done: () => {}, failed: () => {} };

/**
 * Every write of the store goes through here. Calls made in one turn of the event loop
 * (a lease, another crawler's completion, releases waiting) share one immediate
 * transaction, made from setImmediate, and each call resolves once it has committed.
 * A commit costs about as much as the pages it writes, and calls that land together
 * dirty many of the same pages (a host's queue, its row, the counts), so a group
 * writes them once. A call that throws rolls back only itself: the group is run
 * again, each call in its own transaction.
 */
export class GroupCommit {
  /**
   * Releases waiting for this process's next transaction: they ride on the next one it
   * makes (a lease call usually follows soon), or on their own after 5 ms.
   */
  readonly releasing = new PendingReleases(() => {
    if (!this.s.closed) this.commitQueued();
  });
  /** Calls waiting for the next group commit (see write()). */
  private queued: QueuedWrite[] = [];
  private groupScheduled: NodeJS.Immediate | null = null;

  constructor(
    private readonly s: Store,
    /** Told when releases have committed: a lease call waiting may find a host ready. */
    private readonly waiters: Waiters,
  ) {}

  /** Runs `work` in the next group commit. */
  write<T>(work: (tx: Tx) => T): Promise<T> {
    if (this.s.closed) return Promise.reject(new Error('the frontier is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ work, resolve: resolve as (result: unknown) => void, reject });
      this.groupScheduled ??= setImmediate(() => this.commitQueued());
    });
  }

  /** Commits every call waiting, and the releases waiting, in one transaction. */
  commitQueued(): void {
    if (this.groupScheduled !== null) clearImmediate(this.groupScheduled);
    this.groupScheduled = null;
    const calls = this.queued;
    this.queued = [];
    if (calls.length === 0 && this.releasing.size === 0) return;
    const releasing = this.releasing.take();
    let results: unknown[];
    try {
      results = this.transact(
        releasing,
        calls.map((c) => c.work),
      );
    } catch (err) {
      if (calls.length <= 1) {
        releasing.failed(err);
        calls[0]?.reject(err);
        return;
      }
      // One call's failure is its own: each call again, alone (the releases ride on the first).
      calls.forEach((c, i) => {
        const own = i === 0 ? releasing : NO_RELEASES;
        try {
          c.resolve((this.transact(own, [c.work]) as unknown[])[0]);
          own.done();
        } catch (e) {
          own.failed(e);
          c.reject(e);
        }
      });
      return;
    }
    releasing.done();
    if (releasing.releases.length > 0) this.waiters.notify();
    for (const [i, c] of calls.entries()) c.resolve(results[i]);
  }

  /** One immediate transaction (other processes wait): the releases, then each call's work in turn. */
  transact(releasing: TakenReleases, works: readonly ((tx: Tx) => unknown)[]): unknown[] {
    const s = this.s;
    const run = s.db.transaction(() => {
      const shared = {
        now: s.now(),
        hosts: s.keptHosts ?? new HostTable(s.hostSt, s.settings, s.settings.key === 'ip'),
        delta: noCounts(),
      };
      const releaseTx: Tx = { ...shared, records: [] };
      for (const release of releasing.releases) applyRelease(s, release, releaseTx);
      const results = works.map((work) => work({ ...shared, records: [] }));
      shared.hosts.flush();
      const d = shared.delta;
      if (Object.values(d).some((v) => v !== 0)) {
        s.st.addTotals.run(
          d.queued,
          d.leased,
          d.retrying,
          d.done,
          d.failed,
          d.rejected,
          d.staleCompletions,
          d.expiredLeases,
        );
      }
      return results;
    });
    try {
      const results = run.immediate();
      s.wal.wrote();
      s.keptHosts?.trim();
      return results;
    } catch (err) {
      // What the caches remembered may not have been committed.
      s.recountAtNextOpen = true;
      s.keptHosts?.forget();
      s.recent.clear();
      s.heads?.clear();
      readDueTimes(s);
      throw err;
    }
  }
}
