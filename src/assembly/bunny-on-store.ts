import { hostname } from 'node:os';
import type { StopReason } from '../bunny/crawl-loop.js';
import { Crawler } from '../bunny/crawler.js';
import { consoleLine } from '../console/access.js';
import { Feed } from '../console/feed.js';
import type { RunningConsole } from '../console/start.js';
import { lockDataDir } from '../data-dir/data-dir.js';
import type { DataLayout } from '../data-dir/layout.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { CrawlOptionError } from '../errors.js';
import { type StoreCall, timedStore } from '../frontier/timed.js';
import type { ModuleStats } from '../modules/api.js';
import type { Settings } from '../options/options.js';
import type { RequestSetup } from '../options/request-setup.js';
import type { CrawlLog, EventLog } from '../output/crawl-log.js';
import type { PageRecord } from '../output/pages-log.js';
import { PagesLog } from '../output/pages-log.js';
import { RunCounter } from '../output/run-counts.js';
import { browserFor } from '../render/find-browser.js';
import { bunnySettingsFrom } from '../server/bunny-settings.js';
import { type BunnyStop, type BunnySummary, endBunny, runUntilOver } from './bunny-end.js';
import { linkRulesOf, startModules } from './parts.js';
import { progressOf } from './progress-of.js';
import { addSeeds } from './revisit.js';
import { seedLines, sharedHints } from './seed-lines.js';
import { openSharedStore } from './shared-store.js';
import { Closers, canonicalSeeds, tickProgress } from './startup.js';

export interface StoreBunny {
  own: Settings;
  seeds: string[];
  layout: DataLayout;
  wait: boolean;
  signal: AbortSignal;
  /** The Stop of its console (--http): the same clean stop as a signal's. */
  stopFromConsole: () => void;
  say: EventLog;
  /** The command's log: each fetch, retry, back-off and refusal at debug. */
  log: CrawlLog;
  requests: RequestSetup;
  /** When the run started, for its pages per second. */
  started: number;
  /** How the run ended, from how its loop did. */
  stoppedBy: (ended: StopReason) => BunnyStop;
}

/**
 * `cobweb bunny --store postgres://...`: a bunny straight on PostgreSQL, with no server.
 * The crawl's settings (link rules, politeness, budget) are the crawl row's: the first
 * process to start the crawl sets them (a bunny given seed URLs, or `cobweb crawl
 * --store`), and every bunny after it takes them. Each bunny writes its own pages.jsonl
 * and WARC files in its --data; the store keeps one crawl for all of them.
 * Resolves with its summary once it has ended, said how, and closed what it opened.
 */
