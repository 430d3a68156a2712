import pg from 'pg';
import { backoffMs } from '../policy/backoff.js';
import { configErrorOf, isConflict, isTransient, PostgresUnreachableError, redacted } from './errors.js';

/** What one transaction may ask: a statement and its rows. */
export type Query = <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<R[]>;

export interface DatabaseOptions {
  /** Connections this process keeps at most. */
  poolSize?: number;
  /** How long a statement may wait for PostgreSQL to come back before the call fails. */
  outageMs?: number;
}

const INT8 = 20;
/** bigint columns hold epoch ms, ids and counts, all far below 2^53: read them as numbers. */
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
};

/** First wait after a lost connection; doubles up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 5000;

/**
 * A pool of connections to one PostgreSQL database, and the one way the store talks to
 * it: transactions that are run again when the server went away (after a back-off,
 * until outageMs has passed) or when PostgreSQL broke a deadlock by rolling one back.
 * A transaction is all-or-nothing, so running it again is safe; what the caller gets
 * back is what the run that committed returned.
 */
export class Database {
  private readonly pool: pg.Pool;
  /** Every statement text gets a name once, so each connection prepares it once. */
  private readonly names = new Map<string, string>();
  private readonly outageMs: number;
  private closed = false;

  constructor(
    readonly url: string,
    options: DatabaseOptions = {},
  ) {
    this.outageMs = options.outageMs ?? 10 * 60_000;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 4,
      types,
      // A connection that dies idle (the server restarted) is dropped from the pool; the
      // error is not the caller's, and an unhandled 'error' would end the process.
      idleTimeoutMillis: 30_000,
    });
    this.pool.on('error', () => {});
  }

  /** The pool itself, for the migrations' session lock. */
  get raw(): pg.Pool {
    return this.pool;
  }

  /**
   * Connects once, to say at start what is wrong with the connection string: a bad
   * password or a missing database is the user's to fix and fails at once; a server that
   * is not up yet is waited for, up to `waitMs`.
   */
  async check(waitMs: number, onWait?: (line: string) => void): Promise<void> {
    await this.retrying(
      waitMs,
      () => this.withClient(async () => {}),
      (err) =>
        onWait?.(
          `PostgreSQL at ${redacted(this.url)} cannot be reached (${err.message}); trying again for up to ${Math.round(waitMs / 1000)} s`,
        ),
    );
  }

  /** Runs `work` in one transaction (READ COMMITTED), again from the start if it must. */
  async transaction<T>(work: (q: Query) => Promise<T>): Promise<T> {
    return this.retrying(this.outageMs, () =>
      this.withClient(async (client, q) => {
        await client.query('BEGIN');
        try {
          const result = await work(q);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          if (!isTransient(err)) await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    );
  }

  /** One statement on its own (a read, or a write that needs no transaction around it). */
  async query<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.retrying(this.outageMs, () => this.withClient((_client, q) => q<R>(sql, params)));
  }

  /**
   * A connection from the pool for `use`. One that broke meanwhile is destroyed, not
   * put back. Its 'error' event is heard while it is out: the server can cut it between
   * two statements (a restart), and an unheard 'error' would end the process.
   */
  private async withClient<T>(use: (client: pg.PoolClient, q: Query) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      return await use(client, this.queryOn(client));
    } catch (err) {
      if (isTransient(err)) broken ??= err as Error;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private queryOn(client: pg.PoolClient): Query {
    return async <R>(sql: string, params: readonly unknown[] = []) => {
      let name = this.names.get(sql);
      if (name === undefined) {
        name = `cobweb_${this.names.size}`;
        this.names.set(sql, name);
      }
      const result = await client.query({ name, text: sql, values: params as unknown[] });
      return result.rows as R[];
    };
  }

  /** Runs `attempt` until it succeeds, waiting out a server that is away for at most `budgetMs`. */
  private async retrying<T>(
    budgetMs: number,
    attempt: () => Promise<T>,
    firstFailure?: (err: Error) => void,
  ): Promise<T> {
    const started = Date.now();
    for (let failures = 0; ; ) {
      if (this.closed) throw new Error('the PostgreSQL store is closed');
      try {
        return await attempt();
      } catch (err) {
        const config = configErrorOf(err, this.url);
        if (config !== null) throw config;
        if (isConflict(err)) continue;
        if (!isTransient(err)) throw err;
        failures++;
        if (failures === 1) firstFailure?.(err as Error);
        const wait = backoffMs(FIRST_WAIT_MS, failures, MAX_WAIT_MS);
        if (Date.now() - started + wait > budgetMs) {
          throw new PostgresUnreachableError(
            `PostgreSQL at ${redacted(this.url)} could not be reached for ${Math.round((Date.now() - started) / 1000)} s: ${(err as Error).message}`,
          );
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
