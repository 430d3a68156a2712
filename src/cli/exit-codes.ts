import type { CrawlSummary } from '../options/options.js';

/** What `cobweb` exits with; the README's "Exit codes" table says the same. */
export const EXIT = {
  /** The crawl finished, or stopped at a limit (--max-pages). */
  ok: 0,
  /** The crawl could not run or go on: the --data folder is in use, a disk error, a bug. */
  failed: 1,
  /** The command was wrong: an option, a seed URL, a module, the --data folder. Nothing was touched. */
  usage: 2,
  /** Nothing could be fetched: every URL tried failed without a response (DNS, refused, timeout). wget's "network failure". */
  nothingFetched: 4,
  /** Stopped by Ctrl-C (SIGINT), or by SIGTERM: 128 + the signal's number, as shells report it. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The exit code of a crawl that returned its summary. */
export function exitCodeOf(summary: CrawlSummary, signal: StopSignal | null): number {
  if (summary.stoppedBy === 'signal' && signal !== null) return EXIT[signal];
  // Every URL tried this run failed without a response: the network, the name or the
  // site is down. A resumed crawl with nothing left to do tried nothing: that is fine.
  const failed = Object.values(summary.thisRun.failed).reduce((a, b) => a + b, 0);
  if (summary.fetchedThisRun === 0 && failed > 0 && summary.thisRun.robots === 0) return EXIT.nothingFetched;
  return EXIT.ok;
}
