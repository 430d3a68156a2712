import type { StopReason } from '../bunny/crawl-loop.js';
import type { CrawlerId, Frontier } from '../frontier/types.js';
import type { CrawlLog } from '../output/crawl-log.js';
import type { RunCounter } from '../output/run-counts.js';
import { storeSummary, summaryJson } from './progress.js';

/** Why a bunny stopped: the crawl ended (the store says how), --max-time ran out, or a signal. */
export type BunnyStop = Exclude<StopReason, 'signal'> | 'max-time' | 'signal';

/** What a bunny's run was, for its last line, its log's stop event and --json. */
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
 * The end of a bunny's run, said three ways: one line for people, the log's `stop` event
 * with the summary's numbers, and with --json the summary as one JSON object on stdout.
 * Called while the store is still open: the summary has the crawl's counts.
 */
export async function endBunny(
  run: BunnyRun,
  stoppedBy: BunnyStop,
  log: CrawlLog,
  json: boolean,
): Promise<void> {
  const summary = {
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
        : `the crawl is over (${stoppedBy})`;
  const where =
    run.pagesFile === undefined
      ? `WARC files: ${run.warcFiles.join(', ') || '(none)'}`
      : `pages in ${run.pagesFile}`;
  log.say(`${how}: ${run.counts.fetched} fetched by this bunny; ${where}`, 'info', {
    event: 'stop',
    ...summary,
  });
  if (json) process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
}
