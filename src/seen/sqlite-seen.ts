import type Database from 'better-sqlite3';
import type { SeenSet } from './types.js';

/**
 * The embedded store's own seen set: a table of fingerprints in the store's SQLite
 * file, on the store's own connection. The store calls insertNew() inside the
 * transaction that queues the new URLs, so a mark and its queue row commit together:
 * after a crash, a URL the set holds is always queued, done or recorded. Every process
 * on the file shares the table.
 */
export class SqliteSeenSet implements SeenSet {
  readonly exact = true;
  private readonly insert: Database.Statement;
  private readonly count: Database.Statement;
  private closed = false;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS seen (fp INTEGER PRIMARY KEY)`);
    this.insert = db.prepare(`INSERT OR IGNORE INTO seen (fp) VALUES (?)`);
    this.count = db.prepare(`SELECT count(*) FROM seen`).pluck();
  }

  /** Resolves at once: the work is done before it returns, in the caller's transaction. */
  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    try {
      return Promise.resolve(this.insertNewNow(fingerprints));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The same, for a caller inside a synchronous transaction (outside one, it is its own). */
  insertNewNow(fingerprints: BigUint64Array): boolean[] {
    if (this.closed) throw new Error('the seen set is closed');
    const run = () => {
      const out: boolean[] = new Array(fingerprints.length);
      for (let i = 0; i < fingerprints.length; i++) {
        // SQLite integers are signed 64-bit: the same bits, read as signed.
        out[i] = this.insert.run(BigInt.asIntN(64, fingerprints[i] as bigint)).changes === 1;
      }
      return out;
    };
    return this.db.inTransaction ? run() : this.db.transaction(run)();
  }

  /** Marks are committed with the store's transaction; nothing is left to write. */
  async flush(): Promise<void> {}

  /** The connection is the store's: it closes it. */
  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * Counted in the table, not in this process: other processes on the file add to it,
   * and a transaction that rolls back takes its marks with it.
   */
  get size(): number {
    return this.count.get() as number;
  }
}
