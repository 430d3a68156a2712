import type { Release } from './types.js';

/** Releases taken for one transaction: settle them once it has committed, or failed. */
export interface TakenReleases {
  releases: Release[];
  done(): void;
  failed(err: unknown): void;
}

/**
 * Releases waiting for a store's next transaction: a lease call usually follows soon,
 * and a commit costs more than the few rows a release changes. When the oldest has
 * waited `waitMs` without one, `flush` is called to make a transaction for them alone.
 * Each release() call's promise settles with the transaction that carried it.
 */
export class PendingReleases {
  private waiting: { release: Release; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly flush: () => void,
    private readonly waitMs = 5,
  ) {}

  get size(): number {
    return this.waiting.length;
  }

  add(batch: readonly Release[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      for (const r of batch) this.waiting.push({ release: r, resolve, reject });
      this.timer ??= setTimeout(() => {
        this.timer = null;
        if (this.waiting.length > 0) this.flush();
      }, this.waitMs);
    });
  }

  /** Everything waiting, for the transaction about to run. */
  take(): TakenReleases {
    const taken = this.waiting;
    this.waiting = [];
    // The wait starts again with the next release: a timer left running would commit
    // alone the releases of the next few milliseconds, which the next lease call carries
    // (on the small web, 464 transactions of their own in a 20,000-page crawl).
    this.stop();
    return {
      releases: taken.map((r) => r.release),
      done: () => {
        for (const r of taken) r.resolve();
      },
      failed: (err) => {
        for (const r of taken) r.reject(err);
      },
    };
  }

  /** No more timed flushes (the store is closing). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
