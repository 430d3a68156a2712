import type Database from 'better-sqlite3';
import type { SeenSet } from './types.js';

/**
 * The embedded store's own seen set: a table of fingerprints in the store's SQLite
 * file, on the store's own connection. The store calls insertNew() inside the
 * transaction that queues the new URLs, so a mark and its queue row commit together:
 * after a crash, a URL the set holds is always queued, done or recorded.
 */
export class SqliteSeenSet implements SeenSet {
  readonly exact = true;
  private readonly insert: Database.Statement;
  private count: number;

  constructor(db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS seen (fp INTEGER PRIMARY KEY)`);
    this.insert = db.prepare(`INSERT OR IGNORE INTO seen (fp) VALUES (?)`);
    this.count = db.prepare(`SELECT count(*) FROM seen`).pluck().get() as number;
  }

  /** Resolves at once: the work is done before it returns, in the caller's transaction. */
  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    return Promise.resolve(this.insertNewNow(fingerprints));
  }

  /** The same, for a caller inside a synchronous transaction. */
  insertNewNow(fingerprints: BigUint64Array): boolean[] {
    const out: boolean[] = new Array(fingerprints.length);
    for (let i = 0; i < fingerprints.length; i++) {
      // SQLite integers are signed 64-bit: the same bits, read as signed.
      const isNew = this.insert.run(BigInt.asIntN(64, fingerprints[i] as bigint)).changes === 1;
      out[i] = isNew;
      if (isNew) this.count++;
    }
    return out;
  }

  /** Marks are committed with the store's transaction; nothing is left to write. */
  async flush(): Promise<void> {}

  async close(): Promise<void> {}

  get size(): number {
    return this.count;
  }
}
