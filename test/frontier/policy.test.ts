import { describe, expect, it } from 'vitest';
import { backoffMs, MAX_RETRY_AFTER_MS } from '../../src/frontier/policy/backoff.js';
import { crawlEnd, pagesLeft } from '../../src/frontier/policy/crawl-budget.js';
import { hostBudgetRefusal } from '../../src/frontier/policy/host-budget.js';
import { isExpired, leaseExpiry } from '../../src/frontier/policy/lease-expiry.js';
import {
  afterFetch,
  afterLease,
  afterLostLease,
  freshBudget,
  gapAfterFetch,
  mergeBudgets,
  NEVER,
  readyAt,
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
    b = afterLease(b, 10_000);
    expect(b.inFlight).toBe(1);
    // a second slot is free, but the next start must wait the gap
    expect(readyAt(b, P)).toBe(11_000);
    b = afterLease(b, 11_000);
    expect(readyAt(b, P)).toBe(NEVER); // both slots busy
  });

  it('after a fetch: the gap it earned from its end, Retry-After holds, a failed connection backs off', () => {
    const start = afterLease(freshBudget(P), 0);
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
    const twice = afterFetch(afterLease(failed, 1000), { fetchMs: 5, connectFailed: true }, P, 1000);
    expect(twice).toMatchObject({ failures: 2, nextAt: 3000 });
    expect(afterFetch(afterLease(twice, 3000), { fetchMs: 5 }, P, 3000).failures).toBe(0);
  });

  it('a visit that made no request frees its slot and earns no gap', () => {
    const b = afterLease({ ...freshBudget(P), gapMs: 1000 }, 0);
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
  });
});
