import { resolve as resolvePath } from 'node:path';
import { consoleLine } from '../console/access.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import { serverToken } from '../console/token.js';
import { checkDataDir, lockDataDir } from '../data-dir/data-dir.js';
import { type DataLayout, layoutOf } from '../data-dir/layout.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { count } from '../english.js';
import { CrawlOptionError } from '../errors.js';
import type { StoreCall } from '../frontier/timed.js';
import type { LocalFrontier } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';
import { moduleStatsText } from '../modules/module-stats-text.js';
import { parseHostPort } from '../options/option-kinds.js';
import type { CrawlOptions, CrawlProgress } from '../options/options.js';
import { RunCounter, type RunCounts } from '../output/run-counts.js';
import { DEFAULT_CRAWL } from '../protocol/index.js';
import type { BackoffStep } from '../server/backoff.js';
import { settingsForBunnies } from '../server/bunny-settings.js';
import type { CrawlOpener } from '../server/crawls.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { type RunningServer, startServer } from '../server/start.js';
import { linkRulesOf, openStore, openWorkbench, seenOf } from './parts.js';
import { checkPortFree } from './port-check.js';
import { revisitStore } from './revisit.js';
import { FOLDER_HINTS, sharedHints } from './seed-lines.js';
import { startServerConsole } from './server-console.js';
import { checkSharedStoreOptions, frontierSettingsOf, openSharedStore } from './shared-store.js';
import {
  Closers,
  type HostPort,
  hostPortOf,
  modulesStoreAndLock,
  runLog,
  seedsIfAny,
  settingsOf,
  storeSummary,
} from './startup.js';

/** What serve() takes: the crawl's options (those of the queue), and the server's own. */
export interface ServeOptions extends Omit<CrawlOptions, 'seeds' | 'maxTimeMs'> {
  /** URLs to start from; none: the bunnies add them. */
  seeds?: readonly string[];
  /** Where bunnies and control commands connect, `HOST:PORT` (default 127.0.0.1:7070; port 0: any free one). */
  listen?: string | HostPort;
  /** The secret clients send; else COBWEB_TOKEN, else DATA/token (made once). */
  token?: string;
  /** Where loadmod finds NAME.mjs or NAME.js; none: loadmod is refused. */
  modulesDir?: string;
  /** Per-server back-off (see parseBackoff). */
  backoff?: readonly BackoffStep[];
  /** URLs containing one of these are refused (like cgi-bin or /~). */
  skipSubstrings?: readonly string[];
  /**
   * The store in the data folder: 'sqlite' (frontier.db, the default), or 'workbench'
   * (the crawl in the server's memory, a journal in workbench/: the faster one).
   */
  frontier?: 'sqlite' | 'workbench';
  /** Connections at once, bunnies and commands. */
  maxConnections?: number;
  /** A connection idle this long (or half a packet) is closed. */
  idleTimeoutMs?: number;
  /** Called once the server listens, before its crawl is revisited: its address, and its token if it made one. */
  onListening?: (listening: {
    listen: string;
    token: string;
    generatedToken: boolean;
    tokenFile: string;
  }) => void;
}

/** How a server stopped: QUIT (`cobweb quit`), the console's Stop, or the caller (its signal, or stop()). */
export type ServerStop = 'quit' | 'console' | 'signal';

/** What a server did, when it stops. */
export interface ServerSummary extends CrawlProgress {
  stoppedBy: ServerStop;
  /** Its own crawl (--crawl). */
  crawl: string;
  data: string;
  /** HOST:PORT it listened on. */
  listen: string;
  /** Bunnies connected when it stopped. */
  bunnies: number;
  /** What its own crawl's lines came to this run. */
  thisRun: RunCounts;
  /** Per module: the calls of the server's site hooks and of its bunnies' page hooks. */
  modules: ModuleStats[];
}

/** A server that serve() started. */
export interface CobwebServerHandle {
  /** HOST:PORT it listens on ([HOST] for IPv6), and the parts of it. */
  listen: string;
  host: string;
  port: number;
  /** The token clients send. */
  token: string;
  /** The console's address (`http` option), or null. */
  consoleUrl: string | null;
  /** The parts inside (the store, the connections): for tests and tools. */
  running: RunningServer;
  /** Stops the server, as its signal would: the bunnies are told, their leases go back to the queue. */
  stop(): void;
  /** Resolves with the summary once the server has stopped and closed everything it opened. */
  done: Promise<ServerSummary>;
  /** stop(), then `done`. */
  close(): Promise<ServerSummary>;
}

