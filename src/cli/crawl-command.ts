import { resolve } from 'node:path';
import { Command } from 'commander';
import { consoleLine } from '../console/access.js';
import { DEFAULTS } from '../options/options.js';
import { exitCodeOf } from './exit-codes.js';
import { addConfigFlags, gatherOptions } from './gathered-options.js';
import { ProgressReporter, summaryJson, summaryText } from './progress.js';
import { JSON_HELP, printed, QUIET_HELP } from './quiet.js';
import { addRuleOptions } from './rule-options.js';
import { listenForStop } from './stop-signals.js';

/** `cobweb crawl`; the exit code it ends with is left in `outcome.code`. */
export function crawlCommand(outcome: { code: number }): Command {
  const command = new Command('crawl')
    .description('crawl from the seed URLs with the embedded store; the same command again resumes')
    .argument(
      '[seed...]',
      'http(s) URLs to start from (depth 0); or --seeds FILE, or seeds: in --config; none to go on with the crawl in --data',
    );
  const read = addRuleOptions(command);
  addConfigFlags(command);
  command.option('--quiet', QUIET_HELP).option('--json', JSON_HELP);
  return command.action(async (args: string[], flags: Record<string, unknown>) => {
    const quiet = flags.quiet === true;
    const json = flags.json === true;
    const { options: given, seeds } = await gatherOptions(command, read, args);
    const progress = new ProgressReporter(process.stderr, 5000, { maxPages: given.maxPages });
    const stopping = listenForStop(() => progress.finish());
    if (given.ignoreRobots === true && !quiet) {
      process.stderr.write('cobweb: warning: --ignore-robots: robots.txt will not be read or obeyed\n');
    }
    try {
      // The crawl's code loads only once the command line is known to be a crawl.
      const { crawl } = await import('../assembly/crawl.js');
      const summary = await crawl({
        ...given,
        seeds,
        signal: stopping.signal,
        progressMs: progress.intervalMs,
        onProgress: quiet ? undefined : (p) => progress.update(p),
        // The console's address is printed whatever --quiet says: with port 0 nothing else tells it.
        onConsole: (url, access) => {
          progress.finish();
          const token = resolve(String(given.data ?? DEFAULTS.data), 'token');
          process.stdout.write(`cobweb: ${consoleLine(url, access.tokenOnEveryRequest, token)}\n`);
        },
        onLog: (line, level) => {
          if (!printed(level, quiet)) return;
          progress.finish();
          process.stderr.write(`cobweb: ${level === 'warning' ? 'warning: ' : ''}${line}\n`);
        },
      });
      progress.finish(summary);
      if (json) process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
      else if (!quiet) process.stdout.write(`${summaryText(summary)}\n`);
      outcome.code = exitCodeOf(summary, stopping.received);
    } finally {
      stopping.dispose();
    }
  });
}
