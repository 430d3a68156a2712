import type { StopReason } from '../bunny/crawl-loop.js';
import type { CrawlerId, Frontier } from '../frontier/types.js';
import type { CrawlProgress } from '../options/options.js';
import type { CrawlLog } from '../output/crawl-log.js';
import type { RunCounter, RunCounts } from '../output/run-counts.js';
import { storeSummary } from './startup.js';

/**
 * Why a bunny stopped: the crawl ended (the store says how), --max-time ran out, the
 * caller's signal, or the Stop of its own console (a bunny on PostgreSQL with --http).
 */
export type BunnyStop = Exclude<StopReason, 'signal'> | 'max-time' | 'signal' | 'console';

/** What a bunny did, when it stops: how it ended, what it fetched, the crawl's counts. */
export interface BunnySummary extends CrawlProgress {
  stoppedBy: BunnyStop;
  crawler: CrawlerId;
  /** The crawl it worked for (null: its server's own). */
  crawl: string | null;
  /** With a server: its HOST:PORT. */
  server?: string;
  /** Straight on PostgreSQL. */
  store?: 'postgres';
  /** What this bunny's lines came to this run. */
  thisRun: RunCounts;
  /** Its own pages.jsonl (a bunny on PostgreSQL writes one; a server's bunny does not). */
  pagesFile?: string;
  warcFiles: readonly string[];
}

/** How long a bunny with --wait sleeps between two looks at a crawl that is over. */
const WAIT_POLL_MS = 2000;

/** Runs a bunny's loop until the crawl is over, or (`wait`) until it is stopped. */
export async function runUntilOver(
  loop: { run(): Promise<StopReason> },
  wait: boolean,
  signal: AbortSignal,
): Promise<StopReason> {
  let ended = await loop.run();
  while (ended !== 'signal' && wait) {
    await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    if (signal.aborted) break;
    ended = await loop.run();
  }
  return ended;
}

/** What a bunny's run was, for its last line, its log's stop event and its summary. */
export interface BunnyRun {
  crawler: CrawlerId;
  /** The crawl it worked for (null: the server's own), and where: `server` (HOST:PORT) or `store` (PostgreSQL). */
  crawl: string | null;
  where: { server: string } | { store: 'postgres' };
  frontier: Pick<Frontier, 'stats'>;
  counts: RunCounter;
  started: number;
  warcFiles: readonly string[];
  /** Its own pages.jsonl (a bunny on PostgreSQL writes one; a server's bunny does not). */
  pagesFile?: string;
}

/**
 * The end of a bunny's run: one line for people, and the log's `stop` event with the
 * summary's numbers; the summary is returned. Called while the store is still open: the
 * summary has the crawl's counts.
 */
export async function endBunny(run: BunnyRun, stoppedBy: BunnyStop, log: CrawlLog): Promise<BunnySummary> {
  const summary: BunnySummary = {
    stoppedBy,
    crawler: run.crawler,
    crawl: run.crawl,
    ...run.where,
    ...(await storeSummary(run.frontier, run.counts, run.started)),
    ...(run.pagesFile === undefined ? {} : { pagesFile: run.pagesFile }),
    warcFiles: run.warcFiles,
  };
  const how =
    stoppedBy === 'signal'
      ? 'stopped by signal'
      : stoppedBy === 'max-time'
        ? 'stopped at --max-time (its leases go back to the queue)'
        : stoppedBy === 'console'
          ? 'stopped from the console (its leases go back to the queue)'
          : `the crawl is over (${stoppedBy})`;
  const where =
    run.pagesFile === undefined
      ? `WARC files: ${run.warcFiles.join(', ') || '(none)'}`
      : `pages in ${run.pagesFile}`;
  log.say(`${how}: ${run.counts.fetched} fetched by this bunny; ${where}`, 'info', {
    event: 'stop',
    ...summary,
  });
  return summary;
}
