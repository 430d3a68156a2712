import type { LogLevel } from '../options/options.js';
import { printed } from './quiet.js';

/** The options that say what a command logs; `cobweb server` and `cobweb bunny` take them as `cobweb crawl` does. */
export const LOG_OPTIONS = ['logLevel', 'logFile'] as const;

/**
 * Where `cobweb server` and `cobweb bunny` say their lines (the library's onLog): on
 * stderr unless --quiet, which leaves errors.
 */
export function stderrLog(
  quiet: boolean,
  progress?: { finish(): void },
): (line: string, level: LogLevel) => void {
  return (line, level) => {
    if (!printed(level, quiet)) return;
    // A live progress line is ended first: the log line must not be drawn over it.
    progress?.finish();
    process.stderr.write(`cobweb: ${line}\n`);
  };
}
