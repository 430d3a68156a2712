import { describe, expect, it } from 'vitest';
import { backoffMs, MAX_RETRY_AFTER_MS } from '../../src/frontier/policy/backoff.js';
import { crawlEnd, pagesLeft } from '../../src/frontier/policy/crawl-budget.js';
import { hostBudgetRefusal } from '../../src/frontier/policy/host-budget.js';
import { expiredThrough, isExpired, leaseExpiry } from '../../src/frontier/policy/lease-expiry.js';
import {
  afterFetch,
  afterLease,
  afterLostLease,
  freshBudget,
  gapAfterFetch,
  leasesThisTurn,
  mergeBudgets,
  NEVER,
  readyAt,
  startDeadline,
  startWindowMs,
} from '../../src/frontier/policy/politeness.js';
import { shouldRetire } from '../../src/frontier/policy/retirement.js';

const P = { perHost: 2, delayMs: 100, delayFactor: 2, maxDelayMs: 5000, backoffMs: 1000, maxBackoffMs: 8000 };

describe('politeness', () => {
  it('gap = min(max delay, max(delay, factor x response time, Crawl-delay))', () => {
    expect(gapAfterFetch(P, 10)).toBe(100);
    expect(gapAfterFetch(P, 300)).toBe(600);
    expect(gapAfterFetch(P, 10, 2000)).toBe(2000);
    expect(gapAfterFetch(P, 10, 60_000)).toBe(5000);
    expect(gapAfterFetch(P, 10_000)).toBe(5000);
  });

  it('keeps the gap between request starts, whatever --per-host allows', () => {
    let b = { ...freshBudget(P), gapMs: 1000 };
    // a lease at 10 s may start its request until 10.25 s (a quarter of the gap) ...
    expect(startDeadline(b, P, 10_000)).toBe(10_250);
    b = afterLease(b, P, 10_000);
    expect(b.inFlight).toBe(1);
    // ... so the next lease waits the gap from there, though a second slot is free
    expect(readyAt(b, P)).toBe(11_250);
    b = afterLease(b, P, 11_250);
    expect(readyAt(b, P)).toBe(NEVER); // both slots busy
  });

  it("a store's start window floor widens the window and the lease spacing, never narrows the gap", () => {
    const floored = { ...P, startWindowFloorMs: 20 };
    const b = { ...freshBudget(P), gapMs: 40 };
    // a quarter of 40 ms is 10 ms; this store cannot get a lease to its crawler that fast
    expect(startWindowMs(b, P)).toBe(10);
    expect(startWindowMs(b, floored)).toBe(20);
    expect(startDeadline(b, floored, 10_000)).toBe(10_020);
    // the next lease waits the whole gap after the latest start: starts stay 40 ms apart
    expect(readyAt(afterLease(b, floored, 10_000), floored)).toBe(10_060);
    // a gap wide enough keeps its quarter
    expect(startWindowMs({ ...b, gapMs: 1000 }, floored)).toBe(250);
    expect(startWindowMs({ ...b, gapMs: 0 }, floored)).toBeUndefined();
  });

  it('hands out one request start per turn with a gap, else what --per-host leaves', () => {
    const gap = { ...freshBudget(P), gapMs: 1000 };
    expect(leasesThisTurn(gap, P, 5)).toBe(1);
    const none = { ...freshBudget(P), gapMs: 0 };
    expect(leasesThisTurn(none, P, 5)).toBe(2);
    expect(leasesThisTurn({ ...none, inFlight: 1 }, P, 5)).toBe(1);
    expect(leasesThisTurn({ ...none, inFlight: 2 }, P, 5)).toBe(0);
    expect(leasesThisTurn(none, P, 1)).toBe(1);
    // no gap, no start window: a request may start any time
    expect(startDeadline(none, P, 10_000)).toBeUndefined();
  });

  it('an unplaced host (--politeness-key ip) gets one placement lease at a time, which starts no request', () => {
    const b = { ...freshBudget(P), gapMs: 1000 };
    expect(leasesThisTurn(b, P, 5, false)).toBe(1);
    expect(startDeadline(b, P, 10_000, false)).toBeUndefined();
    const out = afterLease(b, P, 10_000, false);
    expect(out).toEqual({ ...b, inFlight: 1 });
    expect(readyAt(out, P, false)).toBe(NEVER);
    expect(leasesThisTurn(out, P, 5, false)).toBe(0);
  });

  it('after a fetch: the gap it earned from its end, Retry-After holds, a failed connection backs off', () => {
    const start = afterLease(freshBudget(P), P, 0);
    expect(afterFetch(start, { fetchMs: 400 }, P, 500)).toMatchObject({
      inFlight: 0,
      nextAt: 1300,
      gapMs: 800,
    });
    expect(afterFetch(start, { fetchMs: 5, retryAfterMs: 30_000 }, P, 5).nextAt).toBe(30_005);
    expect(afterFetch(start, { fetchMs: 5, retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, P, 0).nextAt).toBe(
      MAX_RETRY_AFTER_MS,
    );
    const failed = afterFetch(start, { fetchMs: 5, connectFailed: true }, P, 0);
    expect(failed).toMatchObject({ failures: 1, nextAt: 1000 });
    const twice = afterFetch(afterLease(failed, P, 1000), { fetchMs: 5, connectFailed: true }, P, 1000);
    expect(twice).toMatchObject({ failures: 2, nextAt: 3000 });
    expect(afterFetch(afterLease(twice, P, 3000), { fetchMs: 5 }, P, 3000).failures).toBe(0);
  });

  it('a visit that made no request frees its slot and earns no gap', () => {
    const b = afterLease({ ...freshBudget(P), gapMs: 1000 }, P, 0);
    expect(afterFetch(b, { fetchMs: 0, noRequest: true }, P, 50)).toEqual(afterLostLease(b));
  });

  it('budgets merged for one address keep the stricter of each', () => {
    const a = { inFlight: 1, nextAt: 500, gapMs: 100, failures: 0 };
    const b = { inFlight: 1, nextAt: 900, gapMs: 50, failures: 2 };
    expect(mergeBudgets(a, b)).toEqual({ inFlight: 2, nextAt: 900, gapMs: 100, failures: 2 });
  });
});

describe('back-off, retirement, budgets, lease expiry', () => {
  it('one back-off formula: base x 2^(n-1), capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(1000, n, 8000))).toEqual([1000, 2000, 4000, 8000, 8000]);
  });

  it('retires a host after --retire-after failed connections in a row', () => {
    expect(shouldRetire(2, { retireAfter: 3 })).toBe(false);
    expect(shouldRetire(3, { retireAfter: 3 })).toBe(true);
  });

  it('refuses URLs of a host past --max-pages-per-host', () => {
    expect(hostBudgetRefusal(2, { maxPagesPerHost: 3 })).toBeNull();
    expect(hostBudgetRefusal(3, { maxPagesPerHost: 3 })).toBe('host-budget');
  });

  it('the page budget counts final outcomes and leases, across crawlers', () => {
    expect(pagesLeft(10, { queued: 50, leased: 3, retrying: 0, final: 4 })).toBe(3);
    expect(pagesLeft(10, { queued: 50, leased: 3, retrying: 0, final: 9 })).toBe(0);
  });

  it('the crawl is over when nothing is queued, leased or retrying, or the budget is spent', () => {
    const inf = Number.POSITIVE_INFINITY;
    expect(crawlEnd(inf, { queued: 0, leased: 0, retrying: 0, final: 5 })).toBe('finished');
    expect(crawlEnd(inf, { queued: 0, leased: 1, retrying: 0, final: 5 })).toBeNull();
    expect(crawlEnd(inf, { queued: 0, leased: 0, retrying: 1, final: 5 })).toBeNull();
    expect(crawlEnd(5, { queued: 9, leased: 0, retrying: 0, final: 5 })).toBe('max-pages');
    // the budget is spent but nothing is left anyway: the crawl finished
    expect(crawlEnd(5, { queued: 0, leased: 0, retrying: 0, final: 5 })).toBe('finished');
    expect(crawlEnd(5, { queued: 9, leased: 1, retrying: 0, final: 4 })).toBeNull();
  });

  it('a lease lasts --lease time', () => {
    const at = leaseExpiry(1000, { leaseMs: 500 });
    expect(at).toBe(1500);
    expect(isExpired(at, 1499)).toBe(false);
    expect(isExpired(at, 1500)).toBe(true);
    // the bound a store's index query uses is the same rule
    expect(at <= expiredThrough(1499)).toBe(false);
    expect(at <= expiredThrough(1500)).toBe(true);
  });
});
