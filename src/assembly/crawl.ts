import { hostname } from 'node:os';
import { Crawler } from '../bunny/crawler.js';
import { consoleLine } from '../console/access.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import { checkDataDir } from '../data-dir/data-dir.js';
import { diskFullError, isDiskFull } from '../data-dir/disk-full.js';
import { crawlLayoutOf, layoutOf } from '../data-dir/layout.js';
import { linkSettingsOf, seedsOfMarker } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { count } from '../english.js';
import { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import { type StoreCall, timedStore } from '../frontier/timed.js';
import type { CrawlOptions, CrawlProgress, CrawlSummary, LogLevel } from '../options/options.js';
import { requestSetupOf } from '../options/request-setup.js';
import { type PageRecord, PagesLog } from '../output/pages-log.js';
import { RunCounter } from '../output/run-counts.js';
import { browserFor } from '../render/find-browser.js';
import { GuardedOnPage } from './on-page.js';
import { linkRulesOf, openStore, seenOf } from './parts.js';
import { runPasses } from './passes.js';
import { checkPortFree } from './port-check.js';
import { progressOf } from './progress-of.js';
import { revisitStore } from './revisit.js';
import { FOLDER_HINTS, sharedHints } from './seed-lines.js';
import { checkSharedStoreOptions, frontierSettingsOf } from './shared-store.js';
import {
  Closers,
  canonicalSeeds,
  hostPortOf,
  modulesStoreAndLock,
  runLog,
  StopConditions,
  settingsOf,
  tickProgress,
} from './startup.js';

/**
 * Runs a whole crawl in this process with the embedded store: what `cobweb crawl` does.
 * Run it again with the same `data` folder and it resumes where it stopped.
 */
export async function crawl(options: CrawlOptions): Promise<CrawlSummary> {
  // Start-up order: whatever can be refused is refused before the data folder is
  // touched, and nothing in it is touched before its lock is held.
  const o = settingsOf(options);
  checkSharedStoreOptions(o);
  // No browser for --render: refused here, before the folder or the store is touched.
  const browser = browserFor(o);
  // --crawl NAME: on a folder store the crawl's own folder, crawls/NAME in --data (the
  // default crawl's is --data itself); on PostgreSQL its row, the outputs in --data.
  const layout = o.store === undefined ? crawlLayoutOf(o.data, o.crawl) : layoutOf(o.data);
  // No seeds given: the folder's crawl goes on with the seeds its marker keeps (--fresh
  // starts over, so it needs them given again).
  const resumed = options.seeds.length === 0 && o.fresh !== true;
  const seeds = canonicalSeeds(resumed ? seedsOfMarker(layout) : options.seeds);
  checkDataDir(layout);
  if (o.http !== undefined) await checkPortFree('--http', hostPortOf('--http', o.http));
  const requests = requestSetupOf(o);
  const { log: crawlLog } = runLog(o, o.onLog);
  const log = (line: string, level: LogLevel) => crawlLog.say(line, level);

  const closers = new Closers();
  closers.add(() => crawlLog.close());
  const counts = new RunCounter();
  // The run's own failure, if it fails: one met while closing after it (a full disk's
  // store cannot checkpoint either) must not hide it.
  let failure: unknown = null;
  try {
    const { modules: moduleHost, shared } = await modulesStoreAndLock(o, layout, seeds, log, closers);
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
    const whose = resumed ? ` (the seeds of ${layout.marker})` : '';
    crawlLog.event(`crawl started: ${count(seeds.length, 'seed')}${whose}, data in ${layout.root}`, 'info', {
      event: 'start',
      seeds,
      data: layout.root,
      store: o.store === undefined ? 'sqlite' : 'postgres',
    });
    const frontier =
      shared ?? (await openStore(layout, seenOf(o), (line) => log(line, 'warning'), frontierSettingsOf(o)));
    if (shared === null) closers.add(() => frontier.close());
    const pages = new PagesLog(layout.pages, layout.refused);
    closers.add(() => pages.close());
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
    // The caller's signal, --max-time or the console's Stop: the same clean stop.
    const stop = new StopConditions(closers, { signal: options.signal, maxTimeMs: o.maxTimeMs }, (line) =>
      log(line, 'info'),
    );
    const run = await Crawler.start({
      frontier: o.http === undefined ? frontier : timedStore(frontier, (call) => storeCalls.emit(call)),
      name: `crawl@${hostname()}:${process.pid}`,
      settings: { ...o, browser, signal: stop.signal },
      rules,
      seeds,
      modules: moduleHost,
      onPage: onPage?.call,
      warc: { dir: layout.warc },
      write,
      requests,
      onSettled: (batch) => crawlLog.visits(batch),
      onWarning: (line) => log(line, 'warning'),
      onInfo: (line) => log(line, 'info'),
    });
    closers.add(() => run.close());
    const { crawler, loop } = run;
    const moduleStats = () => [...moduleHost.stats(), ...(onPage === null ? [] : [onPage.stats()])];
    let live: RunningConsole | null = null;
    if (o.http !== undefined) {
      // The console's code (and prom-client) loads only for a crawl that has one.
      const { startCrawlConsole } = await import('./crawl-console.js');
      live = await startCrawlConsole({
        http: o.http,
        httpAllowHost: o.httpAllowHost,
        metricsOpen: o.metricsOpen,
        warn: (line) => log(line, 'warning'),
        layout,
        frontier,
        run,
        rules,
        modules: moduleStats,
        stop: () => {
          if (stop.signal.aborted) return;
          log('stopping (asked from the console): finishing the fetches in flight', 'info');
          stop.stop('console');
        },
        stopping: () => stop.signal.aborted,
        lines: written,
        storeCalls,
      });
      closers.add(() => live?.close());
      const { url, tokenOnEveryRequest } = live;
      if (o.onConsole !== undefined)
        callSafely('onConsole', () => o.onConsole?.(url, { tokenOnEveryRequest }), log);
      else log(consoleLine(url, tokenOnEveryRequest, layout.token), 'info');
    }

    const progress = async (): Promise<CrawlProgress> => progressOf(await frontier.stats(), counts, started);
    tickProgress(o, progress, closers, log);

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
        : stop.cause === 'console'
          ? 'console'
          : stop.maxTimeRanOut && !stop.callerStopped
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
  } catch (err) {
    failure = isDiskFull(err) ? diskFullError(layout.root, counts.fetched, err) : err;
    throw failure;
  } finally {
    await closers.close().catch((err: unknown) => {
      if (failure === null) throw err;
    });
  }
}

/** A callback of the caller's that throws is logged; it does not end the crawl. */
function callSafely(name: string, call: () => unknown, log: (line: string, level: LogLevel) => void): void {
  try {
    call();
  } catch (err) {
    log(`${name} threw: ${err instanceof Error ? err.message : String(err)}`, 'error');
  }
}
