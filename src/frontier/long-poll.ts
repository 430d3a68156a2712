import type { LeaseBatch } from './types.js';

/** Callers waiting for the store to change (a URL added, a host freed): woken all at once. */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  notify(): void {
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const wake of woken) wake();
  }

  /** Resolves after `ms`, or sooner when notify() is called. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.add(wake);
    });
  }
}

/**
 * lease()'s long poll, for any store: try, and while nothing is ready and the crawl is
 * not over, wait for the next host's turn, a change made in this process, or at most
 * `sliceMs` (changes made by other processes are not notified), until `waitMs` is spent.
 */
export async function longPoll(
  attempt: () => Promise<LeaseBatch>,
  waitMs: number,
  waiters: Waiters,
  clock: () => number,
  sliceMs: number,
): Promise<LeaseBatch> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const batch = await attempt();
    const left = deadline - Date.now();
    if (batch.leases.length > 0 || batch.ended !== null || left <= 0) return batch;
    const untilReady = batch.nextReadyAt === null ? left : batch.nextReadyAt - clock();
    await waiters.wait(Math.max(1, Math.min(left, untilReady, sliceMs)));
  }
}
