import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { FrontierSettings } from '../../src/frontier/types.js';
import { type InProcessCrawler, startCrawler } from '../helpers/crawler.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';

const SETTINGS: FrontierSettings = {
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
  maxPages: Number.POSITIVE_INFINITY,
};

let dir: string;
const servers: TestServer[] = [];
const opened: { close(): Promise<void> }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-loop-'));
});

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  for (const s of servers.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function site(table: Parameters<typeof routes>[0]): Promise<TestServer> {
  const s = await serve('127.0.0.2', routes(table));
  servers.push(s);
  return s;
}

async function crawler(
  frontier: SqliteFrontier,
  seeds: string[],
  modulesDataDir: string | null = null,
): Promise<InProcessCrawler> {
  const c = await startCrawler(frontier, seeds, { delayMs: 0, ignoreRobots: true }, modulesDataDir);
  opened.push(c);
  return c;
}

function store(settings: Partial<FrontierSettings> = {}): SqliteFrontier {
  const f = new SqliteFrontier(join(dir, 'frontier.db'), { ...SETTINGS, ...settings });
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
});
