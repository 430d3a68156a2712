import { resolve as resolvePath } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { canonicalSeeds, linkRulesOf, openStore, seenOf, startModules } from '../assembly/crawl.js';
import { revisitStore } from '../assembly/revisit.js';
import { FOLDER_HINTS, sharedHints } from '../assembly/seed-lines.js';
import { startServerConsole } from '../assembly/server-console.js';
import { checkSharedStoreOptions, frontierSettingsOf, openSharedStore } from '../assembly/shared-store.js';
import { closeAll } from '../bunny/crawler.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import { serverToken } from '../console/token.js';
import { checkDataDir, type DataLayout, layoutOf, lockDataDir } from '../data-dir/data-dir.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { count } from '../english.js';
import { CrawlOptionError } from '../errors.js';
import type { StoreCall } from '../frontier/timed.js';
import type { LocalFrontier } from '../frontier/types.js';
import { parseHostPort as parseListen } from '../options/option-kinds.js';
import { type CrawlOptions, checkCrawlOptions, DEFAULTS, withDefaults } from '../options/options.js';
import { RunCounter } from '../output/run-counts.js';
import { DEFAULT_CRAWL } from '../protocol/index.js';
import { parseBackoff } from '../server/backoff.js';
import { settingsForBunnies } from '../server/bunny-settings.js';
import type { CrawlOpener } from '../server/crawls.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { startServer } from '../server/start.js';
import { commandLog, LOG_OPTIONS } from './command-log.js';
import { EXIT, type StopSignal } from './exit-codes.js';
import { addConfigFlags, gatherOptions } from './gathered-options.js';
import { storeSummary, summaryJson } from './progress.js';
import { QUIET_HELP, SERVER_JSON_HELP } from './quiet.js';
import { addRuleOptions } from './rule-options.js';
import { parseHostPort, QUEUE_OPTIONS } from './server-flags.js';

const SERVER_DEFAULTS = { data: './cobweb-server' };

