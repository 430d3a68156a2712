import { Command, InvalidArgumentError, Option } from 'commander';
import { crawl } from '../bunny/crawl.js';
import { OptionValueError } from '../bunny/option-kinds.js';
import { type CrawlOptions, DEFAULTS, OPTION_RULES, type OptionRule } from '../bunny/options.js';
import { EXIT, exitCodeOf, type StopSignal } from './exit-codes.js';
import { ProgressReporter, summaryText } from './progress.js';

type Flagged = [key: keyof CrawlOptions, rule: OptionRule & { flag: string }];

/** The options the command line has: every rule with a flag, in the table's order. */
const FLAGGED = Object.entries(OPTION_RULES).filter((e): e is Flagged => e[1].flag !== undefined);

/** commander's Option for a rule: the rule's parser, choices and default, so --help shows them. */
function optionOf([key, rule]: Flagged): Option {
  const option = new Option(rule.flag, rule.help);
  const { kind } = rule;
  if (kind.choices !== undefined) option.choices(kind.choices);
  else if (kind.parse !== undefined) {
    const parse = kind.parse;
    option.argParser((text: string, previous: unknown) => {
      try {
        return parse(text, previous);
      } catch (err) {
        if (err instanceof OptionValueError) throw new InvalidArgumentError(`${err.message}.`);
        throw err;
      }
    });
  }
  const fallback = (DEFAULTS as Record<string, unknown>)[key];
  const shown = typeof fallback === 'string' || (typeof fallback === 'number' && Number.isFinite(fallback));
  if (shown && kind.switch === undefined) option.default(fallback);
  return option;
}

/** `cobweb crawl`; the exit code it ends with is left in `outcome.code`. */
export function crawlCommand(outcome: { code: number }): Command {
  const command = new Command('crawl')
    .description('crawl from the seed URLs with the embedded store; the same command again resumes')
    .argument('<seed...>', 'http(s) URLs to start from (depth 0)');
  const options = FLAGGED.map((flagged) => {
    const option = optionOf(flagged);
    command.addOption(option);
    return [flagged[0], option] as const;
  });
  command.option('--quiet', 'print nothing but errors and warnings (no progress, no summary)');
  return command.action(async (seeds: string[], flags: Record<string, unknown>) => {
    const quiet = flags.quiet === true;
    const given: Record<string, unknown> = {};
    for (const [key, option] of options) given[key] = flags[option.attributeName()];
    const progress = new ProgressReporter(process.stderr);
    const stop = new AbortController();
    let signal: StopSignal | null = null;
    const onSignal = (received: StopSignal) => {
      if (signal !== null) process.exit(EXIT[received]);
      signal = received;
      progress.finish();
      if (!quiet) {
        process.stderr.write('cobweb: stopping: finishing the fetches in flight (again to quit at once)\n');
      }
      stop.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    if (given.ignoreRobots === true) {
      process.stderr.write('cobweb: warning: --ignore-robots: robots.txt will not be read or obeyed\n');
    }
    try {
      const summary = await crawl({
        ...(given as Partial<CrawlOptions>),
        seeds,
        signal: stop.signal,
        progressMs: progress.intervalMs,
        onProgress: quiet ? undefined : (p) => progress.update(p),
        onLog: (line, level) => {
          if (quiet && level === 'info') return;
          progress.finish();
          process.stderr.write(`cobweb: ${level === 'warning' ? 'warning: ' : ''}${line}\n`);
        },
      });
      progress.finish();
      if (!quiet) process.stdout.write(`${summaryText(summary)}\n`);
      outcome.code = exitCodeOf(summary, signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
