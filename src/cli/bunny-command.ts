import { hostname } from 'node:os';
import { Command } from 'commander';
import { canonicalSeeds, linkRulesOf, startModules } from '../assembly/crawl.js';
import { seedLinks } from '../assembly/revisit.js';
import { type SentModule, ServerModules } from '../assembly/server-modules.js';
import type { StopReason } from '../bunny/crawl-loop.js';
import { Crawler, closeAll } from '../bunny/crawler.js';
import { checkDataDir, layoutOf, lockDataDir } from '../data-dir/data-dir.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { CrawlOptionError } from '../errors.js';
import { ServerUnreachableError } from '../frontier/remote/connection.js';
import { RemoteFrontier } from '../frontier/remote/remote-frontier.js';
import { type CrawlOptions, checkCrawlOptions, withDefaults } from '../options/options.js';
import { requestSetupOf } from '../options/request-setup.js';
import { RunCounter } from '../output/run-counts.js';
import { bunnySettingsFrom } from '../server/bunny-settings.js';
import { type BunnyStop, endBunny } from './bunny-end.js';
import { runBunnyOnStore } from './bunny-on-store.js';
import { commandLog, LOG_OPTIONS } from './command-log.js';
import { EXIT, type StopSignal } from './exit-codes.js';
import { addConfigFlags, gatherOptions } from './gathered-options.js';
import { BUNNY_JSON_HELP, QUIET_HELP } from './quiet.js';
import { addRuleOptions, longFlagOf } from './rule-options.js';
import { parseHostPort, QUEUE_OPTIONS } from './server-flags.js';

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

