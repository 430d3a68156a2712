import { hostname } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { Crawler, closeAll } from '../bunny/crawler.js';
import { type LinkRules, linkRulesFrom } from '../bunny/links.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import {
  checkDataDir,
  checkStore,
  crawlLayoutOf,
  type DataLayout,
  layoutOf,
  lockDataDir,
} from '../data-dir/data-dir.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { count } from '../english.js';
import { CrawlOptionError, DataDirError, ModuleLoadError } from '../errors.js';
import { NotAStoreError } from '../frontier/sqlite/schema.js';
import type { StoreSeenOptions } from '../frontier/sqlite/seen-gate.js';
import { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import { type StoreCall, timedStore } from '../frontier/timed.js';
import { BUILTIN_MODULES } from '../modules/builtin/index.js';
import { ModuleHost } from '../modules/module-host.js';
import {
  type CrawlOptions,
  type CrawlProgress,
  type CrawlSummary,
  checkCrawlOptions,
  type LogLevel,
  type Settings,
  withDefaults,
} from '../options/options.js';
import { requestSetupOf } from '../options/request-setup.js';
import { CrawlLog } from '../output/crawl-log.js';
import { type PageRecord, PagesLog } from '../output/pages-log.js';
import { RunCounter } from '../output/run-counts.js';
import { canonicalize } from '../url/canonicalize.js';
import { GuardedOnPage } from './on-page.js';
import { runPasses } from './passes.js';
import { progressOf } from './progress-of.js';
import { revisitStore } from './revisit.js';
import { FOLDER_HINTS, sharedHints } from './seed-lines.js';
import { checkSharedStoreOptions, frontierSettingsOf, openSharedStore } from './shared-store.js';

export { CrawlOptionError };

/** Canonical seed URLs, or a CrawlOptionError naming the first bad one. */
export function canonicalSeeds(seeds: readonly string[]): string[] {
  if (seeds.length === 0)
    throw new CrawlOptionError('no seed URL given; try: cobweb crawl https://example.com');
  return seeds.map((seed) => {
    const c = canonicalize(seed);
    if (c.ok) return c.url;
    const why =
      c.reason === 'unsupported-scheme'
        ? 'only http:// and https:// URLs can be crawled'
        : c.reason === 'too-long'
          ? 'it is longer than 2083 characters'
          : 'it is not a valid absolute URL';
    throw new CrawlOptionError(`bad seed URL "${seed}": ${why}`);
  });
}

/**
 * Runs a whole crawl in this process with the embedded store: what `cobweb crawl` does.
 * Run it again with the same `data` folder and it resumes where it stopped.
 */
export async function crawl(options: CrawlOptions): Promise<CrawlSummary> {
  // Start-up order: whatever can be refused is refused before the data folder is
  // touched, and nothing in it is touched before its lock is held.
  checkCrawlOptions(options);
  const o = withDefaults(options);
  checkSharedStoreOptions(o);
  const seeds = canonicalSeeds(options.seeds);
  // --crawl NAME: on a folder store the crawl's own folder, crawls/NAME in --data (the
  // default crawl's is --data itself); on PostgreSQL its row, the outputs in --data.
  const layout = o.store === undefined ? crawlLayoutOf(o.data, o.crawl) : layoutOf(o.data);
  checkDataDir(layout);
  const requests = requestSetupOf(o);
  const crawlLog = new CrawlLog(
    o,
    o.onLog ?? ((line: string, _level: LogLevel) => process.stderr.write(`cobweb: ${line}\n`)),
  );
  const log = (line: string, level: LogLevel) => crawlLog.say(line, level);

  // Everything opened is closed in reverse order, whatever fails on the way.
  const closers: (() => unknown)[] = [() => crawlLog.close()];
  try {
    // The modules the user asked for load (and pass their selfTests) before the folder is touched.
    const moduleHost = await startModules(o, layout.moduleData, log);
    closers.push(() => moduleHost.close());
    // A shared store is reached before the folder is touched: a bad password touches nothing.
    const shared = o.store === undefined ? null : await openSharedStore(o, seeds, false);
    if (shared !== null) closers.push(() => shared.close());
    closers.push(await lockDataDir(layout));
    const settings = linkSettingsOf(o, seeds);
    const { changed: changedSettings } = openDataDir(
      layout,
      {
        settings,
        fresh: o.fresh === true,
        // A shared store has no seen set in the folder.
        seen: shared === null ? seenOf(o) : undefined,
        modules: moduleHost.names,
      },
      log,
    );

    const started = Date.now();
    crawlLog.event(`crawl started: ${count(seeds.length, 'seed')}, data in ${layout.root}`, 'info', {
      event: 'start',
      seeds,
      data: layout.root,
      store: o.store === undefined ? 'sqlite' : 'postgres',
    });
    const frontier =
      shared ?? (await openStore(layout, seenOf(o), (line) => log(line, 'warning'), frontierSettingsOf(o)));
    if (shared === null) closers.push(() => frontier.close());
    const pages = new PagesLog(layout.pages);
    closers.push(() => pages.close());
    const counts = new RunCounter();
    const rules = linkRulesOf(o, seeds);
    const onRecord = o.onRecord;
    // What the console hears (--http): the lines as they are written, the store's calls timed.
    const written = new Feed<readonly PageRecord[]>();
    const storeCalls = new Feed<StoreCall>();
    const write = (lines: readonly PageRecord[]) => {
      pages.append(lines);
      crawlLog.records(lines);
      written.emit(lines);
      for (const line of lines) counts.count(line);
      if (onRecord !== undefined) for (const line of lines) callSafely('onRecord', () => onRecord(line), log);
    };
    const onPage = o.onPage === undefined ? null : new GuardedOnPage(o.onPage, o.moduleTimeoutMs, log);
    // The caller's signal, or the console's Stop: the same clean stop.
    const halt = new AbortController();
    let stoppedHere = false;
    let timedOut = false;
    if (o.maxTimeMs !== undefined) {
      // --max-time stops the way a signal does: the fetches in flight finish and are written.
      const timer = setTimeout(() => {
        timedOut = true;
        log(`--max-time: ${o.maxTimeMs} ms are up; finishing the fetches in flight`, 'info');
        halt.abort();
      }, o.maxTimeMs);
      closers.push(() => clearTimeout(timer));
    }
    const abort = () => halt.abort();
    if (options.signal?.aborted === true) halt.abort();
    options.signal?.addEventListener('abort', abort);
    closers.push(() => options.signal?.removeEventListener('abort', abort));
    const run = await Crawler.start({
      frontier: o.http === undefined ? frontier : timedStore(frontier, (call) => storeCalls.emit(call)),
      name: `crawl@${hostname()}:${process.pid}`,
      settings: { ...o, signal: halt.signal },
      rules,
      seeds,
      modules: moduleHost,
      onPage: onPage?.call,
      warc: { dir: layout.warc },
      write,
      requests,
      onSettled: (batch) => crawlLog.visits(batch),
    });
    closers.push(() => run.close());
    const { crawler, loop } = run;
    const moduleStats = () => [...moduleHost.stats(), ...(onPage === null ? [] : [onPage.stats()])];
    let live: RunningConsole | null = null;
    if (o.http !== undefined) {
      // The console's code (and prom-client) loads only for a crawl that has one.
      const { startCrawlConsole } = await import('./crawl-console.js');
      live = await startCrawlConsole({
        http: o.http,
        layout,
        frontier,
        run,
        rules,
        modules: moduleStats,
        stop: () => {
          if (halt.signal.aborted) return;
          stoppedHere = true;
          log('stopping (asked from the console): finishing the fetches in flight', 'info');
          halt.abort();
        },
        stopping: () => halt.signal.aborted,
        lines: written,
        storeCalls,
      });
      closers.push(() => live?.close());
      const url = live.url;
      if (o.onConsole !== undefined) callSafely('onConsole', () => o.onConsole?.(url), log);
      else log(`console on ${url} (its actions need the token in ${layout.token})`, 'info');
    }

    const progress = async (): Promise<CrawlProgress> => progressOf(await frontier.stats(), counts, started);
    const onProgress = o.onProgress;
    if (onProgress !== undefined) {
      const tick = () => void progress().then((p) => callSafely('onProgress', () => onProgress(p), log));
      const ticker = setInterval(tick, o.progressMs);
      closers.push(() => clearInterval(ticker));
    }

    // Lines a killed run stored but never wrote: write them now.
    await loop.record(await frontier.reclaimRecords(crawler));
    const revisited = await revisitStore(
      frontier,
      {
        seeds,
        crawler,
        rules,
        changed: changedSettings,
        retryFailed: o.retryFailed === true,
        recrawlAfterMs: o.recrawlAfterMs,
        hints: shared === null ? FOLDER_HINTS : sharedHints(o.crawl),
      },
      log,
    );
    await loop.record(revisited.records);
    const ended =
      o.passes === undefined
        ? await loop.run()
        : await runPasses(o.passes, {
            frontier: frontier as SqliteFrontier,
            runLoop: () => loop.run(),
            fetched: () => counts.fetched,
            mark: (line) => pages.appendMarker(line),
            passesFile: layout.passes,
            dataDir: layout.root,
            onPass: o.onPass,
            log,
          });
    const stoppedBy =
      ended !== 'signal'
        ? ended
        : stoppedHere
          ? 'console'
          : timedOut && options.signal?.aborted !== true
            ? 'max-time'
            : ended;
    await live?.finish(stoppedBy);
    const end = await progress();
    const seen = frontier instanceof SqliteFrontier ? frontier.seenStats() : null;
    if (seen !== null && typeof seen.estimatedFpRate === 'number') {
      // A bloom filter loses new URLs at this rate now: say so, since nothing else can.
      log(
        `bloom seen set: ${count(seen.size, 'URL')} of its capacity ${String(seen.capacity)}; a new URL is now taken as seen (and never crawled) with probability ${seen.estimatedFpRate.toExponential(2)}`,
        seen.size > Number(seen.capacity) ? 'warning' : 'info',
      );
    }
    crawlLog.event(
      `crawl stopped (${stoppedBy}): ${count(end.fetchedThisRun, 'URL')} fetched this run`,
      'info',
      {
        event: 'stop',
        stoppedBy,
        ...end,
      },
    );
    return {
      ...end,
      data: layout.root,
      pagesFile: layout.pages,
      warcFiles: run.warcFiles,
      stoppedBy,
      thisRun: counts.snapshot(),
      changedSettings,
      modules: moduleStats(),
    };
  } finally {
    await closeAll(closers.reverse());
  }
}

/** canonicalize -> filter's rules, from the options: scope (around the seeds), filters, traps, limits. */
export function linkRulesOf(o: LinkOptionsOf, seeds: readonly string[]): LinkRules {
  return linkRulesFrom({
    filter: {
      scope: o.scope,
      seeds,
      include: o.include ?? [],
      exclude: o.exclude ?? [],
      skipExtensions: o.skipExtensions,
      skipSubstrings: o.skipSubstrings ?? [],
    },
    traps: {
      maxPathSegments: o.maxPathSegments,
      maxSegmentRepeats: o.maxSegmentRepeats,
      maxQueryParams: o.maxQueryParams,
    },
    maxDepth: o.maxDepth,
    maxRedirects: o.maxRedirects,
  });
}

type LinkOptionsOf = Pick<
  Settings,
  | 'scope'
  | 'include'
  | 'exclude'
  | 'skipExtensions'
  | 'maxPathSegments'
  | 'maxSegmentRepeats'
  | 'maxQueryParams'
  | 'maxDepth'
  | 'maxRedirects'
> & {
  /** A server's --skip-substring (the crawl command has none). */
  skipSubstrings?: readonly string[] | undefined;
};

/**
 * Starts loading the modules: the built-ins on the crawl's own thread, the others on the
 * modules' thread, and waits for their verdicts. One the user asked for that cannot be
 * loaded stops the crawl before it starts; a built-in that failed to load would be a
 * broken build, and is said as an error.
 */
export async function startModules(
  o: Pick<Settings, 'builtinModules' | 'modules' | 'moduleTimeoutMs'>,
  dataDir: string | null,
  log: (line: string, level: LogLevel) => void,
): Promise<ModuleHost> {
  const own = (o.modules ?? []).map((p) => (p.startsWith('file:') ? p : resolvePath(p)));
  const host = ModuleHost.start({
    paths: [...(o.builtinModules ? BUILTIN_MODULES : []), ...own],
    inline: BUILTIN_MODULES,
    dataDir,
    timeoutMs: o.moduleTimeoutMs,
    log,
  });
  // Waited for even with only the built-ins (they load on this thread, at once): the
  // data folder lists the names of the modules that write files there before it opens.
  const reports = await host.loaded;
  for (const r of reports.slice(0, reports.length - own.length)) {
    if (r.refused !== undefined) log(`built-in module ${r.path} cannot be loaded: ${r.refused}`, 'error');
  }
  const refused = reports.slice(reports.length - own.length).find((r) => r.refused !== undefined);
  if (refused !== undefined) {
    await host.close();
    throw new ModuleLoadError(
      `module ${refused.path} cannot be loaded: ${refused.refused}; fix it, or leave it out`,
    );
  }
  return host;
}

/**
 * The store, refused (DataDirError: the folder's fault, exit 2) when it is not a cobweb
 * store or one of another cobweb version. checkStore looks first, reading only: the
 * store's own check comes after SQLite has switched the file to WAL mode. Any other
 * failure, a full disk say, is not the command's fault and goes on as it is.
 */
export async function openStore(
  layout: DataLayout,
  seen: StoreSeenOptions,
  say: (line: string) => void,
  settings: ConstructorParameters<typeof SqliteFrontier>[1],
): Promise<SqliteFrontier> {
  checkStore(layout);
  try {
    return await SqliteFrontier.open(layout.store, settings, { seen, say });
  } catch (err) {
    if (err instanceof NotAStoreError) throw new DataDirError(err.message);
    throw err;
  }
}

/** The seen set the options ask for, as the store takes it. */
export function seenOf(o: Pick<Settings, 'seen' | 'seenCapacity' | 'seenFpRate'>): StoreSeenOptions {
  return { kind: o.seen, capacity: o.seenCapacity, fpRate: o.seenFpRate };
}

/** A callback of the caller's that throws is logged; it does not end the crawl. */
function callSafely(name: string, call: () => unknown, log: (line: string, level: LogLevel) => void): void {
  try {
    call();
  } catch (err) {
    log(`${name} threw: ${err instanceof Error ? err.message : String(err)}`, 'error');
  }
}
