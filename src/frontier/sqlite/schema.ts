import type Database from 'better-sqlite3';
import { CobwebError } from '../../errors.js';
import { SqliteSeenSet } from '../../seen/sqlite-seen.js';
import { fingerprints } from '../../url/fingerprint.js';
import { REQUISITE_RANK } from '../policy/queue-rank.js';
import { URL_KIND, URL_STATE } from '../url-state.js';
import { TABLE_SEEN } from './seen-gate.js';

// The numbering both stores share (src/frontier/url-state.ts), where the store's files import it from.
export { kindCode, kindOf, URL_KIND, URL_STATE } from '../url-state.js';

/**
 * 4: the URL states numbered as PostgreSQL's (leased 2, done 1: they were 1 and 2), and
 * the seen table's fingerprints MurmurHash3 (they were SHA-1). See migrate3To4.
 * 5: the queue ordered by rank (requisites after every page), not depth. See MIGRATE_4_TO_5.
 */
export const SCHEMA_VERSION = 5;

/**
 * A URL's rank (policy/queue-rank.ts) as SQL: a column computed from depth and kind,
 * never stored (a VIRTUAL column costs the table nothing; the queue's index holds it).
 */
const RANK_SQL = `depth + CASE kind WHEN ${URL_KIND.requisite} THEN ${REQUISITE_RANK} ELSE 0 END`;

/** WAL pages between automatic checkpoints (see openSchema). */
const WAL_CHECKPOINT_PAGES = 10_000;

/** How long a store connection waits for another process's transaction. */
export const BUSY_TIMEOUT_MS = 10_000;

/** SQLite's page cache for a store connection, in KiB. */
export const STORE_CACHE_KIB = 8 * 1024;

/** A file this store wrote, or a fresh one. Anything else is refused with its path. */
export class NotAStoreError extends CobwebError {
  override name = 'NotAStoreError';
  readonly code = 'COBWEB_NOT_A_STORE';
}

