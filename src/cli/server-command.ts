import { resolve as resolvePath } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { canonicalSeeds, linkRulesOf, openDataDir, openStore, seenOf, startModules } from '../bunny/crawl.js';
import { closeAll } from '../bunny/crawler.js';
import { checkDataDir, layoutOf, lockDataDir } from '../bunny/data-dir.js';
import { linkSettingsOf } from '../bunny/marker.js';
import { type CrawlOptions, checkCrawlOptions, DEFAULTS, withDefaults } from '../bunny/options.js';
import { addSeeds } from '../bunny/revisit.js';
import { CRAWL_NAME, DEFAULT_CRAWL } from '../protocol/index.js';
import { parseBackoff } from '../server/backoff.js';
import { settingsForBunnies } from '../server/bunny-settings.js';
import type { CrawlOpener, HeldCrawl } from '../server/crawls.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { startServer } from '../server/start.js';
import { serverToken } from '../server/token.js';
import { EXIT, type StopSignal } from './exit-codes.js';
import { addRuleOptions } from './rule-options.js';

/** The crawl options that belong to the queue (the server's), not to fetching (each bunny's). */
const QUEUE_OPTIONS = [
  'data',
  'fresh',
  'retryFailed',
  'maxPages',
  'maxDepth',
  'scope',
  'include',
  'exclude',
  'perHost',
  'delayMs',
  'delayFactor',
  'maxDelayMs',
  'politenessKey',
  'retries',
  'retryDelayMs',
  'hostBackoffMs',
  'retireAfter',
  'maxPagesPerHost',
  'maxPathSegments',
  'maxSegmentRepeats',
  'maxQueryParams',
  'ignoreRobots',
  'sitemaps',
  'skipExtensions',
  'followNofollow',
  'maxRedirects',
  'moduleTimeoutMs',
  'builtinModules',
  'seen',
  'seenCapacity',
  'seenFpRate',
] as const;

/** --crawl NAME: a plain folder name (the crawl's folder on the server). */
export function parseCrawlName(text: string): string {
  if (!CRAWL_NAME.test(text)) {
    throw new InvalidArgumentError(`expected 1 to 64 letters, digits, "-" or "_", got "${text}".`);
  }
  return text;
}

