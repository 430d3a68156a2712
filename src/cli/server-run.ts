// What `cobweb server` does once its flags are read: loaded only when that command runs.
import { resolve as resolvePath } from 'node:path';
import { canonicalSeeds, linkRulesOf, openDataDir, openStore, seenOf, startModules } from '../bunny/crawl.js';
import { closeAll } from '../bunny/crawler.js';
import { checkDataDir, layoutOf, lockDataDir } from '../bunny/data-dir.js';
import { CrawlOptionError } from '../bunny/errors.js';
import { linkSettingsOf } from '../bunny/marker.js';
import { parseHostPort as parseListen } from '../bunny/option-kinds.js';
import { type CrawlOptions, checkCrawlOptions, DEFAULTS, withDefaults } from '../bunny/options.js';
import { addSeeds } from '../bunny/revisit.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import type { StoreCall } from '../frontier/timed.js';
import type { parseBackoff } from '../server/backoff.js';
import { settingsForBunnies } from '../server/bunny-settings.js';
import { DEFAULT_LIMITS } from '../server/server.js';
import { startServer } from '../server/start.js';
import { serverToken } from '../server/token.js';
import { EXIT, type StopSignal } from './exit-codes.js';

/** Runs `cobweb server` with its options read; the exit code it ends with is left in `outcome.code`. */
export async function runServer(
  given: CrawlOptions,
  seedArgs: string[],
  flags: Record<string, unknown>,
  outcome: { code: number },
): Promise<void> {
  checkCrawlOptions(given);
  const o = withDefaults(given);
  const seeds = seedArgs.length === 0 ? [] : canonicalSeeds(seedArgs);
  const listen = flags.listen as { host: string; port: number };
  const skipSubstrings = flags.skipSubstring as string[];
  const quiet = flags.quiet === true;
  const say = (line: string) => {
    if (!quiet) process.stderr.write(`cobweb: ${line}\n`);
  };
  const layout = layoutOf(o.data);
  checkDataDir(layout);
  const closers: (() => unknown)[] = [];
  let signal: StopSignal | null = null;
  try {
    const modules = await startModules(o, layout.moduleData, (line, level) => {
      if (level !== 'info' || !quiet) process.stderr.write(`cobweb: ${line}\n`);
    });
    closers.push(() => modules.close());
    closers.push(await lockDataDir(layout));
    openDataDir(layout, linkSettingsOf(o, seeds), o.fresh === true, (line) => say(line), seenOf(o));
    const store = await openStore(layout, seenOf(o), say, {
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
    const storeCalls = o.http === undefined ? undefined : new Feed<StoreCall>();
    const running = await startServer({
      layout,
      store,
      modules,
      host: listen.host,
      port: listen.port,
      token,
      modulesDir: typeof flags.modules === 'string' ? resolvePath(flags.modules) : null,
      rules: linkRulesOf({ ...o, skipSubstrings }, seeds),
      backoff: flags.backoff as ReturnType<typeof parseBackoff>,
      settings: settingsForBunnies({ ...o, skipSubstrings }, seeds),
      leaseMs: DEFAULTS.leaseMs,
      limits: { ...DEFAULT_LIMITS, idleMs: flags.idleTimeout as number },
      maxConnections: flags.maxConnections as number,
      log: say,
      onQuit: () => quit(),
      ...(storeCalls === undefined ? {} : { storeCalls }),
    });
    closers.push(() => running.close());
    const { host, port } = running.server.address;
    process.stdout.write(`cobweb: server listening on ${host.includes(':') ? `[${host}]` : host}:${port}\n`);
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
      // The console's code (and prom-client) loads only for a server that has one.
      const { startServerConsole } = await import('../server/server-console.js');
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
      process.stdout.write(`cobweb: console on ${live.url} (its actions need the server's token)\n`);
    }
    if (seeds.length > 0) {
      const me = await store.registerCrawler(`server@${process.pid}`);
      const seeded = await addSeeds(store, seeds, me);
      await running.service.writeRecords(seeded.records, me);
      await store.leave(me);
      say(`${seeded.added} of ${seeds.length} seeds queued`);
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
    await live?.finish(how ?? 'quit');
    if (how === 'console') running.server.writeLog();
    else if (how !== null) {
      say('stopping: the bunnies are told, their leases go back to the queue');
      running.server.writeLog();
    }
  } finally {
    await closeAll(closers.reverse());
  }
  outcome.code = signal === null ? EXIT.ok : EXIT[signal];
}
