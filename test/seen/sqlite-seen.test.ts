import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSeenSet } from '../../src/seen/sqlite-seen.js';
import { fps } from './fingerprint-data.js';

/** The store's own table, as several processes on one file use it: one connection each. */

let dir: string;
const dbs: Database.Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-table-seen-'));
});

afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function connect(): { db: Database.Database; set: SqliteSeenSet } {
  const db = new Database(join(dir, 'frontier.db'));
  dbs.push(db);
  return { db, set: new SqliteSeenSet(db) };
}

describe('the table seen set', () => {
  it("counts every connection's marks in size, and none of a transaction rolled back", async () => {
    const a = connect();
    const b = connect();
    await a.set.insertNew(fps(1n, 2n));
    await b.set.insertNew(fps(2n, 3n));
    expect(a.set.size).toBe(3);
    expect(b.set.size).toBe(3);
    expect(() =>
      a.db.transaction(() => {
        a.set.insertNewNow(fps(4n, 5n));
        throw new Error('the queue rows failed');
      })(),
    ).toThrow(/queue rows/);
    expect(a.set.size).toBe(3);
    expect(await b.set.insertNew(fps(4n))).toEqual([true]);
  });
});
