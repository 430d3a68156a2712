import type { LogLevel } from '../options/options.js';

/** --quiet, the same for crawl, server and bunny. */
export const QUIET_HELP =
  'print nothing but errors, and the "stopping:" line of a signal (no progress, summary, warnings or notes)';

/** Whether a line of this level is printed: under --quiet only errors are. */
export function printed(level: LogLevel, quiet: boolean): boolean {
  return !quiet || level === 'error';
}

/** --json, for crawl. */
export const JSON_HELP =
  'print the final summary as one JSON object on stdout (instead of the text summary), for scripts';

/** --json, for server: what it prints when it stops. */
export const SERVER_JSON_HELP =
  "when it stops, print its summary as one JSON object on stdout (how it stopped, its crawl's counts, this run's lines), for scripts";

/** --json, for bunny. */
export const BUNNY_JSON_HELP =
  "when it stops, print its summary as one JSON object on stdout (how it ended, what it fetched, the crawl's counts), for scripts";
