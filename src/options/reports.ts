// What a crawl reports: its log levels, its progress while it runs, its summary at the end.

import type { LinkSettings } from '../data-dir/marker.js';
import type { SeenStats } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';
import type { RunCounts } from '../output/run-counts.js';

export type { LogLevel } from '../output/crawl-log.js';

export interface CrawlProgress {
  /** In the store, this run and earlier runs on the same folder: URLs that got a response (any status). */
  done: number;
  /** In the store: URLs given up on without a response (a robots.txt answering 5xx included). */
  failed: number;
  queued: number;
  inFlight: number;
  /** In the store: URLs not fetched because the crawl's rules (filters, too long) or robots.txt refused them. */
  rejected: number;
  /** URLs that got an HTTP response this run, whatever the status. */
  fetchedThisRun: number;
  /** This run: 4xx and 5xx responses, and URLs that failed without one (the summary's "errors"). */
  errorsThisRun: number;
  elapsedMs: number;
  pagesPerSec: number;
  /** The store's seen set: its kind and size, and a bloom filter's estimated false-positive rate as it fills. */
  seen?: SeenStats;
}

export interface CrawlSummary extends CrawlProgress {
  /** Per module (and the library's onPage): calls, errors, timeouts, pages skipped, mean time. */
  modules: ModuleStats[];
  data: string;
  pagesFile: string;
  warcFiles: readonly string[];
  /**
   * Why the crawl ended; 'passes': --passes N were done, and more is queued for the next
   * run; 'console': stopped from the console's Stop; 'max-time': --max-time ran out.
   */
  stoppedBy: 'finished' | 'max-pages' | 'max-time' | 'signal' | 'passes' | 'console';
  /** This run's URLs by outcome: fetched by status class, failed, refused by robots.txt, refused by reason. */
  thisRun: RunCounts;
  /** The options deciding which URLs are followed that differ from the last run on this folder (cobweb.json). */
  changedSettings: (keyof LinkSettings)[];
}
