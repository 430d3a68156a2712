import { resolve as resolvePath } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { canonicalSeeds, linkRulesOf, openStore, seenOf, startModules } from '../bunny/crawl.js';
import { closeAll } from '../bunny/crawler.js';
import { checkDataDir, layoutOf, lockDataDir } from '../bunny/data-dir.js';
import { count } from '../bunny/english.js';
import { linkSettingsOf } from '../bunny/marker.js';
import { openDataDir } from '../bunny/open-data-dir.js';
import {
  type CrawlOptions,
  checkCrawlOptions,
  DEFAULTS,
  type LogLevel,
  withDefaults,
} from '../bunny/options.js';
import { revisitStore } from '../bunny/revisit.js';
import { parseBackoff } from '../server/backoff.js';
import { settingsForBunnies } from '../server/bunny-settings.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { startServer } from '../server/start.js';
import { serverToken } from '../server/token.js';
import { EXIT, type StopSignal } from './exit-codes.js';
import { printed, QUIET_HELP } from './quiet.js';
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
    .option('--quiet', QUIET_HELP);
  return command.action(async (seedArgs: string[], flags: Record<string, unknown>) => {
    const given = { ...read(flags), seeds: seedArgs } as CrawlOptions;
    checkCrawlOptions(given);
    const o = withDefaults(given);
    const seeds = seedArgs.length === 0 ? [] : canonicalSeeds(seedArgs);
    const listen = flags.listen as { host: string; port: number };
    const quiet = flags.quiet === true;
    const say = (line: string, level: LogLevel = 'info') => {
      if (printed(level, quiet)) process.stderr.write(`cobweb: ${line}\n`);
    };
    const layout = layoutOf(o.data);
    checkDataDir(layout);
    const closers: (() => unknown)[] = [];
    let signal: StopSignal | null = null;
    try {
      const modules = await startModules(o, layout.moduleData, say);
      closers.push(() => modules.close());
      closers.push(await lockDataDir(layout));
      const rules = linkRulesOf(o, seeds);
      const opened = openDataDir(
        layout,
        {
          settings: linkSettingsOf(o, seeds),
          fresh: o.fresh === true,
          seen: seenOf(o),
          modules: modules.names,
        },
        say,
      );
      const store = await openStore(layout, seenOf(o), (line) => say(line, 'warning'), {
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
      });
      closers.push(() => store.close());
      const { token, generated } = serverToken(layout.root, flags.token as string | undefined);
      let quit: () => void = () => {};
      const quitting = new Promise<void>((r) => {
        quit = r;
      });
      const running = await startServer({
        layout,
        moduleData: opened.moduleData,
        store,
        modules,
        host: listen.host,
        port: listen.port,
        token,
        modulesDir: typeof flags.modules === 'string' ? resolvePath(flags.modules) : null,
        rules,
        skipSubstrings: flags.skipSubstring as string[],
        backoff: flags.backoff as ReturnType<typeof parseBackoff>,
        settings: settingsForBunnies(o, seeds),
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
      // A resumed server does what a resumed crawl does: --retry-failed, the seeds, the changed rules.
      const me = await store.registerCrawler(`server@${process.pid}`);
      const revisit = {
        seeds,
        crawler: me,
        rules,
        changed: opened.changed,
        retryFailed: o.retryFailed === true,
      };
      const seeded = await revisitStore(store, revisit, say);
      await running.service.writeRecords(seeded.records, me);
      await store.leave(me);
      if (seeds.length > 0) {
        say(`${seeded.added + seeded.requeued.length} of ${count(seeds.length, 'seed')} queued`);
      }
      const stopped = new Promise<StopSignal>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const how = await Promise.race([quitting.then(() => null), stopped]);
      signal = how;
      if (how !== null) {
        // Said even under --quiet, as by cobweb crawl.
        process.stderr.write('cobweb: stopping: the bunnies are told, their leases go back to the queue\n');
        running.server.writeLog();
      }
    } finally {
      await closeAll(closers.reverse());
    }
    outcome.code = signal === null ? EXIT.ok : EXIT[signal];
  });
}
