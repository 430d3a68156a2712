import { hash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REQUISITE_RANK } from '../../src/frontier/policy/queue-rank.js';
import { openSchema, SCHEMA_VERSION } from '../../src/frontier/sqlite/schema.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import { prepareStatements, type Statements } from '../../src/frontier/sqlite/statements.js';
import type { Completion, CrawlerId, FrontierSettings, Lease, Outcome } from '../../src/frontier/types.js';
import { URL_STATE } from '../../src/frontier/url-state.js';
import { fingerprint } from '../../src/url/fingerprint.js';
import { TEST_SETTINGS } from './stores.js';

/** The SQLite store's schema over stores earlier cobwebs wrote (schemas 3 and 4). */

const SETTINGS: FrontierSettings = { ...TEST_SETTINGS, perHost: 4, retireAfter: 1 };

/** The seen table's key before schema 4: the first 8 bytes of SHA-1, signed. */
function sha1Key(url: string): bigint {
  return hash('sha1', url, 'buffer').readBigInt64BE(0);
}

function completion(lease: Lease, outcome: Outcome, extra: Partial<Completion> = {}): Completion {
  return { leaseId: lease.id, outcome, report: { fetchMs: 5 }, outlinks: [], rejected: [], ...extra };
}

const link = (url: string) => ({ url, depth: 0, via: null });

let dir: string;
let file: string;
let clock: number;
const now = () => clock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-schema-'));
  file = join(dir, 'frontier.db');
  clock = 1_000_000;
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Leases until every URL of `urls` is leased (each call may give fewer than asked). */
async function leaseUrls(
  f: SqliteFrontier,
  crawler: CrawlerId,
  urls: readonly string[],
): Promise<Map<string, Lease>> {
  const got = new Map<string, Lease>();
  for (let i = 0; i < 20 && urls.some((u) => !got.has(u)); i++) {
    for (const l of (await f.lease(10, crawler)).leases) got.set(l.url, l);
  }
  return got;
}

/**
 * A store with a URL in every state, by the store's own calls: queued, leased, done,
 * failed, rejected, rejected-unlogged, failed-unlogged (a retired host's) and retrying.
 */
async function storeInEveryState(): Promise<CrawlerId> {
  const f = await SqliteFrontier.open(file, SETTINGS, { now });
  const c = await f.registerCrawler('before');
  const refused = ['http://ok.test/refused-1', 'http://ok.test/refused-2'].map((url) => ({
    ...link(url),
    reason: 'scope',
  }));
  const added = await f.add(
    [
      'http://ok.test/0',
      'http://ok.test/1',
      'http://ok.test/2',
      'http://ok.test/3',
      'http://dead.test/0',
    ].map(link),
    refused,
    c,
  );
  // The first refused link's line is written; the second's is not yet.
  await f.acknowledge(added.records.filter((r) => r.url.endsWith('refused-1')).map((r) => r.id));
  const leases = await leaseUrls(f, c, [
    'http://ok.test/0',
    'http://ok.test/1',
    'http://ok.test/2',
    'http://ok.test/3',
  ]);
  const dead = await leaseUrls(f, c, ['http://dead.test/0']);
  await f.add(['http://ok.test/4', 'http://ok.test/5', 'http://dead.test/1'].map(link), [], c);
  const lease = (url: string) => leases.get(url) ?? (dead.get(url) as Lease);
  await f.complete(
    [
      completion(lease('http://ok.test/0'), { kind: 'done' }),
      completion(lease('http://ok.test/1'), { kind: 'failed', error: 'timeout' }),
      completion(lease('http://ok.test/2'), { kind: 'retry', error: 'reset', afterMs: 60_000 }),
      // retireAfter 1: dead.test is given up on, and its queued URL is failed, its line not yet written.
      completion(
        lease('http://dead.test/0'),
        { kind: 'failed', error: 'refused' },
        { report: { fetchMs: 1, connectFailed: true } },
      ),
    ],
    c,
  );
  // http://ok.test/3 stays leased; ok.test/4 and /5 stay queued.
  await f.close();
  return c;
}

