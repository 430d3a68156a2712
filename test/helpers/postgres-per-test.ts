import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type PgCluster, postgresUnavailable, startPostgres } from './postgres.js';

export interface PostgresPerTest {
  /** This test's database (a connection string). */
  readonly db: string;
  readonly cluster: PgCluster;
}

/**
 * A test file's PostgreSQL: one throwaway cluster for the file and a new database for
 * each test; where the server binaries are missing, one loud SKIPPED line for the file
 * and every test skipped. Call once at the top level of the file.
 */
export function postgresPerTest(what: string): PostgresPerTest {
  const unavailable = postgresUnavailable();
  if (unavailable !== null) console.warn(`SKIPPED: ${what} (this file's tests): ${unavailable}`);
  let cluster: PgCluster | null = null;
  let db = '';
  beforeAll(async () => {
    if (unavailable === null) cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  beforeEach(async (ctx) => {
    if (unavailable !== null) ctx.skip();
    db = await (cluster as PgCluster).createDatabase();
  });
  return {
    get db() {
      return db;
    },
    get cluster() {
      return cluster as PgCluster;
    },
  };
}
