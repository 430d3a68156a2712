import type { LogLevel } from '../bunny/options.js';

/** --quiet, the same for crawl, server and bunny. */
export const QUIET_HELP =
  'print nothing but errors, and the "stopping:" line of a signal (no progress, summary, warnings or notes)';

/** Whether a line of this level is printed: under --quiet only errors are. */
export function printed(level: LogLevel, quiet: boolean): boolean {
  return !quiet || level === 'error';
}
