import type { StopReason } from '../bunny/crawl-loop.js';
import { checkDataDir } from '../data-dir/data-dir.js';
import { layoutOf } from '../data-dir/layout.js';
import { CrawlOptionError } from '../errors.js';
import type { CrawlOptions } from '../options/options.js';
import { requestSetupOf } from '../options/request-setup.js';
import type { BunnyStop, BunnySummary } from './bunny-end.js';
import { runBunnyOnServer } from './bunny-on-server.js';
import { runBunnyOnStore } from './bunny-on-store.js';
import { checkPortFree } from './port-check.js';
import {
  Closers,
  type HostPort,
  hostPortOf,
  runLog,
  StopConditions,
  seedsIfAny,
  settingsOf,
} from './startup.js';

export type { BunnyStop, BunnySummary } from './bunny-end.js';

/** What bunny() takes: the options of fetching (and with `store`, of the crawl), and where its queue is. */
export interface BunnyOptions extends Omit<CrawlOptions, 'seeds'> {
  /** URLs to add to the crawl first. */
  seeds?: readonly string[];
  /**
   * The cobweb server, `HOST:PORT`, whose queue it works on; its `crawl` names the
   * server's crawl to work for (none: the server's own). Else `store` (PostgreSQL).
   */
  server?: string | HostPort;
  /** The server's token; else COBWEB_TOKEN. */
  token?: string;
  /** When the crawl is over, keep asking for more (until the signal) instead of ending. */
  wait?: boolean;
}

/** The bunny's own options, which crawl()'s option table does not have. */
const BUNNY_KEYS = ['seeds', 'server', 'token', 'wait'] as const;

/**
 * Runs a bunny, what `cobweb bunny` runs: the crawl loop of crawl() on a shared queue,
 * a cobweb server's (`server`) or a PostgreSQL store's (`store`). It leases URLs, fetches
 * them, hands back what it found, and resolves with its summary when the crawl is over
 * (or, with `wait`, once `signal` stops it), or at `maxTimeMs`.
 */
export async function bunny(options: BunnyOptions): Promise<BunnySummary> {
  const own: Record<string, unknown> = { ...options };
  for (const key of BUNNY_KEYS) delete own[key];
  const server = options.server === undefined ? undefined : hostPortOf('server', options.server);
  if (server === undefined && options.store === undefined) {
    throw new CrawlOptionError(
      'a bunny needs --server HOST:PORT (a cobweb server) or --store postgres://USER@HOST/DB (or COBWEB_STORE)',
    );
  }
  // With a server, its crawl is the one named, else the server's own.
  const named = server === undefined ? undefined : options.crawl;
  const o = settingsOf({ ...own, seeds: options.seeds ?? [] });
  const requests = requestSetupOf(o);
  const seeds = seedsIfAny(o.seeds);
  const layout = layoutOf(o.data);
  checkDataDir(layout);
  // On PostgreSQL a bunny serves its own console; with a server, the server does.
  if (server === undefined && o.http !== undefined)
    await checkPortFree('--http', hostPortOf('--http', o.http));
  const { log, say } = runLog(o, o.onLog);
  const started = Date.now();
  const closers = new Closers();
  closers.add(() => log.close());
  try {
    // The caller's signal and --max-time stop the bunny alike: the fetches in flight finish
    // and are handed in, its leases go back to the queue.
    const stop = new StopConditions(closers, { signal: o.signal, maxTimeMs: o.maxTimeMs }, (line) =>
      say(line),
    );
    const stoppedBy = (ended: StopReason): BunnyStop =>
      stop.callerStopped
        ? 'signal'
        : stop.maxTimeRanOut
          ? 'max-time'
          : stop.cause === 'console'
            ? 'console'
            : ended;
    const parts = {
      own: o,
      seeds,
      layout,
      wait: options.wait === true,
      signal: stop.signal,
      stopFromConsole: () => {
        if (stop.stop('console')) say('stopping (asked from the console): finishing the fetches in flight');
      },
      say,
      log,
      requests,
      started,
      stoppedBy,
    };
    if (server === undefined) return await runBunnyOnStore(parts);
    return await runBunnyOnServer({
      ...parts,
      server,
      // An empty token is none (COBWEB_TOKEN= in a shell): AUTH cannot carry one.
      token: [options.token, process.env.COBWEB_TOKEN].find(
        (t): t is string => typeof t === 'string' && t !== '',
      ),
      crawl: named,
    });
  } finally {
    await closers.close();
  }
}
