import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresFrontier } from '../../src/frontier/postgres/postgres-frontier.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { TEST_SETTINGS } from './stores.js';

/** What the PostgreSQL store does besides the contract: its migrations and its crawls. */

const postgres = postgresPerTest('the PostgreSQL store');

async function rows<R>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgres.db });
  await client.connect();
  try {
    return (await client.query(sql)).rows as R[];
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL store', () => {
  it('ten stores opening a new database at once migrate it once', async () => {
    const stores = await Promise.all(
      Array.from({ length: 10 }, () => PostgresFrontier.open(postgres.db, TEST_SETTINGS, { poolSize: 1 })),
    );
    for (const s of stores) await s.close();
    expect(await rows('SELECT version FROM cobweb_migrations')).toEqual([{ version: 1 }]);
    expect(await rows('SELECT name FROM crawls')).toEqual([{ name: 'default' }]);
  });

  it('keeps crawls apart: each has its own queue, seen set and page budget', async () => {
    const a = await PostgresFrontier.open(postgres.db, { ...TEST_SETTINGS, maxPages: 1 }, { crawl: 'a' });
    const b = await PostgresFrontier.open(postgres.db, TEST_SETTINGS, { crawl: 'b' });
    const ca = await a.registerCrawler('a');
    const cb = await b.registerCrawler('b');
    const link = [{ url: 'http://x.test/', depth: 0, via: null }];
    expect((await a.add(link, [], ca)).added).toBe(1);
    expect((await b.add(link, [], cb)).added).toBe(1);
    await b.add([{ url: 'http://x.test/2', depth: 0, via: null }], [], cb);
    const [la] = (await a.lease(5, ca)).leases;
    await a.complete(
      [{ leaseId: la?.id as number, outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
      ca,
    );
    expect(await a.stats()).toMatchObject({ done: 1, queued: 0, budgetLeft: 0 });
    expect(await b.stats()).toMatchObject({ done: 0, queued: 2, budgetLeft: null });
    expect((await b.lease(5, cb)).leases.map((l) => l.url)).toEqual(['http://x.test/']);
    await a.close();
    await b.close();
  });

  it('a joining process takes the settings the crawl was started with', async () => {
    const first = await PostgresFrontier.open(
      postgres.db,
      { ...TEST_SETTINGS, delayMs: 750 },
      { rules: { seeds: ['x'] } },
    );
    const joined = await PostgresFrontier.open(
      postgres.db,
      { ...TEST_SETTINGS, delayMs: 10 },
      { join: true },
    );
    expect(joined.joined).toBe(true);
    expect(joined.settings.delayMs).toBe(750);
    expect(joined.settings.maxPages).toBe(Number.POSITIVE_INFINITY);
    expect(joined.rules).toEqual({ seeds: ['x'] });
    await first.close();
    await joined.close();
  });
});
