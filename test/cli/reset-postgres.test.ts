import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli-process.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { runNode } from '../helpers/run-node.js';

// A PostgreSQL crawl started over: `--fresh` is refused there (the database is shared),
// `cobweb reset --store URL --crawl NAME` deletes the crawl once its name is typed again.

const postgres = postgresPerTest('cobweb reset on PostgreSQL');
let dir = '';
let site: TestServer | null = null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-reset-'));
  site = await serve('127.0.0.2', routes({ '/': page('home', ['/a']), '/a': page('a') }));
});
afterEach(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `cobweb ARGS` with `input` on its standard input. */
const withStdin = (input: string, ...args: string[]) => runNode([BIN, ...args], { input });

/** The crawls in the database, with the URLs each holds. */
async function crawls(): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: postgres.db });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; urls: number }>(
      'SELECT c.name, (SELECT count(*) FROM crawler_links l WHERE l.crawl = c.id)::int AS urls FROM crawls c',
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.urls]));
  } finally {
    await client.end();
  }
}

const crawlArgs = (name: string) => [
  BIN,
  'crawl',
  `${site?.origin}/`,
  '--store',
  postgres.db,
  '--crawl',
  name,
  '--data',
  join(dir, name),
  '--delay',
  '0',
  '--quiet',
];

describe('cobweb reset', { timeout: 120_000 }, () => {
  it('deletes a PostgreSQL crawl once its name is typed again, and the same crawl then starts over', async () => {
    expect((await runNode(crawlArgs('shop'))).code).toBe(0);
    expect((await runNode(crawlArgs('news'))).code).toBe(0);
    expect(await crawls()).toEqual({ shop: 2, news: 2 });
    const pagesAsked = () => site?.log.filter((r) => r.path !== '/robots.txt').length;
    expect(pagesAsked()).toBe(4);

    // --fresh is refused there, and says what to do instead.
    const fresh = await runNode([...crawlArgs('shop'), '--fresh']);
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('cobweb reset --store URL --crawl shop');

    // A wrong name, or none: nothing is deleted.
    const wrong = await withStdin('news\n', 'reset', '--store', postgres.db, '--crawl', 'shop');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('crawl "shop" holds 2 URLs and 1 site');
    expect(wrong.stderr).toContain("type the crawl's name (shop) to delete it");
    expect(wrong.stderr).toContain('nothing was deleted');
    expect((await withStdin('', 'reset', '--store', postgres.db, '--crawl', 'shop')).code).toBe(2);
    expect(await crawls()).toEqual({ shop: 2, news: 2 });

    const right = await withStdin('shop\n', 'reset', '--store', postgres.db, '--crawl', 'shop');
    expect(right.code).toBe(0);
    expect(right.stdout).toContain('crawl "shop" deleted (2 URLs, 1 site)');
    expect(await crawls()).toEqual({ news: 2 });

    // The crawl named again starts over: its pages are fetched again.
    expect((await runNode(crawlArgs('shop'))).code).toBe(0);
    expect(pagesAsked()).toBe(6);
    expect(await crawls()).toEqual({ shop: 2, news: 2 });
  });

  it('takes --yes for scripts, and refuses a crawl that does not exist', async () => {
    expect((await runNode(crawlArgs('shop'))).code).toBe(0);
    const yes = await runNode([BIN, 'reset', '--store', postgres.db, '--crawl', 'shop', '--yes']);
    expect(yes.code).toBe(0);
    expect(await crawls()).toEqual({});
    const none = await runNode([BIN, 'reset', '--store', postgres.db, '--crawl', 'shop', '--yes']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/has no crawl "shop": nothing to reset/);
  });
});