export async function runBunnyOnStore(b: StoreBunny): Promise<BunnySummary> {
  const closers = new Closers();
  try {
    const frontier = await openSharedStore(b.own, b.seeds, true, (line) => b.say(line, 'warning'));
    closers.add(() => frontier.close());
    const crawl = frontier.rules === null ? null : bunnySettingsFrom(frontier.rules);
    if (crawl === null) {
      throw new CrawlOptionError(
        `the crawl "${frontier.crawlName}" has not been started: give this bunny the seed URLs (cobweb bunny URL... --store ...)`,
      );
    }
    if (frontier.joined)
      b.say(`joining the crawl "${frontier.crawlName}" with the settings it was started with`);
    const browser = browserFor({
      render: crawl.render,
      browser: b.own.browser,
      screenshot: b.own.screenshot,
    });
    const modules = await startModules(b.own, b.layout.moduleData, b.say);
    closers.add(() => modules.close());
    closers.add(await lockDataDir(b.layout));
    const allSeeds = canonicalSeeds([...crawl.seeds, ...b.seeds]);
    const settings = { ...b.own, ...crawl, perHost: frontier.settings.perHost };
    // Its modules' records go to this bunny's data/, as a crawl's do.
    openDataDir(
      b.layout,
      { settings: linkSettingsOf(settings, allSeeds), fresh: false, modules: modules.names },
      () => {},
    );
    const pages = new PagesLog(b.layout.pages, b.layout.refused);
    closers.add(() => pages.close());
    const counts = new RunCounter();
    // What the console hears (--http): the lines as they are written, the store's calls timed.
    const written = new Feed<readonly PageRecord[]>();
    const storeCalls = new Feed<StoreCall>();
    const crawler = await Crawler.start({
      frontier: b.own.http === undefined ? frontier : timedStore(frontier, (call) => storeCalls.emit(call)),
      name: `bunny@${hostname()}:${process.pid}`,
      settings: { ...settings, browser, signal: b.signal },
      rules: linkRulesOf(settings, allSeeds),
      seeds: allSeeds,
      modules,
      warc: { dir: b.layout.warc, prefix: (id) => `cobweb-c${id}` },
      requests: b.requests,
      write: (lines) => {
        pages.append(lines);
        b.log.records(lines);
        for (const line of lines) counts.count(line);
        written.emit(lines);
      },
      onSettled: (batch) => b.log.visits(batch),
      onWarning: (line) => b.say(line, 'warning'),
      onInfo: (line) => b.say(line, 'info'),
    });
    closers.add(() => crawler.close());
    const live =
      b.own.http === undefined
        ? null
        : await startBunnyConsole(b, {
            http: b.own.http,
            frontier,
            crawler,
            modules,
            settings,
            allSeeds,
            written,
            storeCalls,
          });
    if (live !== null) closers.add(() => live.close());
    // Its own lines, and the crawl's queue as its store reports it.
    tickProgress(b.own, async () => progressOf(await frontier.stats(), counts, b.started), closers, b.say);
    b.say(`bunny ${crawler.crawler} crawling "${frontier.crawlName}" on PostgreSQL`, 'info', {
      event: 'start',
      crawler: crawler.crawler,
      store: 'postgres',
      crawl: frontier.crawlName,
      data: b.layout.root,
    });
    await crawler.loop.record(await frontier.reclaimRecords(crawler.crawler));
    if (b.seeds.length > 0) {
      // A seed the crawl only refused before is queued again; one it met otherwise is said.
      const seeded = await addSeeds(frontier, b.seeds, crawler.crawler);
      await crawler.loop.record(seeded.records);
      // A bunny has no --retry-failed: the processes that set the crawl's options do.
      const hints = sharedHints(frontier.crawlName, 'cobweb crawl or cobweb server with --retry-failed');
      for (const line of seedLines(seeded, hints)) b.say(line);
    }
    const ended = await runUntilOver(crawler.loop, b.wait, b.signal);
    const stoppedBy = b.stoppedBy(ended);
    await live?.finish(stoppedBy);
    return await endBunny(
      {
        crawler: crawler.crawler,
        crawl: frontier.crawlName,
        where: { store: 'postgres' },
        frontier,
        counts,
        started: b.started,
        warcFiles: crawler.warcFiles,
        pagesFile: b.layout.pages,
      },
      stoppedBy,
      b.log,
    );
  } finally {
    await closers.close();
  }
}

interface ConsoleParts {
  http: string;
  frontier: Awaited<ReturnType<typeof openSharedStore>>;
  crawler: Crawler;
  modules: { stats(): ModuleStats[] };
  settings: Settings;
  allSeeds: readonly string[];
  written: Feed<readonly PageRecord[]>;
  storeCalls: Feed<StoreCall>;
}

/**
 * `--http` on a bunny straight on PostgreSQL: the console and /metrics of cobweb crawl,
 * for this bunny's fetches and the crawl's queue (there is no server to show them). Its
 * token is the bunny's --data folder's, as a crawl's is.
 */
async function startBunnyConsole(b: StoreBunny, parts: ConsoleParts): Promise<RunningConsole> {
  const { startCrawlConsole } = await import('./crawl-console.js');
  const live = await startCrawlConsole({
    http: parts.http,
    httpAllowHost: b.own.httpAllowHost,
    metricsOpen: b.own.metricsOpen === true,
    warn: (line) => b.say(line, 'warning'),
    layout: b.layout,
    frontier: parts.frontier,
    run: parts.crawler,
    rules: linkRulesOf(parts.settings, parts.allSeeds),
    modules: () => parts.modules.stats(),
    stop: b.stopFromConsole,
    stopping: () => b.signal.aborted,
    lines: parts.written,
    storeCalls: parts.storeCalls,
  });
  const { url, tokenOnEveryRequest } = live;
  if (b.own.onConsole !== undefined) b.own.onConsole(url, { tokenOnEveryRequest });
  else b.say(consoleLine(url, tokenOnEveryRequest, b.layout.token), 'info');
  return live;
}
