import type { ExtendedLease, Lease, LeaseId } from '../frontier/types.js';

/** A lease is extended once half of its time is gone. */
const RENEW_AT = 0.5;
/** Shortest wait between two extensions of one lease (a store clock far off ours). */
const MIN_RENEW_MS = 50;

interface Held {
  /** The lease's length as it arrived: its expiry less the moment we received it. */
  lifeMs: number;
  renewAt: number;
}

/**
 * Keeps the crawl loop's leases alive while their fetches run and their outputs are
 * written: each is extended when half its time has passed, all that are due in one
 * extend() call. A fetch longer than the lease time thus keeps its URL, and its
 * completion is not refused as stale. Leases the store no longer held are dropped.
 */
export class LeaseKeeper {
  private readonly held = new Map<LeaseId, Held>();
  private timer: NodeJS.Timeout | null = null;
  private extending = false;

  constructor(
    private readonly extend: (ids: readonly LeaseId[]) => Promise<ExtendedLease[]>,
    /** An extend() that failed: the loop reports it as it would a failed completion. */
    private readonly failed: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease received at `received` (this process's clock). */
  hold(lease: Lease, received: number): void {
    const lifeMs = Math.max(2 * MIN_RENEW_MS, lease.expiresAt - received);
    this.held.set(lease.id, { lifeMs, renewAt: received + lifeMs * RENEW_AT });
    this.schedule();
  }

  /** The leases are completed (or given back): nothing to keep. */
  drop(ids: readonly LeaseId[]): void {
    for (const id of ids) this.held.delete(id);
    if (this.held.size === 0) this.stop();
  }

  get size(): number {
    return this.held.size;
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer !== null || this.extending || this.held.size === 0) return;
    let next = Number.POSITIVE_INFINITY;
    for (const h of this.held.values()) next = Math.min(next, h.renewAt);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.renew();
      },
      Math.max(0, next - this.now()),
    );
  }

  private async renew(): Promise<void> {
    const sent = this.now();
    // Those due soon go along too: one call for many leases.
    const due = [...this.held].filter(([, h]) => h.renewAt - h.lifeMs / 4 <= sent).map(([id]) => id);
    if (due.length === 0) return this.schedule();
    this.extending = true;
    let kept: Set<LeaseId>;
    try {
      kept = new Set((await this.extend(due)).map((l) => l.id));
    } catch (err) {
      // Not tried again: the loop stops on it, as on a failed completion.
      this.extending = false;
      this.failed(err);
      return;
    }
    this.extending = false;
    for (const id of due) {
      const h = this.held.get(id);
      if (h === undefined) continue; // completed meanwhile
      if (kept.has(id)) h.renewAt = sent + Math.max(MIN_RENEW_MS, h.lifeMs * RENEW_AT);
      else this.held.delete(id); // gone to someone else: its completion will be stale
    }
    this.schedule();
  }
}