function read<T>(sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    db.defaultSafeIntegers(true);
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

function statesByUrl(): Record<string, number> {
  const rows = read<{ url: string; state: bigint }>('SELECT url, state FROM urls ORDER BY seq');
  return Object.fromEntries(rows.map((r) => [r.url, Number(r.state)]));
}

/**
 * Back to what schema 4 wrote, by its own statements: no rank column, the queue indexed
 * by (host, depth), and each host's shallowest queued depth in hosts.min_depth.
 */
function writeSchema4(): void {
  const db = new Database(file);
  try {
    db.exec(`DROP INDEX urls_queue;
      ALTER TABLE urls DROP COLUMN rank;
      CREATE INDEX urls_queue ON urls (host, depth) WHERE state = ${URL_STATE.queued};
      ALTER TABLE hosts RENAME COLUMN min_rank TO min_depth;
      UPDATE hosts SET min_depth = coalesce(
        (SELECT min(depth) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}), min_depth);
      UPDATE meta SET value = '4' WHERE key = 'schema';`);
  } finally {
    db.close();
  }
}

/**
 * Back to what schema 3 wrote, by its own statements: it numbered leased 1 and done 2,
 * indexed them so, and keyed its seen table by SHA-1.
 */
function writeSchema3(): void {
  writeSchema4();
  const db = new Database(file);
  try {
    db.defaultSafeIntegers(true);
    db.exec(`DROP INDEX urls_leased;
      DROP INDEX IF EXISTS urls_fetched;
      UPDATE urls SET state = CASE state WHEN 2 THEN 1 ELSE 2 END WHERE state IN (1, 2);
      CREATE INDEX urls_leased ON urls (due_at) WHERE state = 1;
      CREATE INDEX urls_fetched ON urls (fetched_at) WHERE state = 2;
      DELETE FROM seen;
      UPDATE meta SET value = '3' WHERE key = 'schema';`);
    const insert = db.prepare('INSERT INTO seen (fp) VALUES (?)');
    for (const { url } of db.prepare('SELECT url FROM urls').all() as { url: string }[])
      insert.run(sha1Key(url));
  } finally {
    db.close();
  }
}

describe('a SQLite store of schema 3', () => {
  it('opens as the current schema: every URL keeps its state under the shared numbering, and the counts stay', async () => {
    const before = await storeInEveryState();
    const states = statesByUrl();
    expect(states).toEqual({
      'http://ok.test/refused-1': URL_STATE.rejected,
      'http://ok.test/refused-2': URL_STATE.rejectedUnlogged,
      'http://ok.test/0': URL_STATE.done,
      'http://ok.test/1': URL_STATE.failed,
      'http://ok.test/2': URL_STATE.retrying,
      'http://ok.test/3': URL_STATE.leased,
      'http://dead.test/0': URL_STATE.failed,
      'http://ok.test/4': URL_STATE.queued,
      'http://ok.test/5': URL_STATE.queued,
      'http://dead.test/1': URL_STATE.failedUnlogged,
    });
    const f0 = await SqliteFrontier.open(file, SETTINGS, { now });
    const stats = await f0.stats();
    await f0.close();
    writeSchema3();
    expect(statesByUrl()['http://ok.test/3']).toBe(1);
    expect(statesByUrl()['http://ok.test/0']).toBe(2);

    const f = await SqliteFrontier.open(file, SETTINGS, { now });
    try {
      expect(read<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema'`)).toEqual([
        { value: String(SCHEMA_VERSION) },
      ]);
      expect(statesByUrl()).toEqual(states);
      expect(await f.stats()).toEqual(stats);
      const indexes = Object.fromEntries(
        read<{ name: string; sql: string }>(
          `SELECT name, sql FROM sqlite_master WHERE name IN ('urls_leased', 'urls_fetched')`,
        ).map((r) => [r.name, r.sql]),
      );
      expect(indexes.urls_leased).toMatch(new RegExp(`WHERE state = ${URL_STATE.leased}$`));
      expect(indexes.urls_fetched).toMatch(new RegExp(`WHERE state = ${URL_STATE.done}$`));
      // The seen table holds every URL by the one fingerprint, and nothing else.
      const keys = read<{ fp: bigint }>('SELECT fp FROM seen').map((r) => r.fp);
      expect(new Set(keys)).toEqual(
        new Set(Object.keys(states).map((url) => BigInt.asIntN(64, fingerprint(url)))),
      );

      // It resumes: a URL it had is not new, a new one is.
      const c = await f.registerCrawler('after');
      expect(
        (await f.add(['http://ok.test/0', 'http://ok.test/4', 'http://ok.test/6'].map(link), [], c)).added,
      ).toBe(1);
      // The records whose lines were not written are handed back for the crawler gone.
      expect((await f.reclaimRecords(before)).map((r) => [r.url, r.reason]).sort()).toEqual([
        ['http://dead.test/1', 'host-unreachable'],
        ['http://ok.test/refused-2', 'scope'],
      ]);
      // Once the lease ran out and the retry came due, every URL not final is leased, and the crawl ends.
      clock += 120_000;
      const leased: Lease[] = [];
      for (let i = 0; i < 10; i++) {
        const batch = await f.lease(10, c);
        leased.push(...batch.leases);
        await f.complete(
          batch.leases.map((l) => completion(l, { kind: 'done' })),
          c,
        );
        if (batch.ended !== null) break;
      }
      expect(leased.map((l) => [l.url, l.attempt]).sort()).toEqual([
        ['http://ok.test/2', 2],
        ['http://ok.test/3', 2],
        ['http://ok.test/4', 1],
        ['http://ok.test/5', 1],
        ['http://ok.test/6', 1],
      ]);
      expect(await f.stats()).toMatchObject({
        queued: 0,
        leased: 0,
        retrying: 0,
        done: stats.done + 5,
        expiredLeases: stats.expiredLeases + 1,
      });
    } finally {
      await f.close();
    }
  });
});