/** --listen HOST:PORT; an IPv6 host in brackets. */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim());
  if (m === null || Number(m[2]) > 65535) {
    throw new InvalidArgumentError(`expected HOST:PORT, like 127.0.0.1:7070, got "${text}".`);
  }
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `cobweb server`: holds a crawl for bunnies; stops on QUIT (`cobweb quit`), Ctrl-C or SIGTERM. */
export function serverCommand(outcome: { code: number }): Command {
  const command = new Command('server')
    .description(
      'hold a crawl (queue, seen set, outputs) for bunnies; steered by show, quit, modstat, log, read, loadmod',
    )
    .argument('[seed...]', 'http(s) URLs to start from (depth 0); bunnies may add more');
  const read = addRuleOptions(command, QUEUE_OPTIONS, { data: './cobweb-server' });
  command
    .addOption(
      new Option('--listen <host:port>', 'where bunnies and control commands connect')
        .argParser(parseHostPort)
        .default({ host: '127.0.0.1', port: 7070 }, '127.0.0.1:7070'),
    )
    .option('--modules <dir>', 'where loadmod finds NAME.mjs or NAME.js')
    .option(
      '--token <token>',
      'the secret clients send (else COBWEB_TOKEN, else DATA/token, made and printed once)',
    )
    .addOption(
      new Option(
        '--backoff <steps>',
        'per-server back-off: after AFTER URLs of one server, hand out only every EVERY-th (AFTER:EVERY,...)',
      )
        .argParser((text: string) => {
          try {
            return parseBackoff(text);
          } catch (err) {
            throw new InvalidArgumentError(`${(err as Error).message}.`);
          }
        })
        .default([], 'none'),
    )
    .addOption(
      new Option('--skip-substring <text>', 'refuse URLs containing this (like cgi-bin or /~); repeatable')
        .argParser(collect)
        .default([], 'none'),
    )
    .option(
      '--max-connections <n>',
      'connections at once, bunnies and commands',
      (t: string) => {
        const n = Number(t);
        if (!Number.isInteger(n) || n < 1)
          throw new InvalidArgumentError(`expected a whole number of at least 1, got "${t}".`);
        return n;
      },
      256,
    )
    .addOption(
      new Option(
        '--crawl <name>',
        'the crawl the seeds go into; bunnies name theirs with --crawl, and each crawl has its own folder (crawls/NAME), store and seen set',
      )
        .argParser(parseCrawlName)
        .default(DEFAULT_CRAWL),
    )
    .option('--quiet', 'print nothing but errors and warnings');
  return command.action(async (seedArgs: string[], flags: Record<string, unknown>) => {
    const given = { ...read(flags), seeds: seedArgs } as CrawlOptions;
    checkCrawlOptions(given);
    const o = withDefaults(given);
    const seeds = seedArgs.length === 0 ? [] : canonicalSeeds(seedArgs);
    const listen = flags.listen as { host: string; port: number };
    const quiet = flags.quiet === true;
    const say = (line: string) => {
      if (!quiet) process.stderr.write(`cobweb: ${line}\n`);
    };
    const layout = layoutOf(o.data);
    checkDataDir(layout);
    const crawlName = flags.crawl as string;
    const closers: (() => unknown)[] = [];
    let signal: StopSignal | null = null;
    try {
      const modules = await startModules(o, layout.moduleData, (line, level) => {
        if (level !== 'info' || !quiet) process.stderr.write(`cobweb: ${line}\n`);
      });
      closers.push(() => modules.close());
      closers.push(await lockDataDir(layout));
      const frontierSettings = {
        perHost: o.perHost,
        delayMs: o.delayMs,
        delayFactor: o.delayFactor,
        maxDelayMs: o.maxDelayMs,
        backoffMs: o.hostBackoffMs,
        maxBackoffMs: Math.max(o.hostBackoffMs, DEFAULTS.maxHostBackoffMs),
        retireAfter: o.retireAfter,
        key: o.politenessKey,
        maxPagesPerHost: o.maxPagesPerHost,
        leaseMs: DEFAULTS.leaseMs,
        maxPages: o.maxPages,
      };
      // Every crawl takes the server's options; the seeds given here are the --crawl one's.
      const fresh = (name: string) => o.fresh === true && (name === crawlName || name === DEFAULT_CRAWL);
      const seedsOf = (name: string) => (name === crawlName ? seeds : []);
      // The data folder is the default crawl's: marked first (before the token goes in it).
      openDataDir(layout, linkSettingsOf(o, seedsOf(DEFAULT_CRAWL)), fresh(DEFAULT_CRAWL), say, seenOf(o));
      const openCrawl: CrawlOpener = async (name, crawlLayout) => {
        const own = seedsOf(name);
        const isDefault = name === DEFAULT_CRAWL;
        const unlock = isDefault ? () => {} : await lockDataDir(crawlLayout);
        try {
          if (!isDefault) openDataDir(crawlLayout, linkSettingsOf(o, own), fresh(name), say, seenOf(o));
          const store = await openStore(crawlLayout, seenOf(o), say, frontierSettings);
          return {
            store,
            rules: linkRulesOf(o, own),
            settings: settingsForBunnies(o, own),
            close: async () => {
              await store.close();
              unlock();
            },
          };
        } catch (err) {
          unlock();
          throw err;
        }
      };
      const { token, generated } = serverToken(layout.root, flags.token as string | undefined);
      let quit: () => void = () => {};
      const quitting = new Promise<void>((r) => {
        quit = r;
      });
      const running = await startServer({
        root: layout.root,
        openCrawl,
        crawls: [crawlName],
        modules,
        host: listen.host,
        port: listen.port,
        token,
        modulesDir: typeof flags.modules === 'string' ? resolvePath(flags.modules) : null,
        skipSubstrings: flags.skipSubstring as string[],
        backoff: flags.backoff as ReturnType<typeof parseBackoff>,
        leaseMs: DEFAULTS.leaseMs,
        limits: DEFAULT_LIMITS,
        maxConnections: flags.maxConnections as number,
        log: say,
        onQuit: () => quit(),
      });
      closers.push(() => running.close());
      const { host, port } = running.server.address;
      process.stdout.write(
        `cobweb: server listening on ${host.includes(':') ? `[${host}]` : host}:${port}\n`,
      );
      if (generated) process.stdout.write(`cobweb: token (also in ${layout.token}): ${token}\n`);
      if (seeds.length > 0) {
        const { service } = (await running.crawls.get(crawlName, true)) as HeldCrawl;
        const me = await service.store.registerCrawler(`server@${process.pid}`);
        const seeded = await addSeeds(service.store, seeds, me);
        await service.writeRecords(seeded.records, me);
        await service.store.leave(me);
        say(
          `${seeded.added} of ${seeds.length} seeds queued${crawlName === DEFAULT_CRAWL ? '' : ` in crawl ${crawlName}`}`,
        );
      }
      const stopped = new Promise<StopSignal>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const how = await Promise.race([quitting.then(() => null), stopped]);
      signal = how;
      if (how !== null) {
        say('stopping: the bunnies are told, their leases go back to the queue');
        await running.server.writeLog();
      }
    } finally {
      await closeAll(closers.reverse());
    }
    outcome.code = signal === null ? EXIT.ok : EXIT[signal];
  });
}
