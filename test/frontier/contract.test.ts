import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  Completion,
  CrawlerId,
  FrontierCookies,
  FrontierHosts,
  FrontierSettings,
  Lease,
  LocalFrontier,
  NewLink,
  Outcome,
} from '../../src/frontier/types.js';
import { bundledChild } from '../helpers/bundled-child.js';
import { type AnyFrontier, STORE_KINDS, TEST_SETTINGS, type TestStore } from './stores.js';

/**
 * The Frontier contract, once for every store. Nothing here knows which store it runs
 * on: it opens them by spec, in this process and in child processes.
 */

const FIXTURE = join(import.meta.dirname, 'fixtures', 'crawler-process.ts');

const urls = (host: string, n: number, depth = 0): NewLink[] =>
  Array.from({ length: n }, (_, i) => ({ url: `http://${host}/${i}`, depth, via: null }));

function completion(
  lease: Lease,
  outcome: Outcome = { kind: 'done' },
  extra: Partial<Completion> = {},
): Completion {
  return { leaseId: lease.id, outcome, report: { fetchMs: 5 }, outlinks: [], rejected: [], ...extra };
}

describe.each(STORE_KINDS)('the frontier contract on $name', (kind) => {
  let current: TestStore | null = null;
  let clock = 1_000_000;
  const opened: AnyFrontier[] = [];
  const children: ChildProcess[] = [];
  let skip: string | null = null;
  let warned = false;

  beforeEach(async (ctx) => {
    skip = await kind.unavailable();
    if (skip !== null) {
      // One loud line per store, not one per test.
      if (!warned) console.warn(`SKIPPED: the ${kind.name} store contract suite: ${skip}`);
      warned = true;
      ctx.skip();
    }
    current = await kind.create();
    clock = 1_000_000;
  });

  afterAll(async () => {
    await kind.teardown?.();
  });

  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const f of opened.splice(0)) await f.close().catch(() => {});
    await current?.dispose();
    current = null;
  });

  async function store(settings: Partial<FrontierSettings> = {}, realTime = false): Promise<AnyFrontier> {
    const f = await (current as TestStore).open(settings, realTime ? undefined : () => clock);
    opened.push(f);
    return f;
  }

  /** The owner's calls, on a store that has them; the test is skipped on one that does not. */
  function admin(f: AnyFrontier, ctx: { skip: () => void }): LocalFrontier {
    if (f.findStored === undefined || f.requeue === undefined || f.sites === undefined) ctx.skip();
    return f as LocalFrontier;
  }

  /** The owner's calls (requeueDue) on the store behind `f`: a server's own, for a remote store. */
  function ownerOf(f: AnyFrontier, ctx: { skip: () => void }): LocalFrontier {
    return (current as TestStore).owner?.() ?? admin(f, ctx);
  }

  /** The store's cookie jar; the test is skipped on a store that keeps none. */
  function jarOf(f: AnyFrontier, ctx: { skip: () => void }): FrontierCookies {
    const jar = f as AnyFrontier & Partial<FrontierCookies>;
    if (jar.cookies === undefined || jar.saveCookies === undefined) ctx.skip();
    return jar as FrontierCookies;
  }

  async function leaseAll(f: AnyFrontier, crawler: CrawlerId, n = 100): Promise<Lease[]> {
    return (await f.lease(n, crawler)).leases;
  }

  describe('queue and seen set', () => {
    it('adds a URL once however often it is found', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      expect((await f.add([{ url: 'http://a.test/', depth: 0, via: null }], [], c)).added).toBe(1);
      const again = await f.add(
        [
          { url: 'http://a.test/', depth: 1, via: 'http://a.test/x' },
          { url: 'http://a.test/b', depth: 1, via: null },
          { url: 'http://a.test/b', depth: 1, via: null },
        ],
        [],
        c,
      );
      expect(again.added).toBe(1);
      expect((await f.stats()).queued).toBe(2);
    });

    it('knows the URLs another handle added, in adds and in completions alike', async (ctx) => {
      if (kind.oneProcess !== undefined) return ctx.skip();
      const first = await store();
      const a = await first.registerCrawler('a');
      await first.add(
        [
          { url: 'http://a.test/', depth: 0, via: null },
          { url: 'http://a.test/known', depth: 1, via: 'http://a.test/' },
        ],
        [{ url: 'http://b.test/', depth: 1, via: 'http://a.test/', reason: 'scope' }],
        a,
      );
      // A second handle remembers nothing of what the first one sent: the store alone knows.
      const second = await store();
      const b = await second.registerCrawler('b');
      const again = await second.add(
        [
          { url: 'http://a.test/known', depth: 1, via: null },
          { url: 'http://a.test/new', depth: 1, via: null },
        ],
        [{ url: 'http://b.test/', depth: 1, via: null, reason: 'scope' }],
        b,
      );
      expect(again).toEqual({ added: 1, records: [] });
      const [home] = (await second.lease(10, b)).leases.filter((l) => l.url === 'http://a.test/');
      const done = await second.complete(
        [
          completion(
            home as Lease,
            { kind: 'done' },
            {
              outlinks: [
                { url: 'http://a.test/new', depth: 1, via: 'http://a.test/' },
                { url: 'http://a.test/known', depth: 1, via: 'http://a.test/' },
                { url: 'http://a.test/third', depth: 1, via: 'http://a.test/' },
              ],
            },
          ),
        ],
        b,
      );
      expect(done.added).toBe(1);
      expect(await second.stats()).toMatchObject({ queued: 3, leased: 0, done: 1, rejected: 1 });
    });

    it('says which hosts are busy, for the console, when it can', async (ctx) => {
      const f = await store({ perHost: 1, delayMs: 1000 });
      const hosts = f as AnyFrontier & Partial<FrontierHosts>;
      if (hosts.hostOverview === undefined) return ctx.skip();
      const c = await f.registerCrawler('a');
      await f.add([...urls('a.test', 3), ...urls('b.test', 1)], [], c);
      const [lease] = await leaseAll(f, c, 1);
      const seen = await hosts.hostOverview(10);
      expect({ active: seen.active, waiting: seen.waiting, retired: seen.retired }).toEqual({
        active: 1,
        waiting: 1,
        retired: 0,
      });
      const busy = seen.busiest.find((h) => h.host === lease?.host);
      expect(busy?.inFlight).toBe(1);
      expect(seen.busiest.map((h) => h.host).sort()).toEqual(['a.test', 'b.test']);
    });

    it('gives crawler ids from its own sequence, never the same twice', async () => {
      const f = await store();
      const ids = [await f.registerCrawler('a'), await f.registerCrawler('b'), await f.registerCrawler('a')];
      expect(new Set(ids).size).toBe(3);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    });

    it('leases breadth-first by depth across hosts', async () => {
      const f = await store({ perHost: 10 });
      const c = await f.registerCrawler('a');
      await f.add(
        [
          { url: 'http://a.test/deep', depth: 3, via: null },
          { url: 'http://b.test/mid', depth: 1, via: null },
          { url: 'http://a.test/top', depth: 0, via: null },
          { url: 'http://b.test/deeper', depth: 2, via: null },
        ],
        [],
        c,
      );
      const leases = await leaseAll(f, c, 4);
      expect(leases.map((l) => l.url)).toEqual([
        'http://a.test/top',
        'http://b.test/mid',
        'http://b.test/deeper',
        'http://a.test/deep',
      ]);
    });

    it('keeps depth order within a host when shallower URLs arrive later', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 10, 3), [], c);
      const [first] = await leaseAll(f, c, 1);
      await f.complete(
        [
          completion(
            first as Lease,
            { kind: 'done' },
            { outlinks: [{ url: 'http://a.test/d1', depth: 1, via: null }] },
          ),
        ],
        c,
      );
      expect((await leaseAll(f, c, 1))[0]?.url).toBe('http://a.test/d1');
    });

    it("leases a host's page requisites after all its pages, whatever their depths, and reports their depth", async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add(
        [
          { url: 'http://a.test/p1', depth: 1, via: null },
          ...[2, 3, 4].map((depth) => ({ url: `http://a.test/d${depth}`, depth, via: null })),
        ],
        [],
        c,
      );
      const [page] = await leaseAll(f, c, 1);
      expect(page?.url).toBe('http://a.test/p1');
      const requisite = (path: string): NewLink => ({
        url: `http://a.test/${path}`,
        depth: 2,
        via: 'http://a.test/p1',
        kind: 'requisite',
      });
      await f.complete(
        [
          completion(
            page as Lease,
            { kind: 'done' },
            { outlinks: [requisite('site.css'), requisite('logo.png')] },
          ),
        ],
        c,
      );
      // One at a time, as --per-host 1 allows; a page found on the way still comes first.
      const order: Lease[] = [];
      for (let next = await leaseAll(f, c, 1); next.length > 0; next = await leaseAll(f, c, 1)) {
        const lease = next[0] as Lease;
        order.push(lease);
        const outlinks =
          lease.url === 'http://a.test/d4' ? [{ url: 'http://a.test/d5', depth: 5, via: lease.url }] : [];
        await f.complete([completion(lease, { kind: 'done' }, { outlinks })], c);
      }
      expect(order.map((l) => [l.url, l.depth, l.kind])).toEqual([
        ['http://a.test/d2', 2, 'page'],
        ['http://a.test/d3', 3, 'page'],
        ['http://a.test/d4', 4, 'page'],
        ['http://a.test/d5', 5, 'page'],
        ['http://a.test/site.css', 2, 'requisite'],
        ['http://a.test/logo.png', 2, 'requisite'],
      ]);
    });

    it('puts a requisite given back after a page queued meanwhile', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add([{ url: 'http://a.test/logo.png', depth: 1, via: null, kind: 'requisite' }], [], c);
      const [requisite] = await leaseAll(f, c, 1);
      expect(requisite?.kind).toBe('requisite');
      await f.add([{ url: 'http://a.test/late', depth: 6, via: null }], [], c);
      await f.complete([completion(requisite as Lease, { kind: 'deferred' })], c);
      const [first] = await leaseAll(f, c, 1);
      expect(first?.url).toBe('http://a.test/late');
      await f.complete([completion(first as Lease)], c);
      expect((await leaseAll(f, c, 1)).map((l) => [l.url, l.depth])).toEqual([['http://a.test/logo.png', 1]]);
    });

    it('prefers a host with a deep page to a host with only requisites left', async () => {
      const f = await store({ perHost: 10 });
      const c = await f.registerCrawler('a');
      await f.add(
        [
          { url: 'http://a.test/site.css', depth: 1, via: null, kind: 'requisite' },
          { url: 'http://a.test/logo.png', depth: 1, via: null, kind: 'requisite' },
          { url: 'http://b.test/deep', depth: 7, via: null },
        ],
        [],
        c,
      );
      // Both hosts are ready: the one lease a call may take is the page.
      expect((await leaseAll(f, c, 1)).map((l) => l.url)).toEqual(['http://b.test/deep']);
      expect((await leaseAll(f, c, 10)).map((l) => l.url)).toEqual([
        'http://a.test/site.css',
        'http://a.test/logo.png',
      ]);
    });

    it('hands out a batch pages first, requisites last, across hosts', async () => {
      const f = await store({ perHost: 10 });
      const c = await f.registerCrawler('a');
      await f.add(
        [
          { url: 'http://a.test/site.css', depth: 1, via: null, kind: 'requisite' },
          { url: 'http://a.test/deep', depth: 4, via: null },
          { url: 'http://b.test/font.woff', depth: 0, via: null, kind: 'requisite' },
          { url: 'http://b.test/page', depth: 2, via: null },
        ],
        [],
        c,
      );
      const leases = await leaseAll(f, c, 10);
      expect(leases.slice(0, 2).map((l) => l.url)).toEqual(['http://b.test/page', 'http://a.test/deep']);
      expect(new Set(leases.slice(2).map((l) => l.url))).toEqual(
        new Set(['http://b.test/font.woff', 'http://a.test/site.css']),
      );
    });

    it('adds a completion outlinks, which become leasable', async () => {
      const f = await store({ perHost: 4 });
      const c = await f.registerCrawler('a');
      await f.add([{ url: 'http://a.test/', depth: 0, via: null }], [], c);
      const [root] = await leaseAll(f, c, 1);
      const result = await f.complete(
        [
          completion(
            root as Lease,
            { kind: 'done' },
            {
              outlinks: [
                { url: 'http://a.test/x', depth: 1, via: 'http://a.test/' },
                { url: 'http://a.test/', depth: 1, via: 'http://a.test/' },
              ],
            },
          ),
        ],
        c,
      );
      expect(result).toMatchObject({ added: 1, stale: [] });
      const next = await leaseAll(f, c, 5);
      expect(next.map((l) => [l.url, l.depth, l.via])).toEqual([['http://a.test/x', 1, 'http://a.test/']]);
      expect(await f.stats()).toMatchObject({ done: 1, queued: 0, leased: 1 });
    });

    it('leases every URL of a large multi-host crawl exactly once', async () => {
      const f = await store({ perHost: 3 });
      const c = await f.registerCrawler('a');
      const links: NewLink[] = [];
      for (let h = 0; h < 40; h++)
        links.push(...urls(`h${h}.test`, 100).map((l, i) => ({ ...l, depth: i % 7 })));
      await f.add(links, [], c);
      const count = new Map<string, number>();
      for (let round = 0; round < 10_000; round++) {
        const batch = await f.lease(64, c);
        if (batch.ended !== null) break;
        for (const l of batch.leases) count.set(l.url, (count.get(l.url) ?? 0) + 1);
        await f.complete(
          batch.leases.map((l) => completion(l)),
          c,
        );
      }
      expect(count.size).toBe(4000);
      expect([...count.values()].every((n) => n === 1)).toBe(true);
      expect(await f.stats()).toMatchObject({ done: 4000, queued: 0, leased: 0 });
    });
  });

  describe('records to write', () => {
    it('records a rejection once and hands it out again only if never acknowledged', async (ctx) => {
      const f = await store();
      // A store that writes its records itself hands none out (Frontier.keepsOutputs).
      if (f.keepsOutputs === true) ctx.skip();
      const a = await f.registerCrawler('a');
      const rej = { url: 'http://other.test/', depth: 1, via: 'http://a.test/', reason: 'scope' };
      const first = await f.add([], [rej], a);
      expect(first.records.map((r) => r.url)).toEqual([rej.url]);
      expect((await f.add([], [rej], a)).records).toEqual([]);
      await f.acknowledge(first.records.map((r) => r.id));
      const second = await f.add([], [{ ...rej, url: 'http://other.test/2' }], a);
      expect(second.records).toHaveLength(1);
      // a is gone before writing its second record: another crawler gets it, once
      await f.leave(a);
      const b = await f.registerCrawler('b');
      expect((await f.reclaimRecords(b)).map((r) => [r.url, r.reason])).toEqual([
        ['http://other.test/2', 'scope'],
      ]);
      const c = await f.registerCrawler('c');
      expect(await f.reclaimRecords(c)).toEqual([]);
      expect((await f.stats()).rejected).toBe(2);
    });

    it('does not hand a live crawler records to anyone else', async () => {
      const f = await store();
      const a = await f.registerCrawler('a');
      await f.add([], [{ url: 'http://x.test/', depth: 1, via: null, reason: 'scope' }], a);
      const b = await f.registerCrawler('b');
      expect(await f.reclaimRecords(b)).toEqual([]);
    });

    it('finds refused and failed URLs and queues them again on request', async (ctx) => {
      const f = admin(await store({ perHost: 2 }), ctx);
      const c = await f.registerCrawler('a');
      const added = await f.add(
        [{ url: 'http://a.test/ok', depth: 0, via: null }],
        [
          { url: 'http://a.test/deep', depth: 4, via: null, reason: 'depth' },
          { url: 'http://b.test/', depth: 1, via: null, reason: 'scope' },
        ],
        c,
      );
      await f.acknowledge(added.records.map((r) => r.id));
      const [ok] = await leaseAll(f, c);
      await f.complete([completion(ok as Lease, { kind: 'failed', error: 'timeout' })], c);
      const found = await f.findStored({ refusedFor: ['depth'], failed: true }, 0, 10);
      expect(found.map((s) => [s.url, s.reason])).toEqual([
        ['http://a.test/ok', 'timeout'],
        ['http://a.test/deep', 'depth'],
      ]);
      expect(await f.requeue(found.map((s) => s.id))).toBe(2);
      expect(await f.stats()).toMatchObject({ queued: 2, failed: 0, rejected: 1 });
      const again = await leaseAll(f, c);
      expect(again.map((l) => [l.url, l.attempt]).sort()).toEqual([
        ['http://a.test/deep', 1],
        ['http://a.test/ok', 1],
      ]);
    });
  });

  describe('stored URLs given again as seeds', () => {
    it('are found among the URLs asked for, by outcome, and queued at depth 0 with no referrer', async (ctx) => {
      const f = admin(await store({ perHost: 4 }), ctx);
      const c = await f.registerCrawler('a');
      const added = await f.add(
        [
          { url: 'http://a.test/', depth: 0, via: null },
          { url: 'http://a.test/gone', depth: 1, via: 'http://a.test/' },
        ],
        [{ url: 'http://b.test/', depth: 2, via: 'http://a.test/x', reason: 'scope' }],
        c,
      );
      await f.acknowledge(added.records.map((r) => r.id));
      const leases = await leaseAll(f, c);
      await f.complete(
        leases.map((l) =>
          completion(l, l.url.endsWith('/gone') ? { kind: 'failed', error: 'dns' } : { kind: 'done' }),
        ),
        c,
      );
      const all = { refused: true, failed: true, done: true };
      const among = ['http://a.test/', 'http://b.test/', 'http://a.test/gone', 'http://never.test/'];
      const found = await f.findStored({ ...all, among }, 0, 10);
      expect(found.map((s) => [s.url, s.state, s.reason])).toEqual([
        ['http://a.test/', 'done', null],
        ['http://a.test/gone', 'failed', 'dns'],
        ['http://b.test/', 'refused', 'scope'],
      ]);
      expect(await f.findStored({ ...all, among: ['http://b.test/'] }, 0, 10)).toHaveLength(1);
      const refused = found.filter((s) => s.state === 'refused');
      expect(
        await f.requeue(
          refused.map((s) => s.id),
          { asSeeds: true },
        ),
      ).toBe(1);
      const [seed] = await leaseAll(f, c);
      expect(seed).toMatchObject({ url: 'http://b.test/', depth: 0, via: null });
    });
  });

  describe('leases', () => {
    it('put a URL back when they expire, counting the attempt; the late completion is refused', async () => {
      const f = await store({ leaseMs: 100 });
      const a = await f.registerCrawler('slow');
      const b = await f.registerCrawler('other');
      await f.add([{ url: 'http://a.test/', depth: 0, via: null }], [], a);
      const [first] = await leaseAll(f, a, 1);
      expect(first).toMatchObject({ attempt: 1, expiresAt: clock + 100 });
      clock += 50;
      expect(await leaseAll(f, b, 1)).toEqual([]);
      clock += 100;
      const [again] = await leaseAll(f, b, 1);
      expect(again).toMatchObject({ url: 'http://a.test/', attempt: 2 });
      expect(again?.id).not.toBe(first?.id);
      // a's completion comes too late: refused, counted, and its outlinks are not taken
      const late = await f.complete(
        [
          completion(
            first as Lease,
            { kind: 'done' },
            { outlinks: [{ url: 'http://a.test/late', depth: 1, via: null }] },
          ),
        ],
        a,
      );
      expect(late).toMatchObject({ stale: [first?.id], added: 0 });
      expect(await f.stats()).toMatchObject({
        staleCompletions: 1,
        expiredLeases: 1,
        leased: 1,
        done: 0,
        queued: 0,
      });
      // b's completion stands
      expect((await f.complete([completion(again as Lease)], b)).stale).toEqual([]);
      expect(await f.stats()).toMatchObject({ done: 1, leased: 0 });
    });

    it('are kept alive by extend()', async () => {
      const f = await store({ leaseMs: 100 });
      const a = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], a);
      const [held] = await leaseAll(f, a, 1);
      clock += 80;
      // the store says which it still held, and until when (its clock, its lease time)
      expect(await f.extend([(held as Lease).id, 999_999])).toEqual([
        { id: (held as Lease).id, expiresAt: clock + 100 },
      ]);
      clock += 80;
      const b = await f.registerCrawler('b');
      expect((await f.lease(5, b)).leases.map((l) => l.url)).toEqual([]);
      expect((await f.complete([completion(held as Lease)], a)).stale).toEqual([]);
    });

    it('are all given back at once when their crawler leaves', async () => {
      const f = await store({ perHost: 5 });
      const a = await f.registerCrawler('a');
      await f.add(urls('a.test', 3), [], a);
      expect(await leaseAll(f, a)).toHaveLength(3);
      await f.leave(a);
      const b = await f.registerCrawler('b');
      expect((await leaseAll(f, b)).map((l) => l.attempt)).toEqual([2, 2, 2]);
    });

    it('never lease a URL twice while its lease lives, with many callers at once', async () => {
      const f = await store({ perHost: 2 });
      const seed = await f.registerCrawler('seed');
      const links: NewLink[] = [];
      for (let h = 0; h < 10; h++) links.push(...urls(`h${h}.test`, 30));
      await f.add(links, [], seed);
      const holders = new Map<string, number>();
      let doubles = 0;
      const worker = async (name: string) => {
        const c = await f.registerCrawler(name);
        for (let i = 0; i < 1000; i++) {
          const batch = await f.lease(3, c);
          if (batch.ended !== null) return;
          for (const l of batch.leases) {
            if (holders.has(l.url)) doubles++;
            holders.set(l.url, c);
          }
          await new Promise((r) => setImmediate(r));
          for (const l of batch.leases) holders.delete(l.url);
          await f.complete(
            batch.leases.map((l) => completion(l)),
            c,
          );
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, i) => worker(`w${i}`)));
      expect(doubles).toBe(0);
      expect(await f.stats()).toMatchObject({ done: 300, queued: 0, leased: 0 });
    });
  });

  describe('outcomes', () => {
    it('a retry comes back after its wait, while the host serves other URLs', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add(
        [
          { url: 'http://a.test/', depth: 0, via: null },
          { url: 'http://a.test/other', depth: 1, via: null },
        ],
        [],
        c,
      );
      const [first] = await leaseAll(f, c, 1);
      await f.complete([completion(first as Lease, { kind: 'retry', error: 'timeout', afterMs: 5000 })], c);
      const [other] = await leaseAll(f, c, 1);
      expect(other?.url).toBe('http://a.test/other');
      await f.complete([completion(other as Lease)], c);
      const waiting = await f.lease(1, c);
      expect(waiting).toMatchObject({ leases: [], ended: null, nextReadyAt: clock + 5000 });
      clock += 5000;
      expect((await leaseAll(f, c, 1))[0]).toMatchObject({ url: 'http://a.test/', attempt: 2 });
    });

    it('a deferred URL goes back to the queue with no try spent', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 1), [], c);
      const [first] = await leaseAll(f, c, 1);
      await f.complete([completion(first as Lease, { kind: 'deferred' })], c);
      expect((await leaseAll(f, c, 1))[0]).toMatchObject({ url: 'http://a.test/0', attempt: 1 });
    });

    it('a URL refused by robots.txt is recorded as refused, not as a page', async () => {
      const f = await store({ maxPages: 1 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], c);
      const [first] = await leaseAll(f, c, 1);
      await f.complete([completion(first as Lease, { kind: 'refused', reason: 'robots' })], c);
      expect(await f.stats()).toMatchObject({ rejected: 1, done: 0, budgetLeft: 1 });
      expect(await leaseAll(f, c, 1)).toHaveLength(1);
    });
  });

  describe('the crawl budget and its end', () => {
    it('shares --max-pages across crawlers, counting final outcomes', async () => {
      const f = await store({ maxPages: 5, perHost: 10 });
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      await f.add(urls('a.test', 20), [], a);
      const la = await leaseAll(f, a, 3);
      const lb = await leaseAll(f, b, 10);
      expect([la.length, lb.length]).toEqual([3, 2]);
      // a retried try is not a final outcome: its room comes back
      await f.complete([completion(la[0] as Lease, { kind: 'retry', error: 'reset', afterMs: 0 })], a);
      expect(await leaseAll(f, b, 10)).toHaveLength(1);
      const rest = [...la.slice(1), ...lb];
      await f.complete(
        rest.map((l) => completion(l)),
        a,
      );
      expect((await f.lease(10, a)).ended).toBeNull(); // one still leased
      const last = (await f.stats()).leased;
      expect(last).toBe(1);
    });

    it('says the crawl is over only when nothing is queued, leased or waiting to retry', async () => {
      const f = await store();
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 1), [], c);
      const [only] = await leaseAll(f, c, 1);
      expect((await f.lease(1, c)).ended).toBeNull();
      await f.complete([completion(only as Lease, { kind: 'retry', error: 'timeout', afterMs: 1000 })], c);
      expect((await f.lease(1, c)).ended).toBeNull();
      clock += 1000;
      const [again] = await leaseAll(f, c, 1);
      await f.complete([completion(again as Lease)], c);
      expect((await f.lease(1, c)).ended).toBe('finished');
    });

    it('says max-pages once the budget is spent and nothing is leased', async () => {
      const f = await store({ maxPages: 2 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 5), [], c);
      for (let i = 0; i < 2; i++) {
        const [l] = await leaseAll(f, c, 1);
        await f.complete([completion(l as Lease)], c);
      }
      expect(await f.lease(5, c)).toMatchObject({ leases: [], ended: 'max-pages' });
    });

    it('long-polls: a lease that waits is answered when a URL arrives', async () => {
      const f = await store({}, true);
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      await f.add(urls('a.test', 1), [], a);
      const [held] = (await f.lease(1, a)).leases;
      const waiting = f.lease(1, b, { waitMs: 10_000 });
      const outlink = { url: 'http://b.test/', depth: 1, via: null };
      await new Promise((r) => setTimeout(r, 50));
      await f.complete([completion(held as Lease, { kind: 'done' }, { outlinks: [outlink] })], a);
      expect((await waiting).leases.map((l) => l.url)).toEqual(['http://b.test/']);
    });
  });

  describe('waiting for a host', () => {
    it('long-polls: a lease that waits is answered when a host comes out of its gap', async () => {
      const f = await store({ delayMs: 300 }, true);
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], c);
      const [first] = (await f.lease(1, c)).leases;
      const fetchEnd = Date.now();
      await f.complete([completion(first as Lease)], c);
      // nothing is ready now: the host waits its gap, and nothing else is queued
      expect((await f.lease(1, c)).leases).toEqual([]);
      const answer = await f.lease(1, c, { waitMs: 10_000 });
      expect(answer.leases.map((l) => l.url)).toEqual(['http://a.test/1']);
      // One fetch at a time to a host: its gap runs from the end of the fetch before.
      expect(Date.now()).toBeGreaterThanOrEqual(fetchEnd + 300);
    });

    it("one host's gap leaves the slot to another host", async () => {
      const f = await store({ delayMs: 1000 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 3), [], c);
      const [first] = await leaseAll(f, c, 1);
      await f.complete([completion(first as Lease)], c);
      await f.add(urls('b.test', 1), [], c);
      // a.test waits its gap; the one free slot fetches b.test meanwhile
      expect((await leaseAll(f, c, 1)).map((l) => l.url)).toEqual(['http://b.test/0']);
      expect(await leaseAll(f, c, 1)).toEqual([]);
      // One fetch at a time to a host: its gap runs from the end of the fetch before.
      clock += 999;
      expect(await leaseAll(f, c, 1)).toEqual([]);
      clock += 1;
      expect((await leaseAll(f, c, 1)).map((l) => l.url)).toEqual(['http://a.test/1']);
    });
  });

  describe('sites', () => {
    it('claimSite is true for exactly one of many racing callers', async () => {
      const f = await store();
      const crawlers = await Promise.all(Array.from({ length: 6 }, (_, i) => f.registerCrawler(`c${i}`)));
      const claims = await Promise.all(
        crawlers.flatMap((c) => [f.claimSite('http://a.test', c), f.claimSite('http://a.test', c)]),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('a claim whose crawler left before recording can be claimed again; a recorded site never', async () => {
      const f = await store();
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      expect(await f.claimSite('http://a.test', a)).toBe(true);
      expect(await f.claimSite('http://a.test', b)).toBe(false);
      await f.leave(a);
      // A store whose owner runs the site hooks records the site at the claim.
      expect(await f.claimSite('http://a.test', b)).toBe(f.keepsOutputs !== true);
      await f.recordSite({ origin: 'http://a.test', address: '127.0.0.2', firstSeen: 5, info: { m: 1 } });
      const c = await f.registerCrawler('c');
      expect(await f.claimSite('http://a.test', c)).toBe(false);
    });

    it('lists the sites recorded', async (ctx) => {
      const f = admin(await store(), ctx);
      const a = await f.registerCrawler('a');
      expect(await f.claimSite('http://a.test', a)).toBe(true);
      await f.recordSite({ origin: 'http://a.test', address: '127.0.0.2', firstSeen: 5, info: { m: 1 } });
      expect(await f.sites()).toEqual([
        { origin: 'http://a.test', address: '127.0.0.2', firstSeen: 5, info: { m: 1 } },
      ]);
    });
  });

  describe('decisions about hosts, once per crawl', () => {
    const FILE = { state: 'parsed' as const, status: 200, text: 'User-agent: *\nDisallow: /private\n' };
    const DOWN = {
      state: 'unavailable' as const,
      status: null,
      text: null,
      failure: { error: 'refused' as const, message: 'connection refused', connectFailed: true as const },
    };
    const TIMES = { ttlMs: 86_400_000, unavailableRetryMs: 60_000 };

    it("gives an origin's robots.txt to one crawler to read, and what it read to all", async () => {
      const f = await store({ robots: TIMES });
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      expect(await f.robots('http://a.test', a)).toEqual({ kind: 'read' });
      expect(await f.robots('http://a.test', b)).toEqual({ kind: 'busy' });
      // Another origin, even of the same host name, is a file of its own.
      expect(await f.robots('https://a.test', b)).toEqual({ kind: 'read' });
      const kept = await f.recordRobots('http://a.test', FILE, a);
      expect(kept).toEqual({ entry: FILE, validForMs: TIMES.ttlMs });
      clock += 1000;
      for (const c of [a, b]) {
        expect(await f.robots('http://a.test', c)).toEqual({
          kind: 'known',
          robots: { entry: FILE, validForMs: TIMES.ttlMs - 1000 },
        });
      }
    });

    it('exactly one of many racing callers reads', async () => {
      const f = await store();
      const crawlers = await Promise.all(Array.from({ length: 6 }, (_, i) => f.registerCrawler(`c${i}`)));
      const answers = await Promise.all(
        crawlers.flatMap((c) => [f.robots('http://a.test', c), f.robots('http://a.test', c)]),
      );
      const readers = new Set(
        crawlers.filter((_, i) => [answers[2 * i], answers[2 * i + 1]].some((x) => x?.kind === 'read')),
      );
      expect(readers.size).toBe(1);
      expect(answers.filter((x) => x.kind === 'busy').length).toBeGreaterThanOrEqual(10);
    });

    it('reads the file again once it expires, and keeps the rules read before while it cannot (RFC 9309 2.4)', async () => {
      const f = await store({ robots: TIMES });
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      expect((await f.robots('http://a.test', a)).kind).toBe('read');
      await f.recordRobots('http://a.test', FILE, a);
      clock += TIMES.ttlMs;
      expect(await f.robots('http://a.test', b)).toEqual({ kind: 'read' });
      expect(await f.robots('http://a.test', a)).toEqual({ kind: 'busy' });
      expect(await f.recordRobots('http://a.test', DOWN, b)).toEqual({
        entry: FILE,
        validForMs: TIMES.unavailableRetryMs,
      });
      // A file never read that cannot be read is kept as it is, until it is tried again.
      expect((await f.robots('http://b.test', a)).kind).toBe('read');
      expect(await f.recordRobots('http://b.test', DOWN, a)).toEqual({
        entry: DOWN,
        validForMs: TIMES.unavailableRetryMs,
      });
      clock += TIMES.unavailableRetryMs;
      expect(await f.robots('http://b.test', b)).toEqual({ kind: 'read' });
    });

    it('asks an unreachable robots.txt again after doubling delays, up to the TTL, whoever reads it', async () => {
      const times = { ttlMs: 16 * 60_000, unavailableRetryMs: 60_000 };
      const f = await store({ robots: times });
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      const held: number[] = [];
      for (let i = 0; i < 7; i++) {
        const reader = i % 2 === 0 ? a : b;
        expect(await f.robots('http://a.test', reader)).toEqual({ kind: 'read' });
        const kept = await f.recordRobots('http://a.test', DOWN, reader);
        expect(kept?.entry).toEqual(DOWN);
        const validForMs = kept?.validForMs ?? 0;
        held.push(validForMs);
        // Until then, every crawler gets the failure as it is, no read.
        clock += validForMs - 1;
        expect(await f.robots('http://a.test', a)).toMatchObject({ kind: 'known', robots: { entry: DOWN } });
        clock += 1;
      }
      expect(held).toEqual([1, 2, 4, 8, 16, 16, 16].map((m) => m * 60_000));
      // A file read again ends the back-off; a failure after it keeps its rules, the
      // back-off starting over from when they expired.
      expect(await f.robots('http://a.test', a)).toEqual({ kind: 'read' });
      expect(await f.recordRobots('http://a.test', FILE, a)).toEqual({
        entry: FILE,
        validForMs: times.ttlMs,
      });
      clock += times.ttlMs;
      expect(await f.robots('http://a.test', b)).toEqual({ kind: 'read' });
      expect(await f.recordRobots('http://a.test', DOWN, b)).toEqual({ entry: FILE, validForMs: 60_000 });
      clock += 60_000;
      expect(await f.robots('http://a.test', a)).toEqual({ kind: 'read' });
      expect(await f.recordRobots('http://a.test', DOWN, a)).toEqual({ entry: FILE, validForMs: 120_000 });
    });

    it('a read given back, held past a lease time, or held by a crawler gone, goes to another crawler', async () => {
      const f = await store({ leaseMs: 60_000 });
      const a = await f.registerCrawler('a');
      const b = await f.registerCrawler('b');
      expect((await f.robots('http://a.test', a)).kind).toBe('read');
      expect(await f.recordRobots('http://a.test', null, a)).toBeNull();
      expect((await f.robots('http://a.test', b)).kind).toBe('read');
      expect((await f.robots('http://a.test', a)).kind).toBe('busy');
      clock += 60_000;
      expect((await f.robots('http://a.test', a)).kind).toBe('read');
      // A reader that is gone (left, or killed and found dead) holds nothing.
      await f.leave(a);
      const c = await f.registerCrawler('c');
      expect((await f.robots('http://a.test', c)).kind).toBe('read');
    });

    it("keeps the crawl's seeds (origins, private addresses) any caller gave, for every caller", async (ctx) => {
      const f = await store();
      const none = { origins: [], addresses: [] };
      expect(await f.crawlSeeds(none)).toEqual(none);
      const given = { origins: ['http://a.test', 'http://10.0.0.5:8080'], addresses: ['10.0.0.5'] };
      const sorted = (x: { origins: readonly string[]; addresses: readonly string[] }) => ({
        origins: [...x.origins].sort(),
        addresses: [...x.addresses].sort(),
      });
      expect(sorted(await f.crawlSeeds(given))).toEqual(sorted(given));
      const other = await store();
      const all = { origins: [...given.origins, 'http://b.test'], addresses: ['10.0.0.5', '127.0.0.3'] };
      expect(
        sorted(await other.crawlSeeds({ origins: ['http://b.test'], addresses: ['127.0.0.3'] })),
      ).toEqual(sorted(all));
      if (kind.forgetsOnClose !== undefined) ctx.skip();
      await f.close();
      await other.close();
      const again = await store();
      expect(sorted(await again.crawlSeeds(none))).toEqual(sorted(all));
    });

    it('keeps what was read when the store is opened again', async (ctx) => {
      if (kind.forgetsOnClose !== undefined) ctx.skip();
      const f = await store({ robots: TIMES });
      const a = await f.registerCrawler('a');
      expect((await f.robots('http://a.test', a)).kind).toBe('read');
      await f.recordRobots('http://a.test', FILE, a);
      await f.close();
      const again = await store({ robots: TIMES });
      const b = await again.registerCrawler('b');
      expect(await again.robots('http://a.test', b)).toEqual({
        kind: 'known',
        robots: { entry: FILE, validForMs: TIMES.ttlMs },
      });
    });
  });

  describe('politeness, per host and not per slot', () => {
    it('never has more than --per-host in flight to one host', async () => {
      const f = await store({ perHost: 2 });
      const c = await f.registerCrawler('a');
      await f.add([...urls('a.test', 5), ...urls('b.test', 1)], [], c);
      const first = await leaseAll(f, c, 10);
      expect(first.filter((l) => l.host === 'a.test')).toHaveLength(2);
      expect(first.filter((l) => l.host === 'b.test')).toHaveLength(1);
      expect(await leaseAll(f, c, 10)).toEqual([]);
      await f.complete([completion(first.find((l) => l.host === 'a.test') as Lease)], c);
      expect((await leaseAll(f, c, 10)).map((l) => l.host)).toEqual(['a.test']);
    });

    it('keeps --delay between request starts, whatever --per-host allows', async () => {
      const f = await store({ perHost: 4, delayMs: 1000 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 3), [], c);
      const first = await leaseAll(f, c, 10);
      expect(first).toHaveLength(1);
      // The request may start as late as startBy: the next lease waits the gap from there.
      const startBy = (first[0] as Lease).startBy as number;
      expect(startBy).toBeGreaterThanOrEqual(clock);
      clock = startBy + 999;
      expect(await leaseAll(f, c, 10)).toHaveLength(0);
      clock += 1;
      expect(await leaseAll(f, c, 10)).toHaveLength(1);
    });

    it('keeps a Crawl-delay between request starts with --per-host 4', async () => {
      const f = await store({ perHost: 4, delayMs: 0 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 4), [], c);
      // the first request (robots.txt, in a crawl) teaches the Crawl-delay
      const [first] = await leaseAll(f, c, 1);
      await f.release([{ leaseId: (first as Lease).id, report: { fetchMs: 2, crawlDelayMs: 1000 } }]);
      clock += 2;
      expect(await leaseAll(f, c, 10)).toHaveLength(0);
      clock += 1000;
      const [second] = await leaseAll(f, c, 10);
      expect(second).toBeDefined();
      clock += 10;
      expect(await leaseAll(f, c, 10)).toHaveLength(0);
      // a second slot is free, but the next start waits the gap from this one's deadline
      clock = ((second as Lease).startBy as number) + 999;
      expect(await leaseAll(f, c, 10)).toHaveLength(0);
      clock += 1;
      expect(await leaseAll(f, c, 10)).toHaveLength(1);
    });

    it('waits the gap a slow answer earned, from the end of the fetch', async () => {
      const f = await store({ delayMs: 100, delayFactor: 2 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], c);
      const [first] = await leaseAll(f, c, 1);
      clock += 400;
      await f.release([{ leaseId: (first as Lease).id, report: { fetchMs: 400 } }]);
      clock += 799;
      expect(await leaseAll(f, c, 1)).toEqual([]);
      clock += 1;
      expect((await leaseAll(f, c, 1))[0]?.url).toBe('http://a.test/1');
    });

    it('holds a host for its Retry-After', async () => {
      const f = await store({ delayMs: 100 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], c);
      const [first] = await leaseAll(f, c, 1);
      await f.release([{ leaseId: (first as Lease).id, report: { fetchMs: 5, retryAfterMs: 30_000 } }]);
      clock += 29_999;
      expect(await leaseAll(f, c, 1)).toEqual([]);
      clock += 1;
      expect(await leaseAll(f, c, 1)).toHaveLength(1);
    });

    it('backs off a host that fails to connect, then retires it and records its URLs', async () => {
      const f = await store({ backoffMs: 1000, retireAfter: 3 });
      const c = await f.registerCrawler('a');
      await f.add(urls('dead.test', 6), [], c);
      const waits: number[] = [];
      for (let i = 0; i < 3; i++) {
        const [lease] = await leaseAll(f, c, 1);
        const result = await f.complete(
          [
            completion(
              lease as Lease,
              { kind: 'failed', error: 'refused' },
              {
                report: { fetchMs: 1, connectFailed: true },
              },
            ),
          ],
          c,
        );
        const next = (await f.lease(1, c)).nextReadyAt;
        // A store that writes records itself (keepsOutputs) hands none back: the counts tell.
        const handed = result.records.map((r) => [r.url, r.reason]);
        if (i < 2) {
          expect(handed).toEqual([]);
          waits.push((next as number) - clock);
          clock = next as number;
        } else if (f.keepsOutputs !== true) {
          expect(handed).toEqual([
            ['http://dead.test/3', 'host-unreachable'],
            ['http://dead.test/4', 'host-unreachable'],
            ['http://dead.test/5', 'host-unreachable'],
          ]);
        }
      }
      expect(waits).toEqual([1000, 2000]);
      expect(await f.stats()).toMatchObject({ queued: 0, failed: 6 });
      const later = await f.add([{ url: 'http://dead.test/new', depth: 1, via: null }], [], c);
      if (f.keepsOutputs !== true) expect(later.records.map((r) => r.reason)).toEqual(['host-unreachable']);
      expect(await f.stats()).toMatchObject({ queued: 0, failed: 7 });
    });

    it('refuses URLs past --max-pages-per-host', async () => {
      const f = await store({ maxPagesPerHost: 3 });
      const c = await f.registerCrawler('a');
      const result = await f.add([...urls('a.test', 5), ...urls('b.test', 1)], [], c);
      expect(result.added).toBe(4);
      if (f.keepsOutputs !== true) {
        expect(result.records.map((r) => [r.url, r.reason])).toEqual([
          ['http://a.test/3', 'host-budget'],
          ['http://a.test/4', 'host-budget'],
        ]);
      }
      expect(await f.stats()).toMatchObject({ queued: 4, rejected: 2 });
    });

    it('with --politeness-key ip, hosts on one address share one budget from their first request', async () => {
      const f = await store({ key: 'ip', delayMs: 1000, perHost: 2 });
      const c = await f.registerCrawler('a');
      await f.add([...urls('a.test', 3), ...urls('b.test', 3)], [], c);
      // Neither address is known: one lease per host, to be given back with its address.
      const first = await leaseAll(f, c, 10);
      expect(first.map((l) => [l.host, l.needsAddress]).sort()).toEqual([
        ['a.test', true],
        ['b.test', true],
      ]);
      expect(await leaseAll(f, c, 10)).toEqual([]);
      const placed = { fetchMs: 0, noRequest: true, address: '192.0.2.7' };
      await f.release(first.map((l) => ({ leaseId: l.id, report: placed })));
      await f.complete(
        first.map((l) => completion(l, { kind: 'deferred' }, { report: placed })),
        c,
      );
      // One address, one gap: a single request start, of either host.
      const [one, ...more] = await leaseAll(f, c, 10);
      expect(more).toEqual([]);
      expect(one).toMatchObject({ attempt: 1 });
      expect(one?.needsAddress).toBeUndefined();
      clock = ((one as Lease).startBy as number) + 999;
      expect(await leaseAll(f, c, 10)).toEqual([]);
      clock += 1;
      const [two] = await leaseAll(f, c, 10);
      expect(two).toBeDefined();
      // --per-host 2 is the address's: both slots are taken, by either host
      clock = ((two as Lease).startBy as number) + 1000;
      expect(await leaseAll(f, c, 10)).toEqual([]);
    });

    it('with --politeness-key ip, a host placed on a busy address waits for that address', async () => {
      const f = await store({ key: 'ip', perHost: 1 });
      const c = await f.registerCrawler('a');
      await f.add([...urls('a.test', 2), ...urls('b.test', 2)], [], c);
      const at = (address: string) => ({ fetchMs: 0, noRequest: true, address });
      const [probeA] = (await f.lease(1, c)).leases;
      await f.complete([completion(probeA as Lease, { kind: 'deferred' }, { report: at('192.0.2.7') })], c);
      // a.test's fetch is in flight on the address when b.test is found there too
      const next = await leaseAll(f, c, 10);
      const fetching = next.find((l) => l.host === 'a.test');
      const probeB = next.find((l) => l.host === 'b.test');
      expect(fetching?.needsAddress).toBeUndefined();
      expect(probeB?.needsAddress).toBe(true);
      await f.release([{ leaseId: (probeB as Lease).id, report: at('192.0.2.7') }]);
      await f.complete([completion(probeB as Lease, { kind: 'deferred' }, { report: at('192.0.2.7') })], c);
      expect(await leaseAll(f, c, 10)).toEqual([]);
      await f.complete(
        [completion(fetching as Lease, { kind: 'done' }, { report: { fetchMs: 1, address: '192.0.2.7' } })],
        c,
      );
      expect(await leaseAll(f, c, 10)).toHaveLength(1);
    });

    it('with --politeness-key ip, a host found on another address moves there with exactly its fetches in flight', async () => {
      const f = await store({ key: 'ip', perHost: 2 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 6), [], c);
      const at = (address: string) => ({ fetchMs: 1, address });
      const [probe] = (await f.lease(1, c)).leases;
      await f.complete(
        [
          completion(
            probe as Lease,
            { kind: 'deferred' },
            { report: { ...at('192.0.2.7'), noRequest: true } },
          ),
        ],
        c,
      );
      const both = await leaseAll(f, c, 10);
      expect(both).toHaveLength(2);
      // One batch: the first fetch was answered at the host's address, the second at
      // another one (a name with two addresses). The host moves to the second address
      // with the one fetch still in flight there, which its report then frees.
      await f.complete(
        [
          completion(both[0] as Lease, { kind: 'done' }, { report: at('192.0.2.7') }),
          completion(both[1] as Lease, { kind: 'done' }, { report: at('192.0.2.8') }),
        ],
        c,
      );
      // Nothing is in flight on either address: --per-host 2 leases at once.
      expect(await leaseAll(f, c, 10)).toHaveLength(2);
    });
  });

  describe('host sections', () => {
    it("hold a section's per-host limit, budget and delay for its hosts, and the crawl's for the rest", async () => {
      const f = await store({
        perHost: 1,
        hosts: { 'b.test': { perHost: 3, maxPages: 2 }, '*.slow.test': { delayMs: 1000 } },
      });
      const c = await f.registerCrawler('a');
      const added = await f.add(
        [...urls('a.test', 3), ...urls('b.test', 4), ...urls('x.slow.test', 2)],
        [],
        c,
      );
      expect(added.added).toBe(3 + 2 + 2);
      expect(await f.stats()).toMatchObject({ queued: 7, rejected: 2 });
      const first = await leaseAll(f, c);
      const byHost = (ls: Lease[]) => ls.map((l) => l.host).sort();
      expect(byHost(first)).toEqual(['a.test', 'b.test', 'b.test', 'x.slow.test']);
      await f.complete(
        first.map((l) => completion(l)),
        c,
      );
      // The slow host's gap (one fetch at a time) runs from the end of its fetch.
      clock += 999;
      const second = await leaseAll(f, c);
      expect(byHost(second)).toEqual(['a.test']);
      await f.complete(
        second.map((l) => completion(l)),
        c,
      );
      clock += 1;
      expect(byHost(await leaseAll(f, c))).toEqual(['a.test', 'x.slow.test']);
    });
  });

  describe('recrawling', () => {
    it("keeps a done URL's validators, and hands them out with it once it is due again", async (ctx) => {
      const f = await store({ perHost: 10 });
      const owner = ownerOf(f, ctx);
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 3), [], c);
      const first = await leaseAll(f, c);
      expect(first.map((l) => l.previous)).toEqual([undefined, undefined, undefined]);
      const fetchedAt = clock;
      const validators = {
        etag: '"v1"',
        lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT',
        capturedAt: clock - 40,
      };
      const [a, b, failed] = first as [Lease, Lease, Lease];
      await f.complete(
        [
          completion(a, { kind: 'done', validators }),
          completion(b),
          completion(failed, { kind: 'failed', error: 'timeout' }),
        ],
        c,
      );
      clock += 9_999;
      expect(await owner.requeueDue(10_000)).toBe(0);
      clock += 1;
      expect(await owner.requeueDue(10_000)).toBe(2);
      expect(await f.stats()).toMatchObject({ queued: 2, done: 0, failed: 1 });
      const again = await leaseAll(f, c);
      expect(again.map((l) => [l.url, l.previous, l.attempt])).toEqual([
        [a.url, { fetchedAt, ...validators }, 1],
        [b.url, { fetchedAt }, 1],
      ]);
      clock += 1;
      await f.complete([completion(again[0] as Lease, { kind: 'done', validators: { etag: '"v2"' } })], c);
      clock += 10_000;
      await f.complete([completion(again[1] as Lease)], c);
      expect(await owner.requeueDue(10_000)).toBe(1);
      expect((await leaseAll(f, c))[0]?.previous).toEqual({ fetchedAt: fetchedAt + 10_001, etag: '"v2"' });
    });

    it('with recrawlAfterMs, a running crawl queues the URLs that come due, and is over only when none is', async () => {
      const f = await store({ perHost: 10, recrawlAfterMs: 10_000 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 2), [], c);
      const first = await leaseAll(f, c);
      const validators = { etag: '"v1"' };
      await f.complete(
        first.map((l, i) => completion(l, { kind: 'done', ...(i === 0 ? { validators } : {}) })),
        c,
      );
      const fetchedAt = clock;
      // Nothing due yet: the crawl is over, as it was before any recrawling.
      clock += 9_999;
      expect(await f.lease(10, c)).toMatchObject({ leases: [], ended: 'finished' });
      // Due now: the same lease call queues and hands them out, with what was stored.
      clock += 1;
      const again = await f.lease(10, c);
      expect(again.ended).toBeNull();
      expect(again.leases.map((l) => [l.url, l.previous]).sort()).toEqual(
        [
          [first[0]?.url, { fetchedAt, ...validators }],
          [first[1]?.url, { fetchedAt }],
        ].sort(),
      );
      // While one is out, the other, done, is not due again before its time.
      await f.complete([completion(again.leases[0] as Lease)], c);
      clock += 5_000;
      expect(await f.lease(10, c)).toMatchObject({ leases: [], ended: null });
      await f.complete([completion(again.leases[1] as Lease)], c);
      expect(await f.lease(10, c)).toMatchObject({ leases: [], ended: 'finished' });
      clock += 5_000;
      expect((await f.lease(10, c)).leases.map((l) => l.url)).toEqual([again.leases[0]?.url]);
    });

    it('with recrawlAfterMs, a crawl at its --max-pages ends there rather than recrawl', async () => {
      const f = await store({ perHost: 10, recrawlAfterMs: 10_000, maxPages: 2 });
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 3), [], c);
      const first = await leaseAll(f, c);
      expect(first).toHaveLength(2);
      await f.complete(
        first.map((l) => completion(l)),
        c,
      );
      clock += 10_000;
      expect(await f.lease(10, c)).toMatchObject({ leases: [], ended: 'max-pages' });
      expect(await f.stats()).toMatchObject({ done: 2, queued: 1 });
    });
  });

  describe('the cookie jar', () => {
    it('keeps the changes saved, deletions too, for the next time the store is opened', async (ctx) => {
      // Durable stores only: this is about what a store opened again holds.
      if (kind.forgetsOnClose !== undefined) return ctx.skip();
      const f = await store();
      const jar = jarOf(f, ctx);
      expect(await jar.cookies()).toEqual([]);
      await jar.saveCookies([
        { key: 'a.test;/;sid', value: '{"key":"sid","value":"1"}' },
        { key: 'b.test;/;k', value: '{"key":"k","value":"2"}' },
      ]);
      await jar.saveCookies([
        { key: 'a.test;/;sid', value: '{"key":"sid","value":"3"}' },
        { key: 'b.test;/;k', value: null },
      ]);
      await f.close();
      const again = jarOf(await store(), ctx);
      expect(await again.cookies()).toEqual([{ key: 'a.test;/;sid', value: '{"key":"sid","value":"3"}' }]);
    });
  });

  describe('several processes on one store', () => {
    let childArgs: string[] = [];
    beforeEach(async (ctx) => {
      if (kind.oneProcess === undefined) {
        childArgs = await bundledChild(FIXTURE);
        return;
      }
      console.warn(`SKIPPED: several processes on the ${kind.name} store: ${kind.oneProcess}`);
      ctx.skip();
    });

    function crawler(
      mode: 'work' | 'hold' | 'claim' | 'robots',
      settings: Partial<FrontierSettings>,
      holdMs = 0,
      claim?: { origins: string[]; go: string },
    ) {
      const json = JSON.stringify({ ...TEST_SETTINGS, ...settings }, (_k, v) =>
        v === Number.POSITIVE_INFINITY ? 'Infinity' : v,
      );
      const child = spawn(
        process.execPath,
        [...childArgs, (current as TestStore).spec, json, mode, String(holdMs), JSON.stringify(claim ?? {})],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      children.push(child);
      const events: Record<string, unknown>[] = [];
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      const waiters: (() => void)[] = [];
      lines.on('line', (line) => {
        events.push(JSON.parse(line) as Record<string, unknown>);
        for (const w of waiters.splice(0)) w();
      });
      const until = async (event: string) => {
        const deadline = Date.now() + 30_000;
        while (!events.some((e) => e.event === event)) {
          if (Date.now() > deadline) throw new Error(`no ${event} event`);
          await new Promise<void>((r) => {
            waiters.push(r);
            setTimeout(r, 200);
          });
        }
        return events.find((e) => e.event === event) as Record<string, unknown>;
      };
      return { child, events, until };
    }

    /** Four hosts of `perHostUrls` URLs each, crawled by three processes until the store says the crawl is over. */
    async function crawlByThree(settings: Partial<FrontierSettings>, perHostUrls: number) {
      const f = await store(settings, true);
      const c = await f.registerCrawler('seed');
      const links: NewLink[] = [];
      for (let h = 0; h < 4; h++) links.push(...urls(`h${h}.test`, perHostUrls));
      await f.add(links, [], c);
      const procs = [
        crawler('work', settings, 5),
        crawler('work', settings, 5),
        crawler('work', settings, 5),
      ];
      await Promise.all(procs.map((p) => once(p.child, 'exit')));
      return { f, links, procs };
    }

    it('never lease a URL twice while its lease lives, and share the gap per host', async () => {
      const settings = { perHost: 2, delayMs: 20 };
      const { f, links, procs } = await crawlByThree(settings, 15);
      const leases = procs.flatMap((p) => p.events.filter((e) => e.event === 'lease'));
      const done = procs.flatMap((p) => p.events.filter((e) => e.event === 'done'));
      expect(procs.every((p) => p.events.some((e) => e.event === 'end'))).toBe(true);
      // every URL done exactly once, and leased once (no lease expired)
      expect(done.map((e) => e.url).sort()).toEqual(links.map((l) => l.url).sort());
      expect(new Set(leases.map((e) => e.url)).size).toBe(leases.length);
      // Across processes, each lease of a host (its time: expiry less the lease time) comes
      // at least --delay after the latest start the one before it allowed (its startBy).
      // (Crawl tests check the request starts themselves at a web server.)
      for (let h = 0; h < 4; h++) {
        const ofHost = leases
          .filter((e) => String(e.url).startsWith(`http://h${h}.test/`))
          .map((e) => ({ at: (e.expiresAt as number) - TEST_SETTINGS.leaseMs, startBy: e.startBy as number }))
          .sort((a, b) => a.at - b.at);
        for (let i = 1; i < ofHost.length; i++) {
          const [before, lease] = [ofHost[i - 1], ofHost[i]] as [{ startBy: number }, { at: number }];
          expect(lease.at - before.startBy).toBeGreaterThanOrEqual(settings.delayMs);
        }
      }
      expect(await f.stats()).toMatchObject({ done: 60, queued: 0, leased: 0, staleCompletions: 0 });
    });

    it('share --max-pages: every process stops when the crawl has spent it', async () => {
      const { f, procs } = await crawlByThree({ perHost: 2, maxPages: 10 }, 10);
      const done = procs.flatMap((p) => p.events.filter((e) => e.event === 'done'));
      expect(done).toHaveLength(10);
      expect(new Set(done.map((e) => e.url)).size).toBe(10);
      for (const p of procs)
        expect(p.events.find((e) => e.event === 'end')).toMatchObject({ ended: 'max-pages' });
      expect(await f.stats()).toMatchObject({ done: 10, queued: 30, leased: 0, budgetLeft: 0 });
    });

    it('claimSite is true for exactly one of several processes racing for each site', async () => {
      const f = await store({}, true);
      await f.registerCrawler('seed');
      const origins = Array.from({ length: 40 }, (_, i) => `http://s${i}.test`);
      const goDir = mkdtempSync(join(tmpdir(), 'cobweb-claim-'));
      const go = join(goDir, 'go');
      const procs = Array.from({ length: 4 }, () => crawler('claim', {}, 0, { origins, go }));
      let won: string[][];
      try {
        await Promise.all(procs.map((p) => p.until('ready')));
        writeFileSync(go, '');
        won = await Promise.all(procs.map(async (p) => (await p.until('claimed')).won as string[]));
      } finally {
        rmSync(goDir, { recursive: true, force: true });
      }
      expect(won.flat().sort()).toEqual([...origins].sort());
      if (f.sites !== undefined)
        expect((await f.sites()).map((s) => s.origin).sort()).toEqual([...origins].sort());
    });

    it("each origin's robots.txt is read by exactly one of several processes asking at once", async () => {
      const f = await store({}, true);
      await f.registerCrawler('seed');
      const origins = Array.from({ length: 40 }, (_, i) => `http://r${i}.test`);
      const goDir = mkdtempSync(join(tmpdir(), 'cobweb-robots-'));
      const go = join(goDir, 'go');
      const procs = Array.from({ length: 4 }, () => crawler('robots', {}, 0, { origins, go }));
      let read: string[][];
      try {
        await Promise.all(procs.map((p) => p.until('ready')));
        writeFileSync(go, '');
        read = await Promise.all(procs.map(async (p) => (await p.until('robots')).read as string[]));
      } finally {
        rmSync(goDir, { recursive: true, force: true });
      }
      expect(read.flat().sort()).toEqual([...origins].sort());
      const late = await f.registerCrawler('late');
      for (const origin of origins) expect((await f.robots(origin, late)).kind).toBe('known');
    });

    it('gives back the leases of a process killed with SIGKILL as soon as another starts', async () => {
      const f = await store({ perHost: 10 }, true);
      const seed = await f.registerCrawler('seed');
      await f.add(urls('a.test', 5), [], seed);
      const holder = crawler('hold', { perHost: 10 });
      const held = await holder.until('held');
      expect(held.urls).toHaveLength(5);
      holder.child.kill('SIGKILL');
      await once(holder.child, 'exit');
      // The lease time is a minute: the URLs come back because the process is gone.
      const reopened = await store({ perHost: 10 }, true);
      const c = await reopened.registerCrawler('after');
      const again = (await reopened.lease(10, c)).leases;
      expect(again.map((l) => l.url).sort()).toEqual((held.urls as string[]).sort());
      expect(again.every((l) => l.attempt === 2)).toBe(true);
    });

    it('survives a crash and reopens with everything it had committed', async () => {
      const f = await store({ perHost: 10 }, true);
      const c = await f.registerCrawler('a');
      await f.add(urls('a.test', 4), [], c);
      const [l] = await leaseAll(f, c, 1);
      await f.complete([completion(l as Lease)], c);
      const worker = crawler('hold', { perHost: 10 });
      await worker.until('held');
      worker.child.kill('SIGKILL');
      await once(worker.child, 'exit');
      const again = await store({ perHost: 10 }, true);
      await again.registerCrawler('b');
      expect(await again.stats()).toMatchObject({ done: 1, queued: 3, leased: 0 });
    });
  });
});
