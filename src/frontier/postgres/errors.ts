/**
 * How the store tells PostgreSQL's errors apart: the ones that a wait cures (the server
 * restarting, a connection cut), the ones that trying again at once cures (two
 * transactions that locked in opposite orders), and the ones the user must fix.
 */

import { CobwebError } from '../../errors.js';

/** A connection string that cannot work as given (bad password, no such database, no such user). */
export class PostgresConfigError extends CobwebError {
  override name = 'PostgresConfigError';
  readonly code = 'COBWEB_POSTGRES_CONFIG';
}

/** PostgreSQL could not be reached for longer than the store waits. */
export class PostgresUnreachableError extends CobwebError {
  override name = 'PostgresUnreachableError';
  readonly code = 'COBWEB_POSTGRES_UNREACHABLE';
}

interface PgError {
  code?: string;
  message?: string;
  /** The constraint a violation is of. */
  constraint?: string;
}

/** SQLSTATEs and socket codes of a server that is restarting, starting or gone for a moment. */
const TRANSIENT = new Set([
  '57P01', // admin_shutdown: pg_ctl stop/restart cut the connection
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
]);

/** True when waiting and trying the whole transaction again may succeed. */
export function isTransient(err: unknown): boolean {
  const e = err as PgError;
  if (e === null || typeof e !== 'object') return false;
  if (e.code !== undefined && (TRANSIENT.has(e.code) || e.code.startsWith('08'))) return true;
  // node-postgres says this when the socket closes under a query
  return /Connection terminated|connection is closed|Client has encountered a connection error/i.test(
    e.message ?? '',
  );
}

/**
 * Deadlock or serialization failure: PostgreSQL rolled the transaction back; run it again.
 * So is a URL inserted twice into the seen set: links to queue are inserted without ON
 * CONFLICT once a probe under their hosts' locks found them new (link-inserts.ts), and a
 * transaction that records the same URL as rejected, without that host's lock, can commit
 * in between. Run again, the probe finds it.
 */
export function isConflict(err: unknown): boolean {
  const e = err as PgError | null;
  if (e?.code === '23505') return e.constraint === SEEN_SET;
  return e?.code === '40P01' || e?.code === '40001';
}

/** The unique index that is each crawl's seen set (migration 1's name for it). */
const SEEN_SET = 'crawler_links_crawl_fingerprint_key';

/**
 * The error a user can fix, as one line that says what to do, or null. The password is
 * never repeated; the connection string is shown without it.
 */
export function configErrorOf(err: unknown, url: string): PostgresConfigError | null {
  const e = err as PgError | null;
  const where = redacted(url);
  switch (e?.code) {
    case '28P01':
      return new PostgresConfigError(
        `PostgreSQL refused the password for ${where}: check the user and password in --store (or COBWEB_STORE, or PGPASSWORD)`,
      );
    case '28000':
      return new PostgresConfigError(
        `PostgreSQL refused ${where}: ${e.message ?? 'not authorized'}; check the user in --store and the server's pg_hba.conf`,
      );
    case '3D000':
      return new PostgresConfigError(
        `the database in ${where} does not exist: create it first (createdb NAME), or name another`,
      );
    default:
      return null;
  }
}

/** The connection string without its password, to print. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'the --store connection string';
  }
}
