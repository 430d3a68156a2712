import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/frontier/memory/memory-frontier.js';
import type { Completion, Frontier, FrontierSettings } from '../../src/frontier/types.js';
import { TEST_SETTINGS } from '../frontier/stores.js';
import { type InProcessCrawler, startCrawler } from '../helpers/crawler.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';

const servers: TestServer[] = [];
const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  for (const s of servers.splice(0)) await s.close();
});

async function site(table: Parameters<typeof routes>[0]): Promise<TestServer> {
  const s = await serve('127.0.0.2', routes(table));
  servers.push(s);
  return s;
}

async function crawler(
  frontier: Frontier,
  seeds: string[],
  extra: Parameters<typeof startCrawler>[2] = {},
): Promise<InProcessCrawler> {
  const c = await startCrawler(frontier, seeds, { delayMs: 0, ignoreRobots: true, ...extra });
  opened.push(c);
  return c;
}

/**
 * The loop's own tests run on the reference store: what they check is the loop's side of
 * the contract, which every store keeps (the crawl tests run the real stores end to end).
 */
function store(settings: Partial<FrontierSettings> = {}): MemoryFrontier {
  const f = new MemoryFrontier({ ...TEST_SETTINGS, ...settings });
  opened.push(f);
  return f;
}

describe('the crawl loop', () => {
  it('extends a lease while its fetch runs longer than the lease time: fetched once, never stale', async () => {
    const web = await site({
      '/': page('root', ['/slow']),
      // answers well after a whole lease time (300 ms) has passed, twice over
      '/slow': (_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>slow</title>'), 900);
      },
    });
    const f = store({ leaseMs: 300 });
    const c = await crawler(f, [`${web.origin}/`]);
    expect(await c.crawl()).toBe('finished');
    expect(web.log.filter((r) => r.path === '/slow')).toHaveLength(1);
    expect(c.lines.filter((l) => l.url === `${web.origin}/slow`)).toEqual([
      expect.objectContaining({ status: 200, title: 'slow' }),
    ]);
    expect(await f.stats()).toMatchObject({ done: 2, staleCompletions: 0, expiredLeases: 0 });
  });

  it("puts each page's module records on that page's own completion", async () => {
    const children = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    const form = '<form action="/s"><input name="q"></form>';
    const held: (() => void)[] = [];
    const table: Parameters<typeof routes>[0] = { '/': page('root', children, form) };
    for (const path of children) {
      // held until every child is asked for, then answered at once: one batch of many pages
      table[path] = (_req, res) => {
        held.push(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(path, [], form)));
        if (held.length === children.length) for (const answer of held) answer();
      };
    }
    const web = await site(table);
    const f = store({ perHost: 16 });
    // The leases and completions between the loop and the store, seen on their way.
    const batches: Completion[][] = [];
    const urlOf = new Map<number, string>();
    const watched = new Proxy(f, {
      get(target, prop) {
        if (prop === 'lease') {
          return async (...args: Parameters<Frontier['lease']>) => {
            const batch = await target.lease(...args);
            for (const l of batch.leases) urlOf.set(l.id, l.url);
            return batch;
          };
        }
        if (prop === 'complete') {
          return (batch: Completion[], c: number) => {
            batches.push(batch);
            return target.complete(batch, c);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const c = await crawler(watched, [`${web.origin}/`], { concurrency: 16, perHost: 16 });
    expect(await c.crawl()).toBe('finished');
    expect(batches.some((b) => b.length > 1)).toBe(true);
    const completions = batches.flat();
    expect(completions).toHaveLength(13);
    for (const done of completions) {
      const url = urlOf.get(done.leaseId);
      const records = done.moduleRecords ?? [];
      // forms and meta write one record for each page, about that page
      expect(records.filter((r) => r.module === 'forms').map((r) => r.record.page)).toEqual([url]);
      expect(records.filter((r) => r.module === 'meta').map((r) => r.record.url)).toEqual([url]);
      // the site's record goes with the page that found the site
      const site = records.filter((r) => r.module === 'server');
      expect(site).toHaveLength(url === `${web.origin}/` ? 1 : 0);
    }
  });

  it('loses no link of a page whose completion the store refused', async () => {
    const children = ['/a', '/b', '/c'];
    const web = await site({
      '/': page('root', children),
      '/a': page('a'),
      '/b': page('b'),
      '/c': page('c'),
    });
    const f = store({ leaseMs: 300 });
    // The root's first completion names a lease the store never gave (as a bunny's can
    // after its server was started again): refused as stale, its links are added as
    // links; its lease runs out and the root is fetched again.
    let corrupted = false;
    const refusing = new Proxy(f, {
      get(target, prop) {
        if (prop === 'complete') {
          return (batch: Completion[], c: number) => {
            const out = batch.map((done) => {
              if (corrupted || !done.outlinks.some((l) => l.url === `${web.origin}/a`)) return done;
              corrupted = true;
              return { ...done, leaseId: done.leaseId + 1 };
            });
            return target.complete(out, c);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const c = await crawler(refusing, [`${web.origin}/`]);
    expect(await c.crawl()).toBe('finished');
    expect(corrupted).toBe(true);
    for (const path of children) expect(web.log.filter((r) => r.path === path)).toHaveLength(1);
    expect(await f.stats()).toMatchObject({ staleCompletions: 1, done: 4 });
  });
  it('asks for more URLs while a lease call is still unanswered: slots freed meanwhile are not left idle', async () => {
    const children = Array.from({ length: 30 }, (_, i) => `/p${i}`);
    const table: Parameters<typeof routes>[0] = { '/': page('root', children) };
    for (const path of children) table[path] = page(path);
    const web = await site(table);
    const f = store({ perHost: 8 });
    // The first call that refills only part of the slots (fetches are still running) is
    // held until another call comes, or for 5 s: a loop that waits for each answer
    // sends no other call meanwhile.
    let held: { release: () => void } | null = null;
    let heldOnce = false;
    let askedWhileHeld = 0;
    const slow = new Proxy(f, {
      get(target, prop) {
        if (prop === 'lease') {
          return async (...args: Parameters<Frontier['lease']>) => {
            if (held !== null) {
              askedWhileHeld++;
              held.release();
            }
            const batch = await target.lease(...args);
            if (!heldOnce && args[0] < 8 && batch.leases.length > 0) {
              heldOnce = true;
              await new Promise<void>((resolve) => {
                const timer = setTimeout(() => held?.release(), 5000);
                held = {
                  release: () => {
                    clearTimeout(timer);
                    held = null;
                    resolve();
                  },
                };
              });
            }
            return batch;
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const c = await crawler(slow, [`${web.origin}/`], { concurrency: 8, perHost: 8 });
    expect(await c.crawl()).toBe('finished');
    expect(heldOnce).toBe(true);
    expect(askedWhileHeld).toBe(1);
    for (const path of ['/', ...children]) expect(web.log.filter((r) => r.path === path)).toHaveLength(1);
    expect(await f.stats()).toMatchObject({ done: 31, staleCompletions: 0 });
  });
});
