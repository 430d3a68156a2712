/**
 * A host that returns millions of distinct URLs (every page links to 100 new ones on the
 * same host, a flat path that no trap rule sees as one), crawled beside normal hosts with
 * --max-pages: the normal hosts are crawled whole, and the trap host gets its share of
 * the crawl, not the crawl. Counted at the servers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrawlOptions } from '../../src/options/options.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { type Handler, page, serve, type TestServer } from '../helpers/http.js';

const NORMAL_HOSTS = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const NORMAL_PAGES = 20;
const TRAP_HOST = '127.0.0.5';
const LINKS_PER_TRAP_PAGE = 100;

const harness = crawlHarness('trap-host', {
  delayMs: 0,
  delayFactor: 0,
  builtinModules: false,
  concurrency: 4,
  parseThreads: 0,
});

/** A normal site: `/` links to /p1../p19, each of those back to `/`. */
async function normalSite(address: string): Promise<TestServer> {
  const table: Record<string, string> = {};
  const others = Array.from({ length: NORMAL_PAGES - 1 }, (_, i) => `/p${i + 1}`);
  table['/'] = page(`${address} home`, others);
  for (const path of others) table[path] = page(`${address} ${path}`, ['/']);
  return harness.site(address, table);
}

/** /t/N links to /t/(100N+1) ... /t/(100N+100): a new hundred on every page, without end. */
async function trapSite(): Promise<TestServer> {
  const trapPage: Handler = (req, res) => {
    const n = Number((req.url ?? '').split('/').pop() ?? 0) || 0;
    const links = Array.from(
      { length: LINKS_PER_TRAP_PAGE },
      (_, i) => `/t/${n * LINKS_PER_TRAP_PAGE + i + 1}`,
    );
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(`trap ${n}`, links));
  };
  // Not a routes() table: the trap answers any /t/N.
  const site = await serve(TRAP_HOST, (req, res) => {
    if (req.url === '/robots.txt') res.writeHead(404).end();
    else trapPage(req, res);
  });
  trapServers.push(site);
  return site;
}

const trapServers: TestServer[] = [];
afterEach(async () => {
  for (const s of trapServers.splice(0)) await s.close();
});

async function crawlWithTrap(extra: Partial<CrawlOptions>) {
  const normal = await Promise.all(NORMAL_HOSTS.map(normalSite));
  const trap = await trapSite();
  const seeds = [`${trap.origin}/t/0`, ...normal.map((s) => `${s.origin}/`)];
  const summary = await harness.run(seeds, extra);
  const pagesOf = (s: TestServer) => s.log.filter((r) => r.path !== '/robots.txt').length;
  return { summary, normalPages: normal.map(pagesOf), trapPages: pagesOf(trap) };
}

describe('a host of endless distinct URLs beside normal hosts', () => {
  const normalTotal = NORMAL_HOSTS.length * NORMAL_PAGES;
  const everyNormalPage = NORMAL_HOSTS.map(() => NORMAL_PAGES);

  it('--max-pages with room for the normal hosts: they are crawled whole, the trap gets the rest only', async () => {
    const maxPages = normalTotal + 20;
    const { summary, normalPages, trapPages } = await crawlWithTrap({ maxPages });

    expect(summary.stoppedBy).toBe('max-pages');
    expect(normalPages).toEqual(everyNormalPage);
    expect(trapPages).toBe(maxPages - normalTotal);
  });

  it('--max-pages short of the normal hosts: hosts take turns, so the trap gets no more than any other host', async () => {
    const maxPages = normalTotal - 10;
    const { summary, normalPages, trapPages } = await crawlWithTrap({ maxPages, concurrency: 16 });

    expect(summary.stoppedBy).toBe('max-pages');
    // One fetch per host at a time (--per-host 1) and the hosts served in turn: a quarter
    // each, give or take the fetch that was under way when the budget ran out.
    expect(trapPages).toBeLessThanOrEqual(Math.min(...normalPages) + 1);
    expect(normalPages.every((n) => n < NORMAL_PAGES)).toBe(true);
  });

  it('--max-pages-per-host ends the crawl by itself: the trap stops at its budget, the rest of its links recorded as refused', async () => {
    const budget = 30;
    const { summary, normalPages, trapPages } = await crawlWithTrap({ maxPagesPerHost: budget });

    expect(summary.stoppedBy).toBe('finished');
    expect(normalPages).toEqual(everyNormalPage);
    expect(trapPages).toBe(budget);
    const refused = harness.refused().filter((r) => r.error === 'filtered' && r.detail === 'host-budget');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.url.startsWith(`http://${TRAP_HOST}:`))).toBe(true);
  });
});
