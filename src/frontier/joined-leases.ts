import type { CrawlerId, LeaseBatch } from './types.js';

interface Ask {
  n: number;
  resolve: (batch: LeaseBatch) => void;
  reject: (err: unknown) => void;
}

/**
 * Lease calls of one crawler that land in one group commit, answered by one claim. Each
 * claim reads the ready hosts and the counts again, and a crawl loop that does not wait
 * for its answers sends several before the group commits (on the small benchmark web,
 * two to ten in a group). The claim's leases go to the calls in the order they came;
 * each hears the same `ended` and `nextReadyAt`.
 */
export class JoinedLeases {
  private readonly open = new Map<CrawlerId, Ask[]>();

  /**
   * Asks for `n` leases. The first ask of a group starts `claim`, which must call
   * `take()` when its work runs in the group commit: that closes the group (later asks
   * start the next one) and says how many URLs to claim for all of them.
   */
  ask(
    n: number,
    crawler: CrawlerId,
    claim: (take: () => number) => Promise<LeaseBatch>,
  ): Promise<LeaseBatch> {
    const joined = this.open.get(crawler);
    const asks = joined ?? [];
    const answer = new Promise<LeaseBatch>((resolve, reject) => asks.push({ n, resolve, reject }));
    if (joined !== undefined) return answer;
    this.open.set(crawler, asks);
    const close = () => {
      // Only this group's: a failed group's calls may run again after the next one opened.
      if (this.open.get(crawler) === asks) this.open.delete(crawler);
    };
    const take = () => {
      close();
      let total = 0;
      for (const a of asks) total += a.n;
      return total;
    };
    claim(take).then(
      (batch) => share(batch, asks),
      (err: unknown) => {
        close();
        for (const a of asks) a.reject(err);
      },
    );
    return answer;
  }
}

/** The leases in the order the calls came, each call up to what it asked. */
function share(batch: LeaseBatch, asks: readonly Ask[]): void {
  let at = 0;
  for (const a of asks) {
    const leases = batch.leases.slice(at, at + a.n);
    at += leases.length;
    a.resolve({ ...batch, leases });
  }
}
