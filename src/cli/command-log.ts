import type { Settings } from '../options/options.js';
import { CrawlLog, type EventLog } from '../output/crawl-log.js';
import { printed } from './quiet.js';

/** The options that say what a command logs; `cobweb server` and `cobweb bunny` take them as `cobweb crawl` does. */
export const LOG_OPTIONS = ['logLevel', 'logFile'] as const;

/**
 * The log of `cobweb server` and `cobweb bunny`: the crawl's own (crawl-log.ts), at
 * --log-level, into --log-file as JSON lines, and on stderr unless --quiet (which
 * leaves errors). `say` is what the command's parts are handed.
 */
export function commandLog(
  o: Pick<Settings, 'logLevel' | 'logFile'>,
  quiet: boolean,
): { log: CrawlLog; say: EventLog } {
  const log = new CrawlLog(o, (line, level) => {
    if (printed(level, quiet)) process.stderr.write(`cobweb: ${line}\n`);
  });
  return { log, say: (line, level = 'info', fields = {}) => log.say(line, level, fields) };
}
