import { hash } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { REQUISITE_RANK } from '../../src/frontier/policy/queue-rank.js';
import { fingerprintText } from '../../src/frontier/postgres/link-inserts.js';
import { PostgresFrontier } from '../../src/frontier/postgres/postgres-frontier.js';
import { fingerprint } from '../../src/url/fingerprint.js';
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

/** Until `what` holds (asked every 20 ms; a test that waits in vain fails at 30 s). */
async function waitFor(what: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await what())) {
    if (Date.now() > until) throw new Error('waited 30 s in vain');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the PostgreSQL store', () => {
  it('ten stores opening a new database at once migrate it once', async () => {
    const stores = await Promise.all(
      Array.from({ length: 10 }, () => PostgresFrontier.open(postgres.db, TEST_SETTINGS, { poolSize: 1 })),
    );
    for (const s of stores) await s.close();
    expect(await rows('SELECT version FROM cobweb_migrations ORDER BY version')).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
      { version: 6 },
      { version: 7 },
      { version: 8 },
    ]);
    expect(await rows('SELECT name FROM crawls')).toEqual([{ name: 'default' }]);
  });

  it('brings a database of schema 1 up to date: its URLs done are kept, and due for --recrawl-after', async () => {
    const first = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const c = await first.registerCrawler('a');
    await first.add([{ url: 'http://x.test/', depth: 0, via: null }], [], c);
    const [lease] = (await first.lease(1, c)).leases;
    await first.complete(
      [{ leaseId: lease?.id as number, outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
      c,
    );
    await first.close();
    // Back to what the cobweb before made: schema 1, no recrawl columns, no cookie jar.
    await rows(`ALTER TABLE crawler_links DROP COLUMN fetched_at, DROP COLUMN etag, DROP COLUMN last_modified,
      DROP COLUMN captured_at;
      DROP TABLE cookies; DELETE FROM cobweb_migrations WHERE version = 2`);
    const updatedAt = (await rows<{ updated_at: string }>('SELECT updated_at FROM crawler_links'))[0]
      ?.updated_at;
    const again = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const d = await again.registerCrawler('b');
    expect(await again.stats()).toMatchObject({ done: 1, queued: 0 });
    expect(await again.requeueDue(1)).toBe(1);
    const [due] = (await again.lease(1, d)).leases;
    expect(due?.previous).toEqual({ fetchedAt: Number(updatedAt) });
    expect(await again.cookies()).toEqual([]);
    await again.close();
  });

  it('brings a database of schema 2 up to date: its counts are kept, spread over 256 slots', async () => {
    const first = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const c = await first.registerCrawler('a');
    await first.add(
      ['http://x.test/1', 'http://x.test/2', 'http://y.test/'].map((url) => ({ url, depth: 0, via: null })),
      [],
      c,
    );
    await first.close();
    // Back to what the cobweb before made: 32 slots, the counts in them.
    await rows(`UPDATE crawl_counts SET queued = (SELECT sum(queued) FROM crawl_counts) WHERE slot = 0;
      UPDATE crawl_counts SET queued = 0 WHERE slot <> 0;
      DELETE FROM crawl_counts WHERE slot >= 32; DELETE FROM cobweb_migrations WHERE version = 3`);
    const again = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    expect(await rows('SELECT count(*)::int AS n FROM crawl_counts')).toEqual([{ n: 256 }]);
    expect(await again.stats()).toMatchObject({ queued: 3, leased: 0 });
    const d = await again.registerCrawler('b');
    expect((await again.lease(10, d)).leases).toHaveLength(2);
    expect(await again.stats()).toMatchObject({ queued: 1, leased: 2 });
    await again.close();
  });

  it('brings a database of schema 3 up to date: every link keyed by the one fingerprint, its seen set kept', async () => {
    const first = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const c = await first.registerCrawler('a');
    const urls = Array.from({ length: 30 }, (_, i) => `http://x${i % 3}.test/${i}`);
    await first.add(
      urls.map((url) => ({ url, depth: 0, via: null })),
      [{ url: 'http://x0.test/refused', depth: 1, via: null, reason: 'scope' }],
      c,
    );
    const [lease] = (await first.lease(1, c)).leases;
    await first.complete(
      [{ leaseId: lease?.id as number, outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
      c,
    );
    const stats = await first.stats();
    await first.close();
    // Back to what the cobweb before wrote: the first 8 bytes of SHA-1, signed, as the key.
    const links = await rows<{ id: string; url: string }>('SELECT id::text AS id, url FROM crawler_links');
    const sha1 = (url: string) => hash('sha1', url, 'buffer').readBigInt64BE(0).toString();
    await rows(`UPDATE crawler_links AS c SET fingerprint = u.fp
      FROM (VALUES ${links.map((l) => `(${l.id}, ${sha1(l.url)})`).join(', ')}) AS u(id, fp) WHERE c.id = u.id;
      DELETE FROM cobweb_migrations WHERE version = 4`);
    expect(await rows('SELECT count(*)::int AS n FROM crawler_links WHERE fingerprint <> 0')).toEqual([
      { n: 31 },
    ]);

    const again = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const keys = await rows<{ url: string; fp: string }>(
      'SELECT url, fingerprint::text AS fp FROM crawler_links',
    );
    expect(keys).toHaveLength(31);
    for (const k of keys) expect(k.fp).toBe(BigInt.asIntN(64, fingerprint(k.url)).toString());
    expect(
      await rows(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conname = 'crawler_links_crawl_fingerprint_key'`),
    ).toEqual([{ def: 'UNIQUE (crawl, fingerprint)' }]);
    expect(await again.stats()).toEqual(stats);
    // The seen set is the crawl's fingerprints: the URLs it had are not new, another is.
    const d = await again.registerCrawler('b');
    const added = await again.add(
      [...urls.slice(0, 5), 'http://x0.test/refused', 'http://x9.test/new'].map((url) => ({
        url,
        depth: 1,
        via: null,
      })),
      [],
      d,
    );
    expect(added.added).toBe(1);
    await again.close();
  });

  it('brings a database of schema 5 up to date: requisites ranked after every page, in each host and across hosts', async () => {
    const settings = { ...TEST_SETTINGS, perHost: 10 };
    const first = await PostgresFrontier.open(postgres.db, settings);
    const c = await first.registerCrawler('a');
    await first.add(
      [
        { url: 'http://a.test/site.css', depth: 1, via: null, kind: 'requisite' as const },
        { url: 'http://b.test/logo.png', depth: 1, via: null, kind: 'requisite' as const },
        { url: 'http://b.test/deep', depth: 3, via: null },
        { url: 'http://c.test/deeper', depth: 4, via: null },
      ],
      [],
      c,
    );
    await first.close();
    // Back to what the cobweb before made: the queue by depth, each host's shallowest depth.
    await rows(`DROP INDEX links_queue;
      ALTER TABLE crawler_links DROP COLUMN rank;
      CREATE INDEX links_queue ON crawler_links (crawl, host, depth, id) WHERE status = 0;
      ALTER TABLE hosts RENAME COLUMN min_rank TO min_depth;
      UPDATE hosts h SET min_depth = (SELECT min(depth) FROM crawler_links l
        WHERE l.crawl = h.crawl AND l.host = h.host AND l.status = 0);
      DELETE FROM cobweb_migrations WHERE version = 6`);
    expect(await rows('SELECT host, min_depth FROM hosts ORDER BY host')).toEqual([
      { host: 'a.test', min_depth: 1 },
      { host: 'b.test', min_depth: 1 },
      { host: 'c.test', min_depth: 4 },
    ]);

    const again = await PostgresFrontier.open(postgres.db, settings);
    expect(await rows('SELECT host, min_rank FROM hosts ORDER BY host')).toEqual([
      { host: 'a.test', min_rank: REQUISITE_RANK + 1 },
      { host: 'b.test', min_rank: 3 },
      { host: 'c.test', min_rank: 4 },
    ]);
    const d = await again.registerCrawler('b');
    expect((await again.lease(1, d)).leases.map((l) => l.url)).toEqual(['http://b.test/deep']);
    const rest = (await again.lease(10, d)).leases.map((l) => [l.url, l.depth, l.kind]);
    expect(rest[0]).toEqual(['http://c.test/deeper', 4, 'page']);
    // The two hosts' requisites share a rank: the order between them is their hosts' turns.
    expect(rest.slice(1).sort()).toEqual([
      ['http://a.test/site.css', 1, 'requisite'],
      ['http://b.test/logo.png', 1, 'requisite'],
    ]);
    await again.close();
  });

  it('a host whose queue count says more than it holds gives what it holds, and its row is set right', async () => {
    const store = await PostgresFrontier.open(postgres.db, { ...TEST_SETTINGS, perHost: 4 });
    const c = await store.registerCrawler('a');
    await store.add(
      [
        { url: 'http://x.test/1', depth: 0, via: null },
        { url: 'http://x.test/2', depth: 0, via: null },
        { url: 'http://y.test/1', depth: 0, via: null },
      ],
      [],
      c,
    );
    // The claim writes the host rows as if each host gave all its count said: here x.test cannot.
    await rows(`UPDATE hosts SET queued = 4 WHERE host = 'x.test'`);
    const leased = (await store.lease(10, c)).leases;
    expect(leased.map((l) => l.url).sort()).toEqual([
      'http://x.test/1',
      'http://x.test/2',
      'http://y.test/1',
    ]);
    expect(
      await rows(
        `SELECT host, queued, in_flight FROM hosts WHERE host IN ('x.test', 'y.test') ORDER BY host`,
      ),
    ).toEqual([
      { host: 'x.test', queued: 0, in_flight: 2 },
      { host: 'y.test', queued: 0, in_flight: 1 },
    ]);
    expect(await store.stats()).toMatchObject({ queued: 0, leased: 3 });
    await store.close();
  });

  it('a link to queue recorded meanwhile as rejected by a process without its host lock is not queued again', async () => {
    const store = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const c = await store.registerCrawler('a');
    const url = 'http://x.test/contested';
    // Another process records the URL as rejected (it holds no host lock for that) and has not committed yet.
    const other = new pg.Client({ connectionString: postgres.db });
    await other.connect();
    await other.query('BEGIN');
    await other.query(
      `INSERT INTO crawler_links (crawl, fingerprint, url, host, depth, status, error, added_at)
       SELECT id, $1, $2, 'x.test', 1, 5, 'depth', 0 FROM crawls WHERE name = 'default'`,
      [fingerprintText(url), url],
    );
    // This one's probe does not see it; its insert waits for the other's row, then finds it taken.
    const adding = store.add([{ url, depth: 0, via: null }], [], c);
    await waitFor(
      async () => (await rows(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).length > 0,
    );
    await other.query('COMMIT');
    await other.end();
    expect(await adding).toEqual({ added: 0, records: [] });
    expect(await rows(`SELECT status FROM crawler_links WHERE url = '${url}'`)).toEqual([{ status: 5 }]);
    expect((await store.stats()).queued).toBe(0);
    await store.close();
  });

  it("a completion does not wait for the row of a link's host that another transaction holds: the link waits instead, and is leased once", async () => {
    const store = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
    const c = await store.registerCrawler('a');
    await store.add(
      ['http://a.test/', 'http://big.test/1', 'http://idle.test/1'].map((url) => ({
        url,
        depth: 0,
        via: null,
      })),
      [],
      c,
    );
    const first = (await store.lease(10, c)).leases;
    expect(first.map((l) => l.url).sort()).toEqual([
      'http://a.test/',
      'http://big.test/1',
      'http://idle.test/1',
    ]);
    const leaseOf = (url: string) => first.find((l) => l.url === url)?.id as number;
    // idle.test is done: nothing queued, nothing in flight, so only a lease call's sweep can reach it.
    await store.complete(
      [{ leaseId: leaseOf('http://idle.test/1'), outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
      c,
    );
    // Another process holds both hosts' rows, as a lease or completion of theirs would.
    const other = new pg.Client({ connectionString: postgres.db });
    await other.connect();
    await other.query('BEGIN');
    await other.query(`SELECT 1 FROM hosts WHERE host IN ('big.test', 'idle.test') FOR UPDATE`);
    const outlinks = ['http://big.test/2', 'http://big.test/1', 'http://idle.test/2'].map((url) => ({
      url,
      depth: 1,
      via: 'http://a.test/',
    }));
    // Were it to wait for those rows, this would not come back until the other commits.
    const done = await store.complete(
      [{ leaseId: leaseOf('http://a.test/'), outcome: { kind: 'done' }, outlinks, rejected: [] }],
      c,
    );
    expect(done.stale).toEqual([]);
    // big.test/1 is known: only the two new ones wait, counted as queued.
    expect(await rows('SELECT url FROM pending_links ORDER BY url')).toEqual([
      { url: 'http://big.test/2' },
      { url: 'http://idle.test/2' },
    ]);
    expect(await store.stats()).toMatchObject({ queued: 2, leased: 1 });
    // While the rows are held, a lease call gets none of them, and says the crawl goes on.
    const meanwhile = await store.lease(10, c);
    expect(meanwhile.leases).toEqual([]);
    expect(meanwhile.ended).toBeNull();
    await other.query('COMMIT');
    await other.end();
    // idle.test's link is queued by the next lease call; big.test's by its page's completion.
    const idle = (await store.lease(10, c)).leases.map((l) => l.url);
    expect(idle).toEqual(['http://idle.test/2']);
    await store.complete(
      [{ leaseId: leaseOf('http://big.test/1'), outcome: { kind: 'done' }, outlinks: [], rejected: [] }],
      c,
    );
    expect(await rows('SELECT url FROM pending_links')).toEqual([]);
    const big = (await store.lease(10, c)).leases.map((l) => l.url);
    expect(big).toEqual(['http://big.test/2']);
    expect(await store.stats()).toMatchObject({ queued: 0, leased: 2 });
    expect(
      await rows(`SELECT count(*)::int AS n FROM crawler_links WHERE url LIKE 'http://big.test/%'`),
    ).toEqual([{ n: 2 }]);
    await store.close();
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
