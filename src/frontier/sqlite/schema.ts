import type Database from 'better-sqlite3';

/**
 * One row per URL the crawl has seen, fetched or not: the table is also the URL-seen set
 * (a unique index on the URL's 64-bit fingerprint), until the scalable seen sets land.
 */
export const URL_STATE = {
  queued: 0,
  done: 2,
  failed: 3,
  rejected: 4,
  /** Rejected, but not yet acknowledged as written to pages.jsonl (see Frontier.add). */
  rejectedUnlogged: 5,
  /** Failed without a fetch (its host was given up on), not yet written to pages.jsonl. */
  failedUnlogged: 6,
} as const;

export const URL_KIND = { page: 0, sitemap: 1 } as const;

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
    -- seq (insertion order) is the row key, so new rows are appended and completions,
    -- which come in roughly insertion order, touch neighbouring pages: a random key
    -- like the fingerprint would scatter every commit over the whole table.
    CREATE TABLE IF NOT EXISTS urls (
      seq INTEGER PRIMARY KEY,
      fp INTEGER NOT NULL UNIQUE,
      url TEXT NOT NULL,
      host TEXT NOT NULL,
      depth INTEGER NOT NULL,
      via TEXT,
      redirects INTEGER NOT NULL DEFAULT 0,
      kind INTEGER NOT NULL DEFAULT 0,
      state INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      error TEXT
    );
    -- an index entry ends with the row key, so this is ordered by (host, depth, seq)
    CREATE INDEX IF NOT EXISTS urls_queue ON urls (host, depth) WHERE state = 0;
    CREATE TABLE IF NOT EXISTS sites (
      origin TEXT PRIMARY KEY,
      address TEXT,
      first_seen INTEGER NOT NULL,
      info TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS urls_unlogged ON urls (state) WHERE state IN (5, 6);
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
