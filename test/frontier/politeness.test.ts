import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gapAfterFetch } from '../../src/frontier/politeness.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { Completion, FetchReport, Lease, PolitenessSettings } from '../../src/frontier/types.js';

let dir: string;
let clock: number;
const open: SqliteFrontier[] = [];

const BASE: PolitenessSettings = {
  perHost: 1,
  delayMs: 100,
  delayFactor: 2,
  maxDelayMs: 5000,
  backoffMs: 1000,
  maxBackoffMs: 8000,
  retireAfter: 3,
  key: 'host',
  maxPagesPerHost: Number.POSITIVE_INFINITY,
  leaseMs: 600_000,
};

function frontier(settings: Partial<PolitenessSettings> = {}): SqliteFrontier {
  const f = new SqliteFrontier(join(dir, 'frontier.db'), { ...BASE, ...settings }, () => clock);
  open.push(f);
  return f;
}

function completion(lease: Lease, report: FetchReport, failed = false): Completion {
  return {
    url: lease.url,
    host: lease.host,
    outcome: failed ? { kind: 'failed', error: 'refused' } : { kind: 'done' },
    report,
    outlinks: [],
    rejected: [],
  };
}

async function one(f: SqliteFrontier): Promise<Lease | undefined> {
  return (await f.lease(1, 'test'))[0];
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-politeness-'));
  clock = 1_000_000;
});

afterEach(async () => {
  for (const f of open.splice(0)) await f.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const urls = (host: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ url: `http://${host}/${i}`, depth: 0, via: null }));

describe('the gap before the next request to a host', () => {
  it('is min(max delay, max(delay, factor x response time, Crawl-delay))', () => {
    expect(gapAfterFetch(BASE, 10)).toBe(100);
    expect(gapAfterFetch(BASE, 300)).toBe(600);
    expect(gapAfterFetch(BASE, 10, 2000)).toBe(2000);
    expect(gapAfterFetch(BASE, 10, 60_000)).toBe(5000);
    expect(gapAfterFetch(BASE, 10_000)).toBe(5000);
  });

  it('grows when a host answers slowly', async () => {
    const f = frontier();
    await f.add(urls('a.test', 2));
    const first = (await one(f)) as Lease;
    clock += 400;
    f.release(first, { fetchMs: 400 });
    clock += 799;
    expect(await one(f)).toBeUndefined();
    clock += 1;
    expect((await one(f))?.url).toBe('http://a.test/1');
  });

  it('honours Retry-After by holding the host', async () => {
    const f = frontier();
    await f.add(urls('a.test', 2));
    const first = (await one(f)) as Lease;
    f.release(first, { fetchMs: 5, retryAfterMs: 30_000 });
    clock += 29_999;
    expect(await one(f)).toBeUndefined();
    clock += 1;
    expect(await one(f)).toBeDefined();
  });
});

describe('a host that fails to connect', () => {
  it('backs off exponentially, then is retired with its queued URLs recorded as failed', async () => {
    const f = frontier({ delayMs: 0, delayFactor: 0 });
    await f.add(urls('dead.test', 6));
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const lease = (await one(f)) as Lease;
      const result = await f.complete([completion(lease, { fetchMs: 1, connectFailed: true }, true)]);
      const next = f.nextReadyAt();
      if (next !== null) waits.push(next - clock);
      if (i < 2) {
        expect(result.newRejected).toEqual([]);
        clock = next as number;
      } else {
        expect(result.newRejected.map((r) => [r.url, r.reason])).toEqual([
          ['http://dead.test/3', 'host-unreachable'],
          ['http://dead.test/4', 'host-unreachable'],
          ['http://dead.test/5', 'host-unreachable'],
        ]);
      }
    }
    expect(waits.slice(0, 2)).toEqual([1000, 2000]);
    expect(await f.stats()).toMatchObject({ queued: 0, failed: 6 });
    // New links to a retired host are recorded as such, not queued.
    const later = await f.add([{ url: 'http://dead.test/new', depth: 1, via: null }]);
    expect(later.newRejected.map((r) => r.reason)).toEqual(['host-unreachable']);
    expect((await f.stats()).queued).toBe(0);
  });

  it('is forgiven by one successful fetch', async () => {
    const f = frontier({ delayMs: 0, delayFactor: 0 });
    await f.add(urls('flaky.test', 6));
    for (const failed of [true, true, false, true, true]) {
      const lease = (await one(f)) as Lease;
      const result = await f.complete([completion(lease, { fetchMs: 1, connectFailed: failed }, failed)]);
      expect(result.newRejected).toEqual([]);
      clock += 60_000;
    }
    expect((await f.stats()).queued).toBe(1);
  });
});

describe('--politeness-key ip', () => {
  it('makes hosts on one address share one budget', async () => {
    const f = frontier({ key: 'ip', delayMs: 1000, delayFactor: 0 });
    await f.add([...urls('a.test', 2), ...urls('b.test', 2)]);
    const first = await f.lease(5, 'test');
    expect(first.map((l) => l.host).sort()).toEqual(['a.test', 'b.test']);
    // both turn out to live on one address: from now on they take turns
    for (const l of first) f.release(l, { fetchMs: 5, address: '192.0.2.7' });
    await f.complete(first.map((l) => completion(l, { fetchMs: 5 })));
    clock += 1000;
    expect(await f.lease(5, 'test')).toHaveLength(1);
    clock += 1000;
    expect(await f.lease(5, 'test')).toHaveLength(0); // one still in flight, per-host 1
  });
});

describe('--max-pages-per-host', () => {
  it('refuses URLs past the budget with reason host-budget', async () => {
    const f = frontier({ maxPagesPerHost: 3 });
    const result = await f.add([...urls('a.test', 5), ...urls('b.test', 1)]);
    expect(result.added).toBe(4);
    expect(result.newRejected.map((r) => [r.url, r.reason])).toEqual([
      ['http://a.test/3', 'host-budget'],
      ['http://a.test/4', 'host-budget'],
    ]);
  });
});
