import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSeenSet } from '../../seen/sqlite-seen.js';
import { fingerprint } from '../../url/fingerprint.js';
import { openSchema } from './schema.js';
import { SeenSetBusyError, seenSetHeld, TABLE_SEEN } from './seen-gate.js';

/** A connection to the store file, its schema created or checked (openSchema). */
export function schemaConnection(file: string): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    openSchema(db, file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * With no held seen set, this handle uses the store's own table, which every process
 * on the file shares. A store whose set another process holds is refused; one whose
 * set nobody holds now goes back to its table, filled again from every URL row.
 */
export function takeTableSeen(db: Database.Database, file: string): void {
  const kind = db.prepare(`SELECT value FROM meta WHERE key = 'seen'`).pluck().get() as string | undefined;
  if (kind === undefined || kind === TABLE_SEEN) return;
  if (seenSetHeld(file)) {
    throw new SeenSetBusyError(
      `${file} is being crawled with the ${kind} seen set, which one process holds; reach that crawl through its server (cobweb://HOST:PORT)`,
    );
  }
  const seen = new SqliteSeenSet(db);
  const page = db.prepare('SELECT seq, url FROM urls WHERE seq > ? ORDER BY seq LIMIT 65536');
  db.transaction(() => {
    db.exec('DELETE FROM seen');
    for (let last = 0; ; ) {
      const rows = page.all(last) as { seq: number; url: string }[];
      if (rows.length === 0) break;
      seen.insertNewNow(BigUint64Array.from(rows, (r) => BigInt.asUintN(64, fingerprint(r.url))));
      last = (rows[rows.length - 1] as { seq: number }).seq;
    }
    db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('seen', ?)`).run(TABLE_SEEN);
  }).immediate();
}
