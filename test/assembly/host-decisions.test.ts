import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny, serve } from '../../src/index.js';
import type { TestServer } from '../helpers/http.js';
import { readAllLines, readPages } from '../helpers/pages.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { startTestWeb } from '../helpers/test-web.js';

// Decisions about a host belong to the crawl, not to each process: a server and three
// bunnies, the seeds given to one bunny only. Requests are counted at the web servers.

const postgres = postgresPerTest('one decision per host on PostgreSQL');
const PAGES = 12;
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'];
let dir = '';
let sites: TestServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-host-decisions-'));
  sites = await startTestWeb(ADDRESSES, PAGES);
});

afterEach(async () => {
  for (const site of sites.splice(0)) await site.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each site: robots.txt asked once for the whole crawl, every page once. */
function expectOneDecisionPerHost(): void {
  for (const site of sites) {
    const paths = site.log.map((r) => r.path);
    expect(
      paths.filter((p) => p === '/robots.txt'),
      site.origin,
    ).toHaveLength(1);
    const pages = paths.filter((p) => p !== '/robots.txt');
    expect(pages).toHaveLength(PAGES);
    expect(new Set(pages).size).toBe(PAGES);
  }
}

function nonEmpty(file: string): boolean {
  return existsSync(file) && readFileSync(file, 'utf8').length > 0;
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!done()) throw new Error(`waited 30 s for ${what}`);
}

describe('one crawl, one decision per host', { timeout: 180_000 }, () => {
  it('three bunnies read each robots.txt once, and the seeds one bunny was given open their addresses to all', async () => {
    const server = await serve({
      data: join(dir, 'server'),
      listen: '127.0.0.1:0',
      // A gap per host long enough that the crawl outlasts the start of three bunnies.
      delayMs: 40,
      delayFactor: 0,
      onLog: () => {},
    });
    const common = { server: server.listen, token: server.token, onLog: () => {} };
    const pagesFile = join(dir, 'server', 'pages.jsonl');
    // The seeds go to the first bunny only; with one fetch at a time it leaves most
    // ready hosts to the two others, which know no seed of their own.
    const seeded = bunny({
      ...common,
      data: join(dir, 'b1'),
      concurrency: 1,
      seeds: sites.map((s) => `${s.origin}/`),
    });
    await until(() => nonEmpty(pagesFile), 'a first page');
    const others = [bunny({ ...common, data: join(dir, 'b2') }), bunny({ ...common, data: join(dir, 'b3') })];
    const summaries = await Promise.all([seeded, ...others]);
    for (const s of summaries) expect(s.stoppedBy).toBe('finished');
    await server.close();

    const lines = readPages(pagesFile);
    expectOneDecisionPerHost();
    expect(lines.filter((l) => l.error === 'private-address')).toEqual([]);
    expect(lines.filter((l) => l.status === 200)).toHaveLength(ADDRESSES.length * PAGES);
    // The seedless bunnies did fetch: the allowance reached them.
    const byCrawler = new Set(lines.map((l) => l.crawler));
    expect(byCrawler.size).toBeGreaterThan(1);
  });

  it('on PostgreSQL, bunnies that join the crawl read each robots.txt once between them', async () => {
    const data = (name: string) => join(dir, name);
    const common = { store: postgres.db, delayMs: 40, delayFactor: 0, onLog: () => {} };
    const first = bunny({
      ...common,
      data: data('b1'),
      concurrency: 1,
      seeds: sites.map((s) => `${s.origin}/`),
    });
    await until(() => nonEmpty(join(data('b1'), 'pages.jsonl')), 'a first page');
    const summaries = await Promise.all([
      first,
      bunny({ ...common, data: data('b2') }),
      bunny({ ...common, data: data('b3') }),
    ]);
    for (const s of summaries) expect(s.stoppedBy).toBe('finished');
    expectOneDecisionPerHost();
    const lines = ['b1', 'b2', 'b3'].flatMap((b) => readAllLines(data(b)));
    expect(lines.filter((l) => l.error === 'private-address' || l.error === 'filtered')).toEqual([]);
    expect(lines.filter((l) => l.status === 200)).toHaveLength(ADDRESSES.length * PAGES);
  });
});