/** The server's own options, which crawl()'s option table does not have. */
const SERVER_KEYS = [
  'seeds',
  'listen',
  'token',
  'modulesDir',
  'backoff',
  'skipSubstrings',
  'frontier',
  'maxConnections',
  'idleTimeoutMs',
  'onListening',
] as const;

/**
 * Starts a cobweb server, what `cobweb server` runs: it holds a crawl (its queue, seen set
 * and outputs in `data`) for bunnies, and stops on QUIT, on the console's Stop, on the
 * caller's `signal` or stop(). Resolves once it listens and its own crawl is open and
 * revisited; `done` resolves when it has stopped.
 */
export async function serve(options: ServeOptions): Promise<CobwebServerHandle> {
  const own: Record<string, unknown> = { ...options };
  for (const key of SERVER_KEYS) delete own[key];
  const o = settingsOf({ ...own, seeds: options.seeds ?? [] });
  checkSharedStoreOptions(o);
  if (options.frontier === 'workbench' && o.store !== undefined)
    throw new CrawlOptionError(
      '--frontier workbench keeps the crawl in the --data folder, --store in PostgreSQL: leave out one of them (or COBWEB_STORE)',
    );
  const seeds = seedsIfAny(o.seeds);
  const listenAt =
    options.listen === undefined ? { host: '127.0.0.1', port: 7070 } : hostPortOf('listen', options.listen);
  const skipSubstrings = options.skipSubstrings ?? [];
  const layout = layoutOf(o.data);
  checkDataDir(layout);
  await checkPortFree('--listen', listenAt);
  if (o.http !== undefined) await checkPortFree('--http', hostPortOf('--http', o.http));
  const { log, say } = runLog(o, o.onLog);
  const closers = new Closers();
  closers.add(() => log.close());
  const started = Date.now();
  try {
    const { modules, shared } = await modulesStoreAndLock(o, layout, seeds, say, closers);
    const rules = linkRulesOf({ ...o, skipSubstrings }, seeds);
    // The server's own crawl (--crawl) is the data folder itself when it is the default
    // one, else crawls/NAME in it; its store is the folder's own, or its row in PostgreSQL.
    const ownCrawl = o.crawl;
    const seedsOf = (name: string) => (name === ownCrawl ? seeds : []);
    const opened = new Map<string, ReturnType<typeof openDataDir>>();
    const openFolder = (name: string, folder: DataLayout) => {
      const done = openDataDir(
        folder,
        {
          settings: linkSettingsOf(o, seedsOf(name)),
          fresh: o.fresh === true && name === ownCrawl,
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
          name === ownCrawl && shared !== null
            ? shared
            : shared !== null
              ? await openSharedStore({ ...o, crawl: name }, [], false)
              : options.frontier === 'workbench'
                ? await openWorkbench(folder, frontierSettingsOf(o))
                : await openStore(folder, seenOf(o), (line) => say(line, 'warning'), frontierSettingsOf(o));
        const opens = store;
        return {
          store: opens,
          rules: linkRulesOf({ ...o, skipSubstrings }, seedsOf(name)),
          settings: settingsForBunnies({ ...o, skipSubstrings }, seedsOf(name)),
          moduleData,
          close: async () => {
            // The own crawl's shared store is closed last, with the others serve() opened.
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
    const { token, generated } = serverToken(layout.root, options.token);
    // How the server stops: whichever of these comes first.
    let stopBy: (how: ServerStop) => void = () => {};
    const stopped = new Promise<ServerStop>((resolve) => {
      stopBy = resolve;
    });
    let stopping = false;
    const storeCalls = o.http === undefined ? undefined : new Feed<StoreCall>();
    const running = await startServer({
      root: layout.root,
      openCrawl,
      crawl: ownCrawl,
      modules,
      host: listenAt.host,
      port: listenAt.port,
      token,
      modulesDir: options.modulesDir === undefined ? null : resolvePath(options.modulesDir),
      backoff: options.backoff ?? [],
      leaseMs: o.leaseMs,
      limits: { ...DEFAULT_LIMITS, idleMs: options.idleTimeoutMs ?? DEFAULT_LIMITS.idleMs },
      maxConnections: options.maxConnections ?? 256,
      log: say,
      onQuit: () => stopBy('quit'),
      ...(storeCalls === undefined ? {} : { storeCalls }),
    });
    closers.add(() => running.close());
    const { host, port } = running.server.address;
    const listen = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    options.onListening?.({ listen, token, generatedToken: generated, tokenFile: layout.token });
    log.event(`server started on ${listen}, data in ${layout.root}`, 'info', {
      event: 'start',
      listen,
      data: layout.root,
      crawl: ownCrawl,
      store: shared !== null ? 'postgres' : (options.frontier ?? 'sqlite'),
    });
    // The own crawl's lines, as the server writes them: what this run did, for the summary.
    const counts = new RunCounter();
    closers.add(
      running.lines.on((lines) => {
        for (const line of lines) counts.count(line);
      }),
    );
    let live: RunningConsole | null = null;
    if (o.http !== undefined && storeCalls !== undefined) {
      const where = parseHostPort(o.http);
      if (where === null) throw new CrawlOptionError(`--http ${o.http} is not HOST:PORT`);
      live = await startServerConsole({
        running,
        host: where.host,
        port: where.port,
        token,
        tokenHint: `the server's token: --token, COBWEB_TOKEN, or ${layout.token}`,
        httpAllowHost: o.httpAllowHost,
        metricsOpen: o.metricsOpen,
        warn: (line) => say(line, 'warning'),
        storeCalls,
        stop: () => {
          if (stopping) return;
          stopping = true;
          say('stopping (asked from the console): the bunnies are told, their leases go back to the queue');
          stopBy('console');
        },
        stopping: () => stopping,
      });
      closers.add(() => live?.close());
      if (o.onConsole !== undefined) o.onConsole(live.url, { tokenOnEveryRequest: live.tokenOnEveryRequest });
      else say(consoleLine(live.url, live.tokenOnEveryRequest, 'server'));
    }
    // The caller's signal stops the server as stop() does.
    const signal = o.signal;
    if (signal !== undefined) {
      const abort = () => stopBy('signal');
      if (signal.aborted) abort();
      signal.addEventListener('abort', abort);
      closers.add(() => signal.removeEventListener('abort', abort));
    }
    // A resumed server does what a resumed crawl does: --recrawl-after, --retry-failed, the
    // seeds, the changed rules, on its own crawl.
    const { store } = running.crawl.service;
    const me = await store.registerCrawler(`server@${process.pid}`);
    const revisit = {
      seeds,
      crawler: me,
      rules,
      changed: (opened.get(ownCrawl) as ReturnType<typeof openDataDir>).changed,
      retryFailed: o.retryFailed === true,
      recrawlAfterMs: o.recrawlAfterMs,
      hints: shared === null ? FOLDER_HINTS : sharedHints(o.crawl),
    };
    const seeded = await revisitStore(store, revisit, say);
    await running.service.writeRecords(seeded.records, me);
    await store.leave(me);
    if (seeds.length > 0) {
      say(
        `${seeded.added + seeded.requeued.length} of ${count(seeds.length, 'seed')} queued${ownCrawl === DEFAULT_CRAWL ? '' : ` in crawl ${ownCrawl}`}`,
      );
    }
    const done = (async (): Promise<ServerSummary> => {
      try {
        const how = await stopped;
        stopping = true;
        const summary: ServerSummary = {
          stoppedBy: how,
          crawl: ownCrawl,
          data: layout.root,
          listen,
          bunnies: running.server.bunniesConnected,
          ...(await storeSummary(store, counts, started)),
          modules: modules.stats(),
        };
        const moduleLines = summary.modules.map((m) => `\n  module ${moduleStatsText(m)}`).join('');
        log.event(
          `server stopped (${summary.stoppedBy}): ${count(summary.fetchedThisRun, 'URL')} fetched by its bunnies this run${moduleLines}`,
          'info',
          { event: 'stop', ...summary },
        );
        await live?.finish(how);
        // QUIT wrote the log itself.
        if (how !== 'quit') await running.server.writeLog();
        return summary;
      } finally {
        await closers.close();
      }
    })();
    return {
      listen,
      host,
      port,
      token,
      consoleUrl: live?.url ?? null,
      running,
      stop: () => stopBy('signal'),
      done,
      close: () => {
        stopBy('signal');
        return done;
      },
    };
  } catch (err) {
    await closers.close();
    throw err;
  }
}
