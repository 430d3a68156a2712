import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import { TEST_SETTINGS } from './stores.js';

// The store's WAL grows to some 40 MB between automatic checkpoints and SQLite never
// makes it smaller by itself: a finished crawl's folder should be its real size.

let dir: string;
let file: string;
/** Another connection to the file (a second process, a reader): the crawl's close is not the last. */
let other: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-wal-'));
  file = join(dir, 'frontier.db');
});
afterEach(() => {
  other?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The WAL's size; a WAL SQLite deleted (the last connection closed) is none. */
const walBytes = () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
/** A second connection that has read the file: it holds the WAL open as another process would. */
function otherConnection(): Database.Database {
  const db = new Database(file);
  db.prepare('SELECT count(*) FROM urls').get();
  return db;
}
const links = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ url: `http://wal.test/${i}`, depth: 0, via: null }));

describe("the SQLite store's WAL", () => {
  it('is cut to nothing when the store closes, though another connection has the file open', async () => {
    const f = new SqliteFrontier(file, TEST_SETTINGS);
    other = otherConnection();
    const crawler = await f.registerCrawler('wal');
    await f.add(links(2000), [], crawler);
    expect(walBytes()).toBeGreaterThan(0);
    await f.close();
    expect(walBytes()).toBe(0);
  });

  it('is cut to nothing when a lease call finds nothing to hand out', async () => {
    const f = new SqliteFrontier(file, TEST_SETTINGS);
    other = otherConnection();
    const crawler = await f.registerCrawler('wal');
    await f.add(links(2000), [], crawler);
    const all = await f.lease(5000, crawler);
    expect(all.leases.length).toBeGreaterThan(0);
    expect(walBytes()).toBeGreaterThan(0);
    // Every URL is leased or waiting for its host: the store is idle.
    const none = await f.lease(10, crawler);
    expect(none.leases).toHaveLength(0);
    expect(walBytes()).toBe(0);
    await f.close();
  });
});