export function openSchema(db: Database.Database, file: string): void {
  try {
    db.pragma('journal_mode = WAL');
  } catch (err) {
    throw new NotAStoreError(`${file} is not a cobweb store (${(err as Error).message})`);
  }
  // NORMAL in WAL mode: a commit survives the process being killed (the WAL is written
  // before commit returns); only an OS crash or power cut can lose the last commits.
  db.pragma('synchronous = NORMAL');
  // A checkpoint (the WAL's pages copied into the file) every 10,000 pages written, not
  // SQLite's 1,000: a crawl's commits rewrite the same pages (its hosts, counts, queue
  // heads), and each checkpoint copies them again. The commits of a small-web crawl took
  // 290 to 438 ms of its thread against 355 to 559 (the time BEGIN and COMMIT took, nine
  // alternating pairs, less in each); the WAL file grows to some 40 MB before it is reused.
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  // Several processes may share the file: a writer waits for another's transaction.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // The page cache is memory the process holds for as long as it runs, and a growing
  // store fills whatever it is given (past the cache, pages come from the OS's file
  // cache, a copy away): 8 MiB rather than 64 keeps a crawl's memory within its 300 MB
  // budget (16 MiB left a 200,000-page crawl's peak at 302 MB). See docs/architecture.md,
  // "Memory of a crawling process".
  db.pragma(`cache_size = -${STORE_CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  if (tables.length > 0 && !tables.includes('meta')) {
    throw new NotAStoreError(`${file} is a database, but not a cobweb store`);
  }
  // BEGIN IMMEDIATE: two processes opening a new file at once create the schema once.
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = tables.includes('meta')
      ? (db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get() as string | undefined)
      : undefined;
    if (version !== undefined && Number(version) >= 2 && Number(version) < SCHEMA_VERSION) {
      // Version 2 lacks the recrawl columns and the cookie jar: added in place, before the
      // schema below indexes them. Both number the states as version 3 did.
      if (Number(version) === 2) db.exec(MIGRATE_2_TO_3);
      if (Number(version) <= 3) migrate3To4(db);
      db.exec(MIGRATE_4_TO_5);
      db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema'`).run(String(SCHEMA_VERSION));
    } else if (version !== undefined && Number(version) !== SCHEMA_VERSION) {
      throw new NotAStoreError(
        `${file} was written by another cobweb version (store schema ${version}, this one reads ${SCHEMA_VERSION}); use a new --data folder or --fresh`,
      );
    }
    db.exec(DDL);
    if (version === undefined) {
      db.prepare(`INSERT INTO meta (key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
      db.exec(`INSERT INTO totals (id) VALUES (1)`);
    }
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

/** Done and leased as versions 2 and 3 numbered them, which version 4 swapped. */
const V3_DONE = 2;
const V3_LEASED = 1;

const MIGRATE_2_TO_3 = `
  ALTER TABLE urls ADD COLUMN fetched_at INTEGER;
  ALTER TABLE urls ADD COLUMN etag TEXT;
  ALTER TABLE urls ADD COLUMN last_modified TEXT;
  ALTER TABLE urls ADD COLUMN captured_at INTEGER;
  -- When version 2 fetched a URL is not known: as long ago as can be, so --recrawl-after
  -- takes it (with no validators, the request is not conditional).
  UPDATE urls SET fetched_at = 0 WHERE state = ${V3_DONE};
  CREATE TABLE IF NOT EXISTS cookies (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/**
 * Version 4 to 5, inside openSchema's transaction: the rank column, the queue's index
 * on it instead of depth, and each host's first depth become its first rank, which
 * differs for a host whose queue starts with a requisite.
 */
const MIGRATE_4_TO_5 = `
  ALTER TABLE urls ADD COLUMN rank INTEGER GENERATED ALWAYS AS (${RANK_SQL}) VIRTUAL;
  DROP INDEX IF EXISTS urls_queue;
  CREATE INDEX urls_queue ON urls (host, rank) WHERE state = ${URL_STATE.queued};
  ALTER TABLE hosts RENAME COLUMN min_depth TO min_rank;
  UPDATE hosts SET min_rank = coalesce(
    (SELECT min(rank) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}), min_rank)
    WHERE queued > 0;
`;

/** URL rows read per fingerprint batch while the seen table is filled again. */
const SEEN_REFILL_ROWS = 65_536;

/**
 * Version 3 to 4, inside openSchema's transaction (a crash leaves the file at version 3):
 *
 * - leased and done swap numbers, to the one numbering both stores share. The partial
 *   indexes that name them are dropped first (DDL makes urls_leased again; urls_fetched,
 *   made on demand, is made again if the store had it), so the UPDATE does not move
 *   every done row through them.
 * - the seen table held SHA-1 fingerprints: it is filled again from every URL row with
 *   the one fingerprint (src/url/fingerprint.ts). When another seen set is the store's
 *   (meta 'seen'), the table is stale already and takeTableSeen fills it on its way back.
 */
function migrate3To4(db: Database.Database): void {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  const hadFetchedIndex =
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'urls_fetched'`).get() !==
    undefined;
  db.exec(`DROP INDEX IF EXISTS urls_leased;
    DROP INDEX IF EXISTS urls_fetched;
    UPDATE urls SET state = CASE state WHEN ${V3_LEASED} THEN ${URL_STATE.leased} ELSE ${URL_STATE.done} END
      WHERE state IN (${V3_LEASED}, ${V3_DONE});`);
  if (hadFetchedIndex) ensureFetchedIndex(db);
  const seenKind = db.prepare(`SELECT value FROM meta WHERE key = 'seen'`).pluck().get() as
    | string
    | undefined;
  if (!tables.includes('seen') || (seenKind !== undefined && seenKind !== TABLE_SEEN)) return;
  db.exec('DELETE FROM seen');
  const seen = new SqliteSeenSet(db);
  const page = db.prepare('SELECT seq, url FROM urls WHERE seq > ? ORDER BY seq LIMIT ?');
  for (let last = 0; ; ) {
    const rows = page.all(last, SEEN_REFILL_ROWS) as { seq: number; url: string }[];
    if (rows.length === 0) break;
    seen.insertNewNow(fingerprints(rows.map((r) => r.url)));
    last = (rows[rows.length - 1] as { seq: number }).seq;
  }
}

const DDL = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- The crawl's counts, kept in the transactions that change them, so every process
  -- reads the same numbers and the end of the crawl is decided from them.
  CREATE TABLE IF NOT EXISTS totals (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    queued INTEGER NOT NULL DEFAULT 0,
    leased INTEGER NOT NULL DEFAULT 0,
    retrying INTEGER NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    rejected INTEGER NOT NULL DEFAULT 0,
    stale INTEGER NOT NULL DEFAULT 0,
    expired INTEGER NOT NULL DEFAULT 0
  );

  -- AUTOINCREMENT: an id is never used twice, even after the last crawler's row is gone,
  -- so a pages.jsonl line's crawler names one run only.
  CREATE TABLE IF NOT EXISTS crawlers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    machine TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    left_at INTEGER
  );

  -- seq (insertion order) is the row key, so new rows are appended and completions,
  -- which come in roughly insertion order, touch neighbouring pages.
  CREATE TABLE IF NOT EXISTS urls (
    seq INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    host TEXT NOT NULL,
    depth INTEGER NOT NULL,
    via TEXT,
    redirects INTEGER NOT NULL DEFAULT 0,
    kind INTEGER NOT NULL DEFAULT 0,
    state INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    -- leased: when the lease runs out; retrying: when the URL is due again
    due_at INTEGER,
    -- bumped at every lease, so a lease id (seq and this) names one hand-out only
    lease_gen INTEGER NOT NULL DEFAULT 0,
    released INTEGER NOT NULL DEFAULT 0,
    -- an unlogged record: the crawler it was handed to, to write
    holder INTEGER,
    -- leased: who holds it; finished: who completed it
    crawler INTEGER,
    has_form INTEGER,
    -- done: when, and the validators its response came with (--recrawl-after)
    fetched_at INTEGER,
    etag TEXT,
    last_modified TEXT,
    -- the capture those validators stand for (its WARC-Date), which a 304 keeps
    captured_at INTEGER,
    -- the queue's order (policy/queue-rank.ts): depth, requisites after every page
    rank INTEGER GENERATED ALWAYS AS (${RANK_SQL}) VIRTUAL
  );
  -- an index entry ends with the row key, so this is ordered by (host, rank, seq)
  CREATE INDEX IF NOT EXISTS urls_queue ON urls (host, rank) WHERE state = ${URL_STATE.queued};
  CREATE INDEX IF NOT EXISTS urls_retry ON urls (due_at) WHERE state = ${URL_STATE.retrying};
  CREATE INDEX IF NOT EXISTS urls_leased ON urls (due_at) WHERE state = ${URL_STATE.leased};
  CREATE INDEX IF NOT EXISTS urls_unlogged ON urls (holder)
    WHERE state IN (${URL_STATE.rejectedUnlogged}, ${URL_STATE.failedUnlogged});
  CREATE INDEX IF NOT EXISTS urls_final ON urls (state, error) WHERE state IN (${URL_STATE.failed}, ${URL_STATE.rejected});

  -- The crawl's cookie jar: one row per cookie (domain;path;name), the cookie as JSON.
  CREATE TABLE IF NOT EXISTS cookies (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  -- One row per host: its queue's size and first rank, and when it may next be leased
  -- (ready_at, copied from its politeness budget so one index finds the ready hosts).
  CREATE TABLE IF NOT EXISTS hosts (
    host TEXT PRIMARY KEY,
    budget TEXT NOT NULL,
    queued INTEGER NOT NULL DEFAULT 0,
    min_rank INTEGER NOT NULL DEFAULT 0,
    taken INTEGER NOT NULL DEFAULT 0,
    retired INTEGER NOT NULL DEFAULT 0,
    ready_at INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS hosts_turn ON hosts (min_rank, ready_at) WHERE queued > 0 AND retired = 0;
  CREATE INDEX IF NOT EXISTS hosts_ready ON hosts (ready_at) WHERE queued > 0 AND retired = 0;
  CREATE INDEX IF NOT EXISTS hosts_budget ON hosts (budget);

  -- Politeness per budget: a host, or (--politeness-key ip) every host on one address.
  CREATE TABLE IF NOT EXISTS budgets (
    key TEXT PRIMARY KEY,
    in_flight INTEGER NOT NULL,
    next_at INTEGER NOT NULL,
    gap_ms INTEGER NOT NULL,
    failures INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- robots.txt once per crawl, per origin: the entry the crawl holds (JSON; null before
  -- its first read) and the crawler reading the file now. A rowid table: an entry may be
  -- a whole file, up to 500 KiB, which an index-organized row would copy around.
  CREATE TABLE IF NOT EXISTS robots (
    origin TEXT NOT NULL UNIQUE,
    entry TEXT,
    fetched_at INTEGER NOT NULL DEFAULT 0,
    expires_at INTEGER NOT NULL DEFAULT 0,
    read_by INTEGER,
    read_until INTEGER NOT NULL DEFAULT 0
  );

  -- The crawl's seeds, wherever they were given: their origins (its scope) and the
  -- private addresses they are on (the ones it may reach).
  CREATE TABLE IF NOT EXISTS seed_origins (origin TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS allowed_addresses (address TEXT PRIMARY KEY) WITHOUT ROWID;

  CREATE TABLE IF NOT EXISTS sites (
    origin TEXT PRIMARY KEY,
    address TEXT,
    first_seen INTEGER,
    info TEXT,
    claimed_by INTEGER,
    recorded INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
`;

/**
 * The done URLs by when they were fetched, which --recrawl-after reads: made by the first
 * crawl that asks for it (building it reads the done rows once), and not kept by crawls
 * that never do. Kept, it is a page more in most commits of a crawl (a tenth of what a
 * small-web crawl wrote to its WAL) and some 20 bytes a URL on disk.
 */
export function ensureFetchedIndex(db: Database.Database): void {
  db.exec(`CREATE INDEX IF NOT EXISTS urls_fetched ON urls (fetched_at) WHERE state = ${URL_STATE.done}`);
}
