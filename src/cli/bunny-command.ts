import { resolve } from 'node:path';
import { Command } from 'commander';
import { bunny } from '../assembly/bunny.js';
import { consoleLine } from '../console/access.js';
import { CrawlOptionError } from '../errors.js';
import { ServerUnreachableError } from '../frontier/remote/connection.js';
import { LOG_OPTIONS, stderrLog } from './command-log.js';
import { EXIT } from './exit-codes.js';
import { addConfigFlags, gatherOptions } from './gathered-options.js';
import { bunnyProgressLine, ProgressReporter, summaryJson } from './progress.js';
import { BUNNY_JSON_HELP, QUIET_HELP } from './quiet.js';
import { addRuleOptions, longFlagOf } from './rule-options.js';
import { parseHostPort, QUEUE_OPTIONS } from './server-flags.js';
import { listenForStop } from './stop-signals.js';

/** The crawl options that are each bunny's own: how it fetches. The rest comes from its server. */
const FETCH_OPTIONS = [
  'data',
  'concurrency',
  'parseThreads',
  'userAgent',
  'resolve',
  'allowPrivate',
  'maxBodyBytes',
  'totalTimeoutMs',
  'connectTimeoutMs',
  'firstByteTimeoutMs',
  'warcMaxBytes',
  'modules',
  'moduleTimeoutMs',
  'builtinModules',
  'headers',
  'cookies',
  'proxy',
  'http2',
  'caFile',
  'proxyCaFile',
  'maxTimeMs',
  'browser',
  'renderConcurrency',
  'renderWaitMs',
  'renderMemoryMb',
  'renderRequests',
  'screenshot',
  ...LOG_OPTIONS,
] as const;

/** Options of the server that a bunny has not: its store's folder and seen set, and FETCH_OPTIONS. */
const NOT_A_BUNNYS = [
  'data',
  'fresh',
  'retryFailed',
  'moduleTimeoutMs',
  'builtinModules',
  'seen',
  'seenCapacity',
  'seenFpRate',
  // The crawl's: cobweb crawl's and cobweb server's (a bunny on PostgreSQL takes it from the crawl's row).
  'recrawlAfterMs',
] as const;

/**
 * The crawl's own options, which a bunny on PostgreSQL (--store) gives when it starts the
 * crawl; with --server they are the server's to give.
 */
const CRAWL_OPTIONS = QUEUE_OPTIONS.filter(
  (k): k is Exclude<(typeof QUEUE_OPTIONS)[number], (typeof NOT_A_BUNNYS)[number]> =>
    !(NOT_A_BUNNYS as readonly string[]).includes(k),
);

/**
 * The long flags of the crawl's own options (--delay, --scope, ...), which --server
 * refuses. Not --crawl: with --server it names the server's crawl to work for.
 */
const CRAWL_FLAGS = new Set<string>(
  CRAWL_OPTIONS.filter((k) => k !== 'crawl').map((k) => longFlagOf(k) as string),
);

const BUNNY_DEFAULTS = { data: './cobweb-bunny' };

/**
 * `cobweb bunny`: the crawl loop of `cobweb crawl`, on a server's queue. It adds the
 * URLs it is given, fetches what the server leases it (WARC files in its own --data,
 * named with its crawler id), hands back what it found, and exits when the server says
 * the crawl is over (or waits for more with --wait).
 */
export function bunnyCommand(outcome: { code: number }): Command {
  const command = new Command('bunny')
    .description(
      'crawl for a cobweb server (--server), or straight on PostgreSQL (--store): lease URLs, fetch them, hand back what was found',
    )
    .argument('[url...]', 'URLs to add to the crawl first (seeds)');
  const read = addRuleOptions(command, [...FETCH_OPTIONS, ...CRAWL_OPTIONS], BUNNY_DEFAULTS);
  addConfigFlags(command);
  command
    .option('--server <host:port>', 'the cobweb server', parseHostPort)
    .option('--token <token>', "the server's token (else COBWEB_TOKEN)")
    .option('--wait', 'when the crawl is over, keep asking for more instead of exiting')
    .option('--quiet', QUIET_HELP)
    .option('--json', BUNNY_JSON_HELP);
  return command.action(async (urlArgs: string[], flags: Record<string, unknown>) => {
    const server = flags.server as { host: string; port: number } | undefined;
    if (server !== undefined) refuseCrawlFlags(command);
    // With --server, the server's store is the crawl's: COBWEB_STORE is not this bunny's to use.
    const env = server === undefined ? process.env : { ...process.env, COBWEB_STORE: undefined };
    const gathered = await gatherOptions(command, read, urlArgs, BUNNY_DEFAULTS, env);
    // With --server, --crawl names the server's crawl to work for; not given, the server's own.
    const named = server === undefined || command.getOptionValueSource('crawl') === 'cli';
    const quiet = flags.quiet === true;
    // As cobweb crawl shows it: its own pages and the crawl's queue, live on a terminal.
    const progress = new ProgressReporter(process.stderr, 5000, { line: bunnyProgressLine });
    const stopping = listenForStop(() => progress.finish());
    try {
      const summary = await bunny({
        ...gathered.options,
        ...(named ? {} : { crawl: undefined }),
        seeds: gathered.seeds,
        ...(server === undefined ? {} : { server }),
        ...(typeof flags.token === 'string' ? { token: flags.token } : {}),
        wait: flags.wait === true,
        onLog: stderrLog(quiet, progress),
        // On PostgreSQL, --http's address is printed whatever --quiet says, as by cobweb crawl.
        onConsole: (url, access) => {
          progress.finish();
          const token = resolve(String(gathered.options.data ?? BUNNY_DEFAULTS.data), 'token');
          process.stdout.write(`cobweb: ${consoleLine(url, access.tokenOnEveryRequest, token)}\n`);
        },
        progressMs: progress.intervalMs,
        onProgress: quiet ? undefined : (p) => progress.update(p),
        signal: stopping.signal,
      });
      progress.finish(summary);
      if (flags.json === true) process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
      const signal = stopping.received;
      outcome.code = signal === null ? EXIT.ok : EXIT[signal];
    } catch (err) {
      // A server that could not be reached while a signal stopped the waiting: the signal's code.
      const signal = stopping.received;
      if (err instanceof ServerUnreachableError && signal !== null) {
        process.stderr.write(`cobweb: ${err.message}\n`);
        outcome.code = EXIT[signal];
        return;
      }
      throw err;
    } finally {
      progress.finish();
      stopping.dispose();
    }
  });
}

/** With --server, the crawl's options are the server's: one given here would be ignored, so it is refused. */
function refuseCrawlFlags(command: Command): void {
  for (const option of command.options) {
    if (option.long === undefined || !CRAWL_FLAGS.has(option.long)) continue;
    if (command.getOptionValueSource(option.attributeName()) !== 'cli') continue;
    throw new CrawlOptionError(
      `${option.long} is the crawl's to set: give it to cobweb server (or use the bunny with --store)`,
    );
  }
}
