import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { Completion, Lease, PolitenessSettings } from '../../src/frontier/types.js';

let dir: string;
let clock: number;
const open: SqliteFrontier[] = [];

function frontier(settings: Partial<PolitenessSettings> = {}): SqliteFrontier {
  const f = new SqliteFrontier(
    join(dir, 'frontier.db'),
    {
      perHost: 1,
      delayMs: 0,
      delayFactor: 0,
      maxDelayMs: 30_000,
      backoffMs: 1000,
      maxBackoffMs: 60_000,
      retireAfter: 3,
      key: 'host',
      maxPagesPerHost: Number.POSITIVE_INFINITY,
      leaseMs: 60_000,
      ...settings,
    },
    () => clock,
  );
  open.push(f);
  return f;
}

function done(lease: Lease, outlinks: Completion['outlinks'] = []): Completion {
  return {
    url: lease.url,
    host: lease.host,
    outcome: { kind: 'done' },
    report: { fetchMs: 5 },
    outlinks,
    rejected: [],
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-frontier-'));
  clock = 1_000_000;
});

afterEach(async () => {
  for (const f of open.splice(0)) await f.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteFrontier', () => {
  it('deduplicates: a URL is added once however often it is found', async () => {
    const f = frontier();
    const r1 = await f.add([{ url: 'http://a.test/', depth: 0, via: null }]);
    const r2 = await f.add([
      { url: 'http://a.test/', depth: 1, via: 'http://a.test/x' },
      { url: 'http://a.test/b', depth: 1, via: null },
    ]);
    expect(r1.added).toBe(1);
    expect(r2.added).toBe(1);
    expect((await f.stats()).queued).toBe(2);
  });

  it('leases breadth-first by depth across hosts', async () => {
    const f = frontier({ perHost: 10 });
    await f.add([
      { url: 'http://a.test/deep', depth: 3, via: null },
      { url: 'http://b.test/mid', depth: 1, via: null },
      { url: 'http://a.test/top', depth: 0, via: null },
      { url: 'http://b.test/deeper', depth: 2, via: null },
    ]);
    const leases = await f.lease(4, 'test');
    expect(leases.map((l) => l.url)).toEqual([
      'http://a.test/top',
      'http://b.test/mid',
      'http://b.test/deeper',
      'http://a.test/deep',
    ]);
  });

  it('never has more than --per-host in flight to one host', async () => {
    const f = frontier({ perHost: 2 });
    await f.add(
      Array.from({ length: 5 }, (_, i) => ({ url: `http://a.test/${i}`, depth: 0, via: null })).concat([
        { url: 'http://b.test/0', depth: 0, via: null },
      ]),
    );
    const first = await f.lease(10, 'test');
    expect(first.filter((l) => l.host === 'a.test')).toHaveLength(2);
    expect(first.filter((l) => l.host === 'b.test')).toHaveLength(1);
    expect(await f.lease(10, 'test')).toEqual([]);
    const a = first.find((l) => l.host === 'a.test') as Lease;
    await f.complete([done(a)]);
    const next = await f.lease(10, 'test');
    expect(next.map((l) => l.host)).toEqual(['a.test']);
  });

  it('keeps --delay between two requests to a host, and says when the host is ready', async () => {
    const f = frontier({ delayMs: 1000 });
    await f.add([
      { url: 'http://a.test/1', depth: 0, via: null },
      { url: 'http://a.test/2', depth: 0, via: null },
    ]);
    const [first] = await f.lease(5, 'test');
    expect(first?.url).toBe('http://a.test/1');
    clock += 200;
    await f.complete([done(first as Lease)]);
    expect(await f.lease(5, 'test')).toEqual([]);
    expect(f.nextReadyAt()).toBe(clock + 1000);
    clock += 999;
    expect(await f.lease(5, 'test')).toEqual([]);
    clock += 1;
    expect((await f.lease(5, 'test')).map((l) => l.url)).toEqual(['http://a.test/2']);
  });

  it('adds outlinks with the completion, and they become leasable', async () => {
    const f = frontier({ perHost: 4 });
    await f.add([{ url: 'http://a.test/', depth: 0, via: null }]);
    const [root] = await f.lease(1, 'test');
    const result = await f.complete([
      done(root as Lease, [
        { url: 'http://a.test/x', depth: 1, via: 'http://a.test/' },
        { url: 'http://a.test/', depth: 1, via: 'http://a.test/' },
      ]),
    ]);
    expect(result.added).toBe(1);
    const next = await f.lease(5, 'test');
    expect(next.map((l) => [l.url, l.depth, l.via])).toEqual([['http://a.test/x', 1, 'http://a.test/']]);
    expect(await f.stats()).toMatchObject({ done: 1, queued: 0, inFlight: 1 });
  });

  it('survives the process dying: queued and leased URLs are all queued again at start', async () => {
    const f1 = frontier({ perHost: 5 });
    await f1.add(Array.from({ length: 4 }, (_, i) => ({ url: `http://a.test/${i}`, depth: 0, via: null })));
    const leased = await f1.lease(2, 'dead');
    await f1.complete([done(leased[0] as Lease)]);
    // no close(): the "process" is gone with one URL still leased
    const f2 = frontier({ perHost: 5 });
    expect(await f2.stats()).toMatchObject({ done: 1, queued: 3, inFlight: 0 });
    const again = await f2.lease(10, 'alive');
    expect(again.map((l) => l.url).sort()).toEqual(['http://a.test/1', 'http://a.test/2', 'http://a.test/3']);
  });

  it('puts a URL back when its lease expires, and counts the attempt', async () => {
    const f = frontier({ leaseMs: 100 });
    await f.add([{ url: 'http://a.test/', depth: 0, via: null }]);
    const [first] = await f.lease(1, 'slow');
    expect(first?.attempt).toBe(1);
    clock += 50;
    expect(await f.lease(1, 'other')).toEqual([]);
    clock += 100;
    const [again] = await f.lease(1, 'other');
    expect(again?.url).toBe('http://a.test/');
    expect(again?.attempt).toBe(2);
  });

  it('retries: the URL comes back after its wait, while the host serves other URLs', async () => {
    const f = frontier();
    await f.add([
      { url: 'http://a.test/', depth: 0, via: null },
      { url: 'http://a.test/other', depth: 1, via: null },
    ]);
    const [first] = await f.lease(1, 'test');
    await f.complete([
      {
        url: 'http://a.test/',
        host: 'a.test',
        outcome: { kind: 'retry', error: 'timeout', afterMs: 5000 },
        report: { fetchMs: 10 },
        outlinks: [],
        rejected: [],
      },
    ]);
    expect(first?.attempt).toBe(1);
    const [other] = await f.lease(1, 'test');
    expect(other?.url).toBe('http://a.test/other');
    await f.complete([done(other as Lease)]);
    expect(await f.lease(1, 'test')).toEqual([]);
    clock += 5000;
    const [again] = await f.lease(1, 'test');
    expect(again?.url).toBe('http://a.test/');
    expect(again?.attempt).toBe(2);
  });

  it('records a rejection once, and offers it again only if it was never acknowledged', async () => {
    const f1 = frontier();
    const rej = { url: 'http://other.test/', depth: 1, via: 'http://a.test/', reason: 'scope' };
    const r1 = await f1.add([], [rej]);
    expect(r1.newRejected).toEqual([rej]);
    expect((await f1.add([], [rej])).newRejected).toEqual([]);
    // the second add() acknowledged the first batch; a new one stays unacknowledged
    const rej2 = { ...rej, url: 'http://other.test/2' };
    await f1.add([], [rej2]);
    // dies before its next call: rej2 was handed out but never acknowledged
    const f2 = frontier();
    expect((await f2.unloggedRejections()).map((r) => r.url)).toEqual(['http://other.test/2']);
    await f2.close();
    const f3 = frontier();
    expect(await f3.unloggedRejections()).toEqual([]);
    expect((await f3.stats()).rejected).toBe(2);
  });

  it('leases every URL of a large multi-host crawl exactly once', async () => {
    const f = frontier({ perHost: 3 });
    const hosts = 40;
    const perHost = 250;
    const links = [];
    for (let h = 0; h < hosts; h++) {
      for (let i = 0; i < perHost; i++)
        links.push({ url: `http://h${h}.test/${i}`, depth: i % 7, via: null });
    }
    await f.add(links);
    const seen = new Map<string, number>();
    for (let round = 0; round < 10_000; round++) {
      const batch = await f.lease(64, 'test');
      if (batch.length === 0) break;
      for (const l of batch) seen.set(l.url, (seen.get(l.url) ?? 0) + 1);
      await f.complete(batch.map((l) => done(l)));
    }
    expect(seen.size).toBe(hosts * perHost);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(await f.stats()).toMatchObject({ done: hosts * perHost, queued: 0, inFlight: 0 });
  });

  it('keeps depth order within a host when shallower URLs arrive after deeper ones were buffered', async () => {
    const f = frontier({ perHost: 1 });
    await f.add(
      Array.from({ length: 10 }, (_, i) => ({ url: `http://a.test/d3-${i}`, depth: 3, via: null })),
    );
    const [first] = await f.lease(1, 'test');
    await f.complete([done(first as Lease, [{ url: 'http://a.test/d1', depth: 1, via: null }])]);
    const [next] = await f.lease(1, 'test');
    expect(next?.url).toBe('http://a.test/d1');
  });
});
