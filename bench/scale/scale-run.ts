// A whole scale run: the web in its own process, a throwaway PostgreSQL when the postgres
// set-up is asked for, then each set-up in turn on the same web (counted afresh each time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { robotsRetryMsOf } from '../../src/options/options.js';
import { type PgCluster, postgresUnavailable, startPostgres } from '../../test/helpers/postgres.js';
import { PG_SETTINGS } from '../postgres/server-settings.js';
import { STATEMENT_SETTINGS, startCountingStatements, statementTable } from './pg-statements.js';
import { runSetup, type SetupResult } from './run-setup.js';
import type { CrawlFlags, SetupName } from './setups.js';
import type { ScaleWebOptions } from './shape.js';
import { type ScaleWebProcess, startScaleWeb } from './web-process.js';

export interface ScaleRunOptions {
  repoDir: string;
  web: ScaleWebOptions;
  setups: readonly SetupName[];
  bunnies: number;
  /** The crawler's --delay (ms) for every host. */
  delayMs: number;
  /** Pages per window; default a tenth of the reachable set, 10^5 from 10^6 pages on. */
  windowPages?: number;
  timeoutSeconds: number;
  /** Also run the server set-up with the seeds given to one bunny and no --allow-private. */
  privateAddressCheck?: boolean;
  /** PostgreSQL with fsync and the benchmark's memory (bench/postgres/server-settings.ts); off for tests. */
  durablePostgres?: boolean;
  /** Count the database's time by statement (pg_stat_statements) and report the top ones. */
  pgStatements?: boolean;
  onStarted?: (web: ScaleWebProcess) => void;
  onResult?: (result: SetupResult) => void;
}

export interface ScaleRun {
  web: ScaleWebProcess['started'];
  results: SetupResult[];
  /** Why a set-up was left out (PostgreSQL's binaries missing). */
  skipped: string[];
}

/** Slack for a gap measured at the web: its clock, timers, and the loopback between a crawler's start and the arrival. */
export const GAP_SLACK_MS = 5;
const MAX_DELAY_MS = 30_000;
/** --retry-delay: a page's first retry; an unreachable robots.txt waits at least a minute (docs/robots.md). */
export const RETRY_DELAY_MS = 1000;
/** How long the crawl keeps an unreachable robots.txt first, then doubling (docs/robots.md). */
export const ROBOTS_RETRY_MS = robotsRetryMsOf({ retryDelayMs: RETRY_DELAY_MS });

export function crawlFlagsFor(delayMs: number, resolve: readonly string[]): CrawlFlags {
  return {
    delayMs,
    crawlFlags: [
      '--delay',
      String(delayMs),
      '--delay-factor',
      '0',
      '--max-delay',
      String(MAX_DELAY_MS),
      // Short waits after a 5xx / 429 (the web's Retry-After is 1 s) and after a dead
      // host's refused connection, so the crawl's end is not minutes of back-off.
      '--retry-delay',
      String(RETRY_DELAY_MS),
      '--host-backoff',
      '500',
    ],
    fetchFlags: [...resolve.flatMap((r) => ['--resolve', r]), '--allow-private'],
  };
}

export async function scaleRun(o: ScaleRunOptions): Promise<ScaleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-scale-'));
  const web = await startScaleWeb(o.repoDir, {
    web: o.web,
    gaps: {
      delayMs: o.delayMs,
      maxDelayMs: MAX_DELAY_MS,
      slackMs: GAP_SLACK_MS,
      robotsRetryMs: ROBOTS_RETRY_MS,
    },
  });
  o.onStarted?.(web);
  const flags = crawlFlagsFor(o.delayMs, web.started.resolve);
  const windowPages =
    o.windowPages ??
    (web.started.reachable >= 1_000_000 ? 100_000 : Math.max(1, Math.ceil(web.started.reachable / 10)));
  const results: SetupResult[] = [];
  const skipped: string[] = [];
  let cluster: PgCluster | null = null;
  try {
    const runs: { setup: SetupName; label: string; seedsToOneBunny?: boolean }[] = o.setups.map((setup) => ({
      setup,
      label:
        setup === 'crawl'
          ? 'cobweb crawl'
          : setup === 'server'
            ? `server + ${o.bunnies} bunnies`
            : setup === 'workbench'
              ? `server (workbench store) + ${o.bunnies} bunnies`
              : `PostgreSQL + ${o.bunnies} bunnies`,
    }));
    if (o.privateAddressCheck === true) {
      runs.push({
        setup: 'server',
        label: 'server + bunnies, seeds to one bunny, no --allow-private',
        seedsToOneBunny: true,
      });
    }
    for (const [i, run] of runs.entries()) {
      let database: string | undefined;
      if (run.setup === 'postgres') {
        const why = postgresUnavailable();
        if (why !== null) {
          skipped.push(`${run.label}: SKIPPED, ${why}`);
          continue;
        }
        cluster ??= await startPostgres({
          durable: o.durablePostgres ?? false,
          settings: {
            ...(o.durablePostgres === true ? PG_SETTINGS : {}),
            ...(o.pgStatements === true ? STATEMENT_SETTINGS : {}),
          },
        });
        database = await cluster.createDatabase();
        if (o.pgStatements === true) await startCountingStatements(database);
      }
      const result = await runSetup({
        setup: run.setup,
        label: run.label,
        repoDir: o.repoDir,
        dir: join(dir, String(i)),
        web: web.started,
        flags,
        bunnies: o.bunnies,
        webProcess: web,
        windowPages,
        timeoutSeconds: o.timeoutSeconds,
        ...(database === undefined ? {} : { database }),
        ...(cluster?.serverPid() === undefined ? {} : { databasePid: cluster.serverPid() }),
        ...(run.seedsToOneBunny === true ? { seedsToOneBunny: true } : {}),
      });
      if (database !== undefined && o.pgStatements === true)
        result.statements = await statementTable(database, result.web.fetched);
      results.push(result);
      o.onResult?.(result);
      rmSync(join(dir, String(i)), { recursive: true, force: true });
    }
  } finally {
    await cluster?.stop();
    await web.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { web: web.started, results, skipped };
}
