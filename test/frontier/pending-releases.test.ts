import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PendingReleases } from '../../src/frontier/pending-releases.js';
import type { Release } from '../../src/frontier/types.js';

function release(id: number): Release {
  return { leaseId: id, report: { fetchMs: 1 } };
}

describe('PendingReleases', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('flushes releases that no transaction took within the wait', () => {
    const flushes: number[][] = [];
    const pending = new PendingReleases(() => {
      flushes.push(pending.take().releases.map((r) => r.leaseId));
    }, 5);
    void pending.add([release(1), release(2)]);
    vi.advanceTimersByTime(4);
    expect(flushes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(flushes).toEqual([[1, 2]]);
  });

  it('counts the wait from the oldest release left after a transaction took the others', () => {
    const flushes: number[][] = [];
    const pending = new PendingReleases(() => {
      flushes.push(pending.take().releases.map((r) => r.leaseId));
    }, 5);
    void pending.add([release(1)]);
    vi.advanceTimersByTime(3);
    // A lease call's transaction carries release 1.
    const taken = pending.take();
    taken.done();
    expect(taken.releases.map((r) => r.leaseId)).toEqual([1]);
    vi.advanceTimersByTime(1);
    void pending.add([release(2)]);
    // Five milliseconds after release 1 came, release 2 has waited one: not flushed yet.
    vi.advanceTimersByTime(1);
    expect(flushes).toEqual([]);
    vi.advanceTimersByTime(4);
    expect(flushes).toEqual([[2]]);
  });

  it('settles each add() with the transaction that carried it', async () => {
    const pending = new PendingReleases(() => {}, 5);
    const first = pending.add([release(1)]);
    const taken = pending.take();
    const second = pending.add([release(2)]);
    taken.done();
    await expect(first).resolves.toBeUndefined();
    const failure = new Error('disk full');
    pending.take().failed(failure);
    await expect(second).rejects.toBe(failure);
  });
});
