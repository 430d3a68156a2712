import type { LogLevel } from '../options/options.js';
import { printed } from './quiet.js';

/** The options that say what a command logs; `cobweb server` and `cobweb bunny` take them as `cobweb crawl` does. */
export const LOG_OPTIONS = ['logLevel', 'logFile'] as const;

/**
 * Where `cobweb server` and `cobweb bunny` say their lines (the library's onLog): on
 * stderr unless --quiet, which leaves errors.
 */
export function stderrLog(quiet: boolean): (line: string, level: LogLevel) => void {
  return (line, level) => {
    if (printed(level, quiet)) process.stderr.write(`cobweb: ${line}\n`);
  };
}
