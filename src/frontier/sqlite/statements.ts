import type Database from 'better-sqlite3';
import { URL_STATE } from './schema.js';

const S = URL_STATE;

/** Every statement the SQLite store runs more than once, by name. */
const SQL = {
  hostQueues: `SELECT host, queued FROM hosts WHERE queued > 0 ORDER BY queued DESC, host LIMIT ?`,
  hostCounts: `SELECT coalesce(sum(h.retired = 1), 0) AS retired,
         coalesce(sum(h.retired = 0 AND coalesce(b.in_flight, 0) > 0), 0) AS active,
         coalesce(sum(h.retired = 0 AND coalesce(b.in_flight, 0) = 0 AND h.queued > 0), 0) AS waiting
       FROM hosts h LEFT JOIN budgets b ON b.key = h.budget`,
  busiestHosts: `SELECT h.host, h.queued, h.ready_at AS readyAt, coalesce(b.in_flight, 0) AS inFlight,
         coalesce(b.gap_ms, 0) AS gapMs
       FROM hosts h LEFT JOIN budgets b ON b.key = h.budget
       WHERE h.retired = 0 AND (h.queued > 0 OR b.in_flight > 0)
       ORDER BY inFlight DESC, h.queued DESC, h.host LIMIT ?`,
  leaseUrl: `UPDATE urls SET state = ${S.leased}, lease_gen = lease_gen + 1, due_at = ?, crawler = ?, released = 0
    WHERE seq = ? RETURNING lease_gen`,
  leaseOf: `SELECT seq, lease_gen, released, host, rank FROM urls WHERE seq = ? AND state = ${S.leased}`,
  expiredLeases: `SELECT seq FROM urls INDEXED BY urls_leased WHERE state = ${S.leased} AND due_at <= ? ORDER BY due_at`,
  leasesOf: `SELECT seq FROM urls INDEXED BY urls_leased WHERE state = ${S.leased} AND crawler = ?`,
  nextExpiry: `SELECT min(due_at) FROM urls WHERE state = ${S.leased}`,
  markReleased: `UPDATE urls SET released = 1 WHERE seq = ?`,
  extendLease: `UPDATE urls SET due_at = ? WHERE seq = ? AND state = ${S.leased} AND lease_gen = ?`,
  leasedOfHost: `SELECT count(*) FROM urls INDEXED BY urls_leased WHERE state = ${S.leased} AND host = ? AND released = 0`,
  // Two columns keep their stored names (stale, expired): read under the counts' own names.
  totals: `SELECT queued, leased, retrying, done, failed, rejected, stale AS staleCompletions,
         expired AS expiredLeases FROM totals WHERE id = 1`,
  addTotals: `UPDATE totals SET queued = queued + ?, leased = leased + ?, retrying = retrying + ?, done = done + ?,
         failed = failed + ?, rejected = rejected + ?, stale = stale + ?, expired = expired + ? WHERE id = 1`,
  getMeta: `SELECT value FROM meta WHERE key = ?`,
  deleteMeta: `DELETE FROM meta WHERE key = ?`,
  busyBudgets: `SELECT key FROM budgets WHERE in_flight > 0`,
  putMeta: `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  insertCrawler: `INSERT INTO crawlers (name, machine, pid, started, last_seen) VALUES (?, ?, ?, ?, ?)`,
  touchCrawler: `UPDATE crawlers SET last_seen = ? WHERE id = ?`,
  leaveCrawler: `UPDATE crawlers SET left_at = ? WHERE id = ? AND left_at IS NULL`,
  activeCrawlers: `SELECT id, machine, pid, last_seen AS lastSeen, left_at AS leftAt FROM crawlers WHERE left_at IS NULL`,
  insertQueued: `INSERT INTO urls (url, host, depth, via, redirects, kind, state) VALUES (?, ?, ?, ?, ?, ?, ${S.queued})`,
  insertRecord: `INSERT INTO urls (url, host, depth, via, state, error, holder) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  headOfHost: `SELECT seq, url, depth, rank, via, redirects, kind, attempts, fetched_at, etag, last_modified, captured_at
       FROM urls WHERE host = ? AND state = ${S.queued} ORDER BY rank, seq LIMIT ?`,
  nextRank: `SELECT min_rank FROM hosts WHERE queued > 0 AND retired = 0 AND min_rank > ?
         ORDER BY min_rank LIMIT 1`,
  readyAtRank: `SELECT host FROM hosts WHERE queued > 0 AND retired = 0 AND min_rank = ? AND ready_at <= ?
         ORDER BY ready_at LIMIT ?`,
  nextHostReady: `SELECT min(ready_at) FROM hosts WHERE queued > 0 AND retired = 0`,
  setState: `UPDATE urls SET state = ? WHERE seq = ?`,
  markDone: `UPDATE urls SET state = ${S.done}, attempts = attempts + 1, error = NULL, due_at = NULL, crawler = ?, has_form = ?,
    fetched_at = ?, etag = ?, last_modified = ?, captured_at = ? WHERE seq = ?`,
  requeueDone: `UPDATE urls SET state = ${S.queued}, attempts = 0 WHERE seq = ? AND state = ${S.done}`,
  cookies: `SELECT key, value FROM cookies`,
  putCookie: `INSERT INTO cookies (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  deleteCookie: `DELETE FROM cookies WHERE key = ?`,
  getRobots: `SELECT entry, fetched_at, expires_at, read_by, read_until FROM robots WHERE origin = ?`,
  putRobots: `INSERT INTO robots (origin, entry, fetched_at, expires_at, read_by, read_until) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (origin) DO UPDATE SET entry = excluded.entry, fetched_at = excluded.fetched_at,
    expires_at = excluded.expires_at, read_by = excluded.read_by, read_until = excluded.read_until`,
  addSeedOrigin: `INSERT INTO seed_origins (origin) VALUES (?) ON CONFLICT (origin) DO NOTHING`,
  seedOrigins: `SELECT origin FROM seed_origins ORDER BY origin`,
  allowAddress: `INSERT INTO allowed_addresses (address) VALUES (?) ON CONFLICT (address) DO NOTHING`,
  allowedAddresses: `SELECT address FROM allowed_addresses ORDER BY address`,
  markFinal: `UPDATE urls SET state = ?, attempts = attempts + ?, error = ?, due_at = NULL, crawler = ? WHERE seq = ?`,
  markRetrying: `UPDATE urls SET state = ${S.retrying}, attempts = attempts + 1, error = ?, due_at = ? WHERE seq = ?`,
  requeueAfterLease: `UPDATE urls SET state = ${S.queued}, attempts = attempts + ?, due_at = NULL WHERE seq = ?`,
  dueRetries: `SELECT seq, host, rank FROM urls WHERE state = ${S.retrying} AND due_at <= ? ORDER BY due_at`,
  nextRetry: `SELECT min(due_at) FROM urls WHERE state = ${S.retrying}`,
  waitingOfHost: `SELECT seq, url, depth, via, state FROM urls WHERE host = ? AND state IN (${S.queued}, ${S.retrying})`,
  retire: `UPDATE urls SET state = ${S.failedUnlogged}, error = 'host-unreachable', holder = ? WHERE seq = ?`,
  acknowledge: `UPDATE urls SET state = CASE state WHEN ${S.failedUnlogged} THEN ${S.failed} ELSE ${S.rejected} END,
         holder = NULL WHERE seq = ? AND state IN (${S.rejectedUnlogged}, ${S.failedUnlogged})`,
  unlogged: `SELECT seq AS id, url, depth, via, error AS reason, holder FROM urls
       WHERE state IN (${S.rejectedUnlogged}, ${S.failedUnlogged}) ORDER BY seq`,
  setHolder: `UPDATE urls SET holder = ? WHERE seq = ?`,
  orphans: `SELECT seq FROM urls WHERE holder IS NULL AND state IN (${S.rejectedUnlogged}, ${S.failedUnlogged}) LIMIT 1000`,
  recordById: `SELECT seq AS id, url, depth, via, error AS reason FROM urls WHERE seq = ?`,
  storedRow: `SELECT host, rank, kind, state FROM urls WHERE seq = ?`,
  requeueFinal: `UPDATE urls SET state = ${S.queued}, error = NULL, attempts = 0 WHERE seq = ?`,
  requeueSeed: `UPDATE urls SET state = ${S.queued}, error = NULL, attempts = 0, depth = 0, via = NULL WHERE seq = ?`,
  getSite: `SELECT claimed_by, recorded FROM sites WHERE origin = ?`,
  claimNewSite: `INSERT INTO sites (origin, claimed_by, recorded) VALUES (?, ?, 0) ON CONFLICT (origin) DO NOTHING`,
  reclaimSite: `UPDATE sites SET claimed_by = ? WHERE origin = ? AND recorded = 0`,
  recordSite: `INSERT INTO sites (origin, address, first_seen, info, recorded) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (origin) DO UPDATE SET address = excluded.address, first_seen = excluded.first_seen,
         info = excluded.info, recorded = 1`,
  sites: `SELECT origin, address, first_seen, info FROM sites WHERE recorded = 1 ORDER BY first_seen, origin`,
  hostCount: `SELECT count(*) FROM hosts`,
};

/** Statements that answer one value per row (better-sqlite3's pluck). */
const PLUCKED: ReadonlySet<keyof typeof SQL> = new Set([
  'leaseUrl',
  'expiredLeases',
  'leasesOf',
  'nextExpiry',
  'leasedOfHost',
  'getMeta',
  'busyBudgets',
  'nextRank',
  'readyAtRank',
  'nextHostReady',
  'nextRetry',
  'orphans',
  'hostCount',
] as const);

/** What storedRow reads of a URL. */
export interface StoredRow {
  host: string;
  rank: number;
  kind: number;
  state: number;
}

export type Statements = Record<keyof typeof SQL, Database.Statement>;

/** Prepares every statement once, when the store opens. */
export function prepareStatements(db: Database.Database): Statements {
  const out: Partial<Statements> = {};
  for (const [name, sql] of Object.entries(SQL) as [keyof typeof SQL, string][]) {
    const statement = db.prepare(sql);
    out[name] = PLUCKED.has(name) ? statement.pluck() : statement;
  }
  return out as Statements;
}

/** --recrawl-after's URLs due again, oldest first: prepared once the index it reads exists (ensureFetchedIndex). */
export const DUE_AGAIN_SQL = `SELECT u.seq, u.host, u.rank FROM urls u INDEXED BY urls_fetched JOIN hosts h ON h.host = u.host
    WHERE u.state = ${S.done} AND u.fetched_at <= ? AND h.retired = 0 ORDER BY u.fetched_at LIMIT ?`;