/** How long a bunny with --wait sleeps between two looks at a crawl that is over. */
const WAIT_POLL_MS = 2000;

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
    const given: CrawlOptions = { ...gathered.options, seeds: gathered.seeds };
    if (server === undefined && given.store === undefined) {
      throw new CrawlOptionError(
        'a bunny needs --server HOST:PORT (a cobweb server) or --store postgres://USER@HOST/DB (or COBWEB_STORE)',
      );
    }
    checkCrawlOptions(given);
    const own = withDefaults(given);
    const requests = requestSetupOf(own);
    const seeds = given.seeds.length === 0 ? [] : canonicalSeeds(given.seeds);
    const layout = layoutOf(own.data);
    checkDataDir(layout);
    const { log, say } = commandLog(own, flags.quiet === true);
    const json = flags.json === true;
    const started = Date.now();
    const stop = new AbortController();
    let signal: StopSignal | null = null;
    const onSignal = (received: StopSignal) => {
      if (signal !== null) process.exit(EXIT[received]);
      signal = received;
      // Said even under --quiet, as by cobweb crawl.
      process.stderr.write('cobweb: stopping: finishing the fetches in flight (again to quit at once)\n');
      stop.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // --max-time stops the bunny as a signal would (the fetches in flight finish and are
    // written, its leases go back), and it exits 0: a limit was reached.
    let timedOut = false;
    const timer =
      own.maxTimeMs === undefined
        ? null
        : setTimeout(() => {
            timedOut = true;
            say(`--max-time: ${own.maxTimeMs} ms are up; finishing the fetches in flight`);
            stop.abort();
          }, own.maxTimeMs);
    timer?.unref();
    const stoppedBy = (ended: StopReason): BunnyStop =>
      signal !== null ? 'signal' : timedOut ? 'max-time' : ended === 'signal' ? 'signal' : ended;
    if (server === undefined) {
      try {
        await runBunnyOnStore({
          own,
          seeds,
          layout,
          wait: flags.wait === true,
          signal: stop.signal,
          say,
          log,
          requests,
          end: (run, ended) => endBunny({ ...run, started }, stoppedBy(ended), log, json),
        });
        outcome.code = signal !== null ? EXIT[signal] : EXIT.ok;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        if (timer !== null) clearTimeout(timer);
        log.close();
      }
      return;
    }
    const closers: (() => unknown)[] = [() => log.close()];
    if (timer !== null) closers.push(() => clearTimeout(timer));
    try {
      const frontier = new RemoteFrontier({
        host: server.host,
        port: server.port,
        // An empty token is none (COBWEB_TOKEN= in a shell): AUTH cannot carry one.
        token: [flags.token, process.env.COBWEB_TOKEN].find(
          (t): t is string => typeof t === 'string' && t !== '',
        ),
        name: `bunny@${hostname()}:${process.pid}`,
        // The crawl it names; none: the server's own one.
        crawl: command.getOptionValueSource('crawl') === 'cli' ? given.crawl : undefined,
        // A server that went away is waited for until it is back, and Ctrl-C stops the
        // waiting. Said as a warning (--quiet hides it): nothing has failed yet, and a
        // server that cannot be reached at all ends the bunny with an error line.
        log: (line) => say(line, 'warning'),
        signal: stop.signal,
      });
      closers.push(() => frontier.close());
      // Modules the server sends right after WELCOME are loaded before the first lease.
      const early: SentModule[] = [];
      let pushed: ServerModules | null = null;
      frontier.connection.on('module', (m: SentModule) => {
        if (pushed === null) early.push(m);
        else void pushed.load(m);
      });
      const welcome = await frontier.welcome();
      const crawl = bunnySettingsFrom(welcome.settings);
      if (crawl === null) throw new ServerUnreachableError('the server sent settings this bunny cannot read');
      // Modules record nothing here: what they emit goes to the server with the pages.
      const modules = await startModules(own, null, say);
      closers.push(() => modules.close());
      closers.push(await lockDataDir(layout));
      const allSeeds = [...crawl.seeds, ...seeds];
      // Its modules' records go to the server: this folder keeps no module data files.
      openDataDir(
        layout,
        { settings: linkSettingsOf({ ...own, ...crawl }, allSeeds), fresh: false, modules: [] },
        () => {},
      );
      pushed = new ServerModules(layout.root, modules, say);
      for (const m of early.splice(0)) await pushed.load(m);
      const counts = new RunCounter();
      const crawler = await Crawler.start({
        frontier,
        name: `bunny@${hostname()}:${process.pid}`,
        settings: { ...own, ...crawl, signal: stop.signal },
        rules: linkRulesOf(crawl, allSeeds),
        seeds: allSeeds,
        modules,
        warc: { dir: layout.warc, prefix: (id) => `cobweb-c${id}` },
        requests,
        // The server writes pages.jsonl from the completions: here the lines are only counted, and logged.
        write: (lines) => {
          log.records(lines);
          for (const line of lines) counts.count(line);
        },
        onSettled: (batch) => log.visits(batch),
      });
      closers.push(() => crawler.close());
      const named = command.getOptionValueSource('crawl') === 'cli';
      const which = named ? `, crawl ${given.crawl}` : '';
      const at = `${server.host}:${server.port}`;
      say(`bunny ${crawler.crawler} crawling for ${at}${which}`, 'info', {
        event: 'start',
        crawler: crawler.crawler,
        server: at,
        ...(named ? { crawl: given.crawl } : {}),
        data: layout.root,
      });
      // The server runs a seed's checks, and records what it refuses.
      if (seeds.length > 0) await frontier.add(seedLinks(seeds), [], crawler.crawler);
      let ended = await crawler.loop.run();
      while (ended !== 'signal' && flags.wait === true) {
        await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
        if (stop.signal.aborted) break;
        ended = await crawler.loop.run();
      }
      await endBunny(
        {
          crawler: crawler.crawler,
          crawl: named ? (given.crawl as string) : null,
          where: { server: at },
          frontier,
          counts,
          started,
          warcFiles: crawler.warcFiles,
        },
        stoppedBy(ended),
        log,
        json,
      );
      outcome.code = signal === null ? EXIT.ok : EXIT[signal];
    } catch (err) {
      if (err instanceof ServerUnreachableError) {
        process.stderr.write(`cobweb: ${err.message}\n`);
        outcome.code = signal === null ? EXIT.failed : EXIT[signal];
        return;
      }
      throw err;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await closeAll(closers.reverse());
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
