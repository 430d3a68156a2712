import { CobwebError, type CobwebErrorCode } from '../errors.js';
import type { CrawlSummary } from '../options/options.js';
import { sumCounts } from '../output/run-counts.js';

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

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * The exit code of each error, by its code: the one table the command line reads (and
 * test/cli/error-exit-codes.test.ts holds the README's "Exit codes" table to). `usage`
 * when the command was wrong and nothing was touched; `failed` when the run could not
 * start or go on for a reason outside the command, or for an error that is a bug if it
 * reaches the command line at all.
 */
export const EXIT_OF_ERROR: Readonly<Record<CobwebErrorCode, ExitCode>> = {
  COBWEB_OPTION: EXIT.usage,
  COBWEB_OPTION_VALUE: EXIT.usage,
  COBWEB_MODULE_LOAD: EXIT.usage,
  COBWEB_DATA_DIR: EXIT.usage,
  COBWEB_NOT_A_STORE: EXIT.usage,
  COBWEB_STORE_SPEC: EXIT.usage,
  // A connection string that cannot work (bad password, no such database): the command's fault.
  COBWEB_POSTGRES_CONFIG: EXIT.usage,
  COBWEB_DATA_DIR_BUSY: EXIT.failed,
  COBWEB_SEEN_SET_BUSY: EXIT.failed,
  COBWEB_POSTGRES_UNREACHABLE: EXIT.failed,
  COBWEB_SERVER_UNREACHABLE: EXIT.failed,
  COBWEB_PROTOCOL: EXIT.failed,
  COBWEB_CONTROL: EXIT.failed,
  COBWEB_LATE_START: EXIT.failed,
  COBWEB_FETCH: EXIT.failed,
  COBWEB_DISK_FULL: EXIT.failed,
};

/** The exit code of an error that ends a command, from EXIT_OF_ERROR; null for one that is not cobweb's. */
export function exitCodeOfError(err: unknown): ExitCode | null {
  return err instanceof CobwebError ? EXIT_OF_ERROR[err.code] : null;
}

/** The exit code of a crawl that returned its summary. */
export function exitCodeOf(summary: CrawlSummary, signal: StopSignal | null): number {
  if (summary.stoppedBy === 'signal' && signal !== null) return EXIT[signal];
  // Every URL tried this run failed without a response: the network, the name or the
  // site is down. A resumed crawl with nothing left to do tried nothing: that is fine.
  const failed = sumCounts(summary.thisRun.failed);
  if (summary.fetchedThisRun === 0 && failed > 0 && summary.thisRun.robots === 0) return EXIT.nothingFetched;
  return EXIT.ok;
}