describe('a SQLite store of schema 4', () => {
  it('opens with its queue ranked: requisites after every page, in each host and across hosts', async () => {
    const f0 = await SqliteFrontier.open(file, { ...SETTINGS, perHost: 10 }, { now });
    const c0 = await f0.registerCrawler('before');
    await f0.add(
      [
        { url: 'http://a.test/site.css', depth: 1, via: null, kind: 'requisite' as const },
        { url: 'http://b.test/logo.png', depth: 1, via: null, kind: 'requisite' as const },
        { url: 'http://b.test/deep', depth: 3, via: null },
        { url: 'http://c.test/deeper', depth: 4, via: null },
      ],
      [],
      c0,
    );
    await f0.close();
    writeSchema4();
    // What schema 4 kept: a.test's turn by its requisite's depth, before the pages' hosts.
    expect(
      read<{ host: string; min_depth: bigint }>('SELECT host, min_depth FROM hosts ORDER BY host'),
    ).toEqual([
      { host: 'a.test', min_depth: 1n },
      { host: 'b.test', min_depth: 1n },
      { host: 'c.test', min_depth: 4n },
    ]);

    const f = await SqliteFrontier.open(file, { ...SETTINGS, perHost: 10 }, { now });
    try {
      expect(read<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema'`)).toEqual([
        { value: String(SCHEMA_VERSION) },
      ]);
      expect(
        read<{ host: string; min_rank: bigint }>('SELECT host, min_rank FROM hosts ORDER BY host'),
      ).toEqual([
        { host: 'a.test', min_rank: BigInt(REQUISITE_RANK + 1) },
        { host: 'b.test', min_rank: 3n },
        { host: 'c.test', min_rank: 4n },
      ]);
      const c = await f.registerCrawler('after');
      const first = await f.lease(1, c);
      expect(first.leases.map((l) => l.url)).toEqual(['http://b.test/deep']);
      const rest = await f.lease(10, c);
      const got = rest.leases.map((l) => [l.url, l.depth, l.kind]);
      expect(got[0]).toEqual(['http://c.test/deeper', 4, 'page']);
      // The two hosts' requisites share a rank: the order between them is their hosts' turns.
      expect(got.slice(1).sort()).toEqual([
        ['http://a.test/site.css', 1, 'requisite'],
        ['http://b.test/logo.png', 1, 'requisite'],
      ]);
    } finally {
      await f.close();
    }
  });
});

describe("the SQLite store's lease queries", () => {
  it('read the queue and the hosts through their indexes, in the order they want', () => {
    const db = new Database(':memory:');
    try {
      openSchema(db, ':memory:');
      const st = prepareStatements(db);
      const plan = (name: keyof Statements, ...args: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${st[name].source}`).all(...args) as { detail: string }[]).map(
          (r) => r.detail,
        );
      // No "SCAN" of a table and no "USE TEMP B-TREE FOR ORDER BY": the index gives the order.
      expect(plan('headOfHost', 'a.test', 10)).toEqual(['SEARCH urls USING INDEX urls_queue (host=?)']);
      expect(plan('nextRank', -1)).toEqual(['SEARCH hosts USING INDEX hosts_turn (min_rank>?)']);
      expect(plan('readyAtRank', 0, 0, 10)).toEqual([
        'SEARCH hosts USING INDEX hosts_turn (min_rank=? AND ready_at<?)',
      ]);
    } finally {
      db.close();
    }
  });
});