function atLeastOne(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number of at least 1, got "${text}".`);
  return n;
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
  const read = addRuleOptions(command, [...QUEUE_OPTIONS, ...LOG_OPTIONS], SERVER_DEFAULTS);
  addConfigFlags(command);
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
    .option('--max-connections <n>', 'connections at once, bunnies and commands', atLeastOne, 256)
    .addOption(
      new Option(
        '--idle-timeout <ms>',
        'close a connection that sent half a packet, or nothing and waits for nothing, this long',
      )
        .argParser(atLeastOne)
        .default(DEFAULT_LIMITS.idleMs, '300000 (5 minutes)'),
    )
    .option('--quiet', QUIET_HELP)
    .option('--json', SERVER_JSON_HELP);
  return command.action(async (seedArgs: string[], flags: Record<string, unknown>) => {
    const gathered = await gatherOptions(command, read, seedArgs, SERVER_DEFAULTS);
    const given: CrawlOptions = { ...gathered.options, seeds: gathered.seeds };
    checkCrawlOptions(given);
    const o = withDefaults(given);
    checkSharedStoreOptions(o);
    const seeds = given.seeds.length === 0 ? [] : canonicalSeeds(given.seeds);
    const listen = flags.listen as { host: string; port: number };
    const skipSubstrings = flags.skipSubstring as string[];
    const layout = layoutOf(o.data);
    checkDataDir(layout);
    const { log, say } = commandLog(o, flags.quiet === true);
    const closers: (() => unknown)[] = [() => log.close()];
    let signal: StopSignal | null = null;
    const started = Date.now();
    try {
      const modules = await startModules(o, layout.moduleData, say);
      closers.push(() => modules.close());
      // A shared store is reached before the folder is touched: a bad password touches nothing.
      const shared = o.store === undefined ? null : await openSharedStore(o, seeds, false);
      if (shared !== null) closers.push(() => shared.close());
      closers.push(await lockDataDir(layout));
      const rules = linkRulesOf({ ...o, skipSubstrings }, seeds);
      // The server's own crawl (--crawl) is the data folder itself when it is the default
      // one, else crawls/NAME in it; its store is the folder's own, or its row in PostgreSQL.
      const own = o.crawl;
      const seedsOf = (name: string) => (name === own ? seeds : []);
      const opened = new Map<string, ReturnType<typeof openDataDir>>();
      const openFolder = (name: string, folder: DataLayout) => {
        const done = openDataDir(
          folder,
          {
            settings: linkSettingsOf(o, seedsOf(name)),
            fresh: o.fresh === true && name === own,
            // A shared store has no seen set in the folder.
            seen: shared === null ? seenOf(o) : undefined,
            modules: modules.names,
          },
          say,
        );
        opened.set(name, done);
        return done;
      };
      // The data folder is marked first (the token goes in it), as the default crawl's.
      openFolder(DEFAULT_CRAWL, layout);
      const openCrawl: CrawlOpener = async (name, folder) => {
        const inRoot = name === DEFAULT_CRAWL;
        const unlock = inRoot ? () => {} : await lockDataDir(folder);
        let store: LocalFrontier | null = null;
        try {
          const { moduleData } = inRoot
            ? (opened.get(name) as ReturnType<typeof openDataDir>)
            : openFolder(name, folder);
          store =
            name === own && shared !== null
              ? shared
              : shared !== null
                ? await openSharedStore({ ...o, crawl: name }, [], false)
                : await openStore(folder, seenOf(o), (line) => say(line, 'warning'), frontierSettingsOf(o));
          const opens = store;
          return {
            store: opens,
            rules: linkRulesOf({ ...o, skipSubstrings }, seedsOf(name)),
            settings: settingsForBunnies({ ...o, skipSubstrings }, seedsOf(name)),
            moduleData,
            close: async () => {
              // The own crawl's shared store is closed last, with the others the command opened.
              if (opens !== shared) await opens.close();
              unlock();
            },
          };
        } catch (err) {
          if (store !== null && store !== shared) await store.close();
          unlock();
          throw err;
        }
      };
      const { token, generated } = serverToken(layout.root, flags.token as string | undefined);
      let quit: () => void = () => {};
      const quitting = new Promise<void>((r) => {
        quit = r;
      });
      const storeCalls = o.http === undefined ? undefined : new Feed<StoreCall>();
      const running = await startServer({
        root: layout.root,
        openCrawl,
        crawl: own,
        modules,
        host: listen.host,
        port: listen.port,
        token,
        modulesDir: typeof flags.modules === 'string' ? resolvePath(flags.modules) : null,
        backoff: flags.backoff as ReturnType<typeof parseBackoff>,
        leaseMs: DEFAULTS.leaseMs,
        limits: { ...DEFAULT_LIMITS, idleMs: flags.idleTimeout as number },
        maxConnections: flags.maxConnections as number,
        log: say,
        onQuit: () => quit(),
        ...(storeCalls === undefined ? {} : { storeCalls }),
      });
      closers.push(() => running.close());
      const { host, port } = running.server.address;
      const listening = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      process.stdout.write(`cobweb: server listening on ${listening}\n`);
      log.event(`server started on ${listening}, data in ${layout.root}`, 'info', {
        event: 'start',
        listen: listening,
        data: layout.root,
        crawl: own,
        store: shared === null ? 'sqlite' : 'postgres',
      });
      // The own crawl's lines, as the server writes them: what this run did, for the summary.
      const counts = new RunCounter();
      closers.push(
        running.lines.on((lines) => {
          for (const line of lines) counts.count(line);
        }),
      );
      if (generated) process.stdout.write(`cobweb: token (also in ${layout.token}): ${token}\n`);
      let stopAsked: (() => void) | null = null;
      const consoleStop = new Promise<void>((r) => {
        stopAsked = r;
      });
      let stopping = false;
      let live: RunningConsole | null = null;
      if (o.http !== undefined && storeCalls !== undefined) {
        const where = parseListen(o.http);
        if (where === null) throw new CrawlOptionError(`--http ${o.http} is not HOST:PORT`);
        live = await startServerConsole({
          running,
          host: where.host,
          port: where.port,
          token,
          tokenHint: `the server's token: --token, COBWEB_TOKEN, or ${layout.token}`,
          storeCalls,
          stop: () => {
            if (stopping) return;
            stopping = true;
            say('stopping (asked from the console): the bunnies are told, their leases go back to the queue');
            stopAsked?.();
          },
          stopping: () => stopping,
        });
        closers.push(() => live?.close());
        // On stdout whatever --quiet says: with port 0 nothing else tells the port.
        process.stdout.write(`cobweb: console on ${live.url} (its actions need the server's token)\n`);
      }
      // A resumed server does what a resumed crawl does: --recrawl-after, --retry-failed, the
      // seeds, the changed rules, on its own crawl.
      const { store } = running.crawl.service;
      const me = await store.registerCrawler(`server@${process.pid}`);
      const revisit = {
        seeds,
        crawler: me,
        rules,
        changed: (opened.get(own) as ReturnType<typeof openDataDir>).changed,
        retryFailed: o.retryFailed === true,
        recrawlAfterMs: o.recrawlAfterMs,
        hints: shared === null ? FOLDER_HINTS : sharedHints(o.crawl),
      };
      const seeded = await revisitStore(store, revisit, say);
      await running.service.writeRecords(seeded.records, me);
      await store.leave(me);
      if (seeds.length > 0) {
        say(
          `${seeded.added + seeded.requeued.length} of ${count(seeds.length, 'seed')} queued${own === DEFAULT_CRAWL ? '' : ` in crawl ${own}`}`,
        );
      }
      const stopped = new Promise<StopSignal>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const how = await Promise.race([
        quitting.then(() => null),
        stopped,
        consoleStop.then(() => 'console' as const),
      ]);
      signal = how === 'console' ? null : how;
      stopping = true;
      const summary = {
        stoppedBy: how === null ? 'quit' : how === 'console' ? 'console' : 'signal',
        crawl: own,
        data: layout.root,
        listen: listening,
        bunnies: running.server.bunniesConnected,
        ...(await storeSummary(store, counts, started)),
      };
      log.event(
        `server stopped (${summary.stoppedBy}): ${count(summary.fetchedThisRun, 'URL')} fetched by its bunnies this run`,
        'info',
        {
          event: 'stop',
          ...summary,
        },
      );
      if (flags.json === true) process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
      await live?.finish(how ?? 'quit');
      if (how === 'console') await running.server.writeLog();
      else if (how !== null) {
        // Said even under --quiet, as by cobweb crawl.
        process.stderr.write('cobweb: stopping: the bunnies are told, their leases go back to the queue\n');
        await running.server.writeLog();
      }
    } finally {
      await closeAll(closers.reverse());
    }
    outcome.code = signal === null ? EXIT.ok : EXIT[signal];
  });
}
