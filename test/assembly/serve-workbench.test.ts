import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny, CrawlOptionError, DataDirError, serve } from '../../src/index.js';
import type { TestServer } from '../helpers/http.js';
import { fetchCounts, readPages } from '../helpers/pages.js';
import { requestCount, startTestWeb } from '../helpers/test-web.js';

// `cobweb server --frontier workbench` from the library (serve()), with a bunny on a test
// web on 127.0.0.x: the crawl is kept in DATA/workbench/ across a restart, and a data
// folder keeps the store it was crawled with.

const PAGES = 4;
let dir = '';
let sites: TestServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-serve-workbench-'));
  sites = await startTestWeb(['127.0.0.2', '127.0.0.3'], PAGES);
});

afterEach(async () => {
  for (const site of sites.splice(0)) await site.close();
  rmSync(dir, { recursive: true, force: true });
});

// A server and a bunny start their module threads: slow on a busy machine.
describe('serve() with the workbench store', { timeout: 120_000 }, () => {
  it('keeps a finished crawl over a restart: nothing is fetched twice, and the SQLite store is refused the folder', async () => {
    const data = join(dir, 'server');
    const seeds = sites.map((s) => `${s.origin}/`);
    const start = () =>
      serve({
        seeds,
        data,
        listen: '127.0.0.1:0',
        delayMs: 0,
        delayFactor: 0,
        frontier: 'workbench',
        onLog: () => {},
      });

    /** A bunny with its own folder NAME, crawling for `server` until the crawl is over. */
    const crawlFor = (server: { listen: string; token: string }, name: string) =>
      bunny({ server: server.listen, token: server.token, data: join(dir, name), onLog: () => {} });

    const first = await start();
    const summary = await crawlFor(first, 'bunny-1');
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.fetchedThisRun).toBe(2 * PAGES);
    const stopped = await first.close();
    expect(stopped).toMatchObject({ done: 2 * PAGES, queued: 0 });
    const asked = requestCount(sites);
    expect(asked).toBeGreaterThanOrEqual(2 * PAGES);

    // The crawl is in workbench/, and there is no SQLite store beside it.
    expect(readdirSync(join(data, 'workbench')).some((n) => /^journal\.\d+\.jsonl$/.test(n))).toBe(true);
    expect(existsSync(join(data, 'frontier.db'))).toBe(false);

    // Started again on the folder, with the same seeds: the crawl is over, nothing is fetched.
    const second = await start();
    const again = await crawlFor(second, 'bunny-2');
    expect(again.stoppedBy).toBe('finished');
    expect(again.fetchedThisRun).toBe(0);
    expect(again).toMatchObject({ done: 2 * PAGES, queued: 0 });
    expect(await second.close()).toMatchObject({ done: 2 * PAGES, queued: 0, fetchedThisRun: 0 });
    expect(requestCount(sites)).toBe(asked);
    // Each page reached its web server once, and the server wrote its line once.
    for (const site of sites) {
      const paths = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
      expect(paths).toHaveLength(PAGES);
      expect(new Set(paths).size).toBe(PAGES);
    }
    const counts = fetchCounts(readPages(join(data, 'pages.jsonl')));
    expect(counts.size).toBe(2 * PAGES);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(existsSync(join(data, 'workbench'))).toBe(true);
    expect(existsSync(join(data, 'frontier.db'))).toBe(false);

    // The default store is refused the folder, which it leaves as it was.
    const refused = serve({ seeds, data, listen: '127.0.0.1:0', onLog: () => {} });
    await expect(refused).rejects.toBeInstanceOf(DataDirError);
    await expect(refused).rejects.toThrow(/--frontier workbench/);
    expect(existsSync(join(data, 'frontier.db'))).toBe(false);
  });

  it('is refused a folder whose crawl is in its SQLite store', async () => {
    const data = join(dir, 'server');
    const seeds = sites.map((s) => `${s.origin}/`);
    const sqlite = await serve({ seeds, data, listen: '127.0.0.1:0', onLog: () => {} });
    await sqlite.close();
    expect(existsSync(join(data, 'frontier.db'))).toBe(true);

    const refused = serve({ seeds, data, listen: '127.0.0.1:0', frontier: 'workbench', onLog: () => {} });
    await expect(refused).rejects.toBeInstanceOf(DataDirError);
    await expect(refused).rejects.toThrow(/--frontier sqlite/);
    expect(existsSync(join(data, 'workbench'))).toBe(false);
  });

  it('is refused beside --store: the crawl is in the data folder or in PostgreSQL, not both', async () => {
    const data = join(dir, 'server');
    const refused = serve({
      data,
      listen: '127.0.0.1:0',
      frontier: 'workbench',
      store: 'postgres://cobweb@127.0.0.1:1/cobweb',
      onLog: () => {},
    });
    await expect(refused).rejects.toBeInstanceOf(CrawlOptionError);
    await expect(refused).rejects.toThrow(/leave out one of them/);
    expect(existsSync(join(data, 'workbench'))).toBe(false);
  });
});
