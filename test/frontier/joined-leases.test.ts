import { describe, expect, it } from 'vitest';
import { JoinedLeases } from '../../src/frontier/joined-leases.js';
import type { Lease, LeaseBatch } from '../../src/frontier/types.js';

function lease(id: number): Lease {
  return { id, url: `http://a.test/${id}`, depth: 1, expiresAt: 0 } as Lease;
}

/**
 * A store's group commit, by hand: claims wait until run(), which runs them in turn,
 * each handing out the next of `available` URLs.
 */
function groupCommit(available: number) {
  let next = 1;
  const waiting: (() => void)[] = [];
  const claimed: number[] = [];
  return {
    claimed,
    claim: (take: () => number) =>
      new Promise<LeaseBatch>((resolve) => {
        waiting.push(() => {
          const n = take();
          claimed.push(n);
          const leases: Lease[] = [];
          while (leases.length < n && next <= available) leases.push(lease(next++));
          resolve({ leases, ended: null, nextReadyAt: 42 });
        });
      }),
    run: () => {
      for (const work of waiting.splice(0)) work();
    },
  };
}

const ids = (b: LeaseBatch) => b.leases.map((l) => l.id);

describe('JoinedLeases', () => {
  it('answers the calls of one crawler in one group with one claim, in the order they came', async () => {
    const joined = new JoinedLeases();
    const store = groupCommit(100);
    const calls = [2, 3, 1].map((n) => joined.ask(n, 7, store.claim));
    store.run();
    const batches = await Promise.all(calls);
    expect(store.claimed).toEqual([6]);
    expect(batches.map(ids)).toEqual([[1, 2], [3, 4, 5], [6]]);
    expect(batches.map((b) => b.nextReadyAt)).toEqual([42, 42, 42]);
  });

  it('gives what there is to the first calls, and each hears when the next host is ready', async () => {
    const joined = new JoinedLeases();
    const store = groupCommit(3);
    const calls = [2, 2, 2].map((n) => joined.ask(n, 7, store.claim));
    store.run();
    expect((await Promise.all(calls)).map(ids)).toEqual([[1, 2], [3], []]);
  });

  it('keeps crawlers apart, and starts a new group once the claim has run', async () => {
    const joined = new JoinedLeases();
    const store = groupCommit(100);
    const a = joined.ask(1, 1, store.claim);
    const b = joined.ask(1, 2, store.claim);
    store.run();
    const c = joined.ask(1, 1, store.claim);
    store.run();
    expect([ids(await a), ids(await b), ids(await c)]).toEqual([[1], [2], [3]]);
    expect(store.claimed).toEqual([1, 1, 1]);
  });

  it('fails every call of a group whose claim failed, and the next group is a new one', async () => {
    const joined = new JoinedLeases();
    const failing = () => Promise.reject(new Error('disk full'));
    const calls = [joined.ask(1, 7, failing), joined.ask(2, 7, failing)];
    for (const call of calls) await expect(call).rejects.toThrow('disk full');
    const store = groupCommit(100);
    const next = joined.ask(1, 7, store.claim);
    store.run();
    expect(ids(await next)).toEqual([1]);
  });
});
