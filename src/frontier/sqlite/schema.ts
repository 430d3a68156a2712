import type Database from 'better-sqlite3';

/**
 * One row per URL the crawl has seen, fetched or not: the table is also the URL-seen set
 * (its primary key is the URL's 64-bit fingerprint), until the scalable seen sets land.
 */
export const URL_STATE = {
  queued: 0,
  done: 2,
  failed: 3,
  rejected: 4,
  /** Rejected, but not yet acknowledged as written to pages.jsonl (see Frontier.add). */
  rejectedUnlogged: 5,
} as const;

const SCHEMA_VERSION = 1;

export function openSchema(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives the process being killed (the WAL is written
  // before commit returns); only an OS crash or power cut can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS urls (
      fp INTEGER PRIMARY KEY,
      url TEXT NOT NULL,
      host TEXT NOT NULL,
      depth INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      via TEXT,
      redirects INTEGER NOT NULL DEFAULT 0,
      state INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      error TEXT
    );
    CREATE INDEX IF NOT EXISTS urls_queue ON urls (host, depth, seq) WHERE state = 0;
    CREATE INDEX IF NOT EXISTS urls_unlogged ON urls (seq) WHERE state = 5;
  `);
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as
    | { value: string }
    | undefined;
  if (row === undefined) {
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
  } else if (Number(row.value) !== SCHEMA_VERSION) {
    throw new Error(
      `the store was written by another cobweb version (schema ${row.value}, this one reads ${SCHEMA_VERSION}); use a new --data folder or --fresh`,
    );
  }
}
