import { hostname } from 'node:os';
import { canonicalSeeds, linkRulesOf, startModules } from '../assembly/crawl.js';
import { addSeeds } from '../assembly/revisit.js';
import { seedLines, sharedHints } from '../assembly/seed-lines.js';
import { openSharedStore } from '../assembly/shared-store.js';
import type { StopReason } from '../bunny/crawl-loop.js';
import { Crawler, closeAll } from '../bunny/crawler.js';
import { type DataLayout, lockDataDir } from '../data-dir/data-dir.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { CrawlOptionError } from '../errors.js';
import type { Settings } from '../options/options.js';
import type { RequestSetup } from '../options/request-setup.js';
import type { CrawlLog, EventLog } from '../output/crawl-log.js';
import { PagesLog } from '../output/pages-log.js';
import { RunCounter } from '../output/run-counts.js';
import { bunnySettingsFrom } from '../server/bunny-settings.js';
import type { BunnyRun } from './bunny-end.js';

/** How long a bunny with --wait sleeps between two looks at a crawl that is over. */
const WAIT_POLL_MS = 2000;

export interface StoreBunny {
  own: Settings;
  seeds: string[];
  layout: DataLayout;
  wait: boolean;
  signal: AbortSignal;
  say: EventLog;
  /** The command's log: each fetch, retry, back-off and refusal at debug. */
  log: CrawlLog;
  requests: RequestSetup;
  /** Says how the run ended, while the store is still open. */
  end: (run: Omit<BunnyRun, 'started'>, ended: StopReason) => Promise<void>;
}

/**
 * `cobweb bunny --store postgres://...`: a bunny straight on PostgreSQL, with no server.
 * The crawl's settings (link rules, politeness, budget) are the crawl row's: the first
 * process to start the crawl sets them (a bunny given seed URLs, or `cobweb crawl
 * --store`), and every bunny after it takes them. Each bunny writes its own pages.jsonl
 * and WARC files in its --data; the store keeps one crawl for all of them.
 * Resolves once it has ended, and `end` has said how.
 */
export async function runBunnyOnStore(b: StoreBunny): Promise<void> {
  const closers: (() => unknown)[] = [];
  try {
    const frontier = await openSharedStore(b.own, b.seeds, true);
    closers.push(() => frontier.close());
    const crawl = frontier.rules === null ? null : bunnySettingsFrom(frontier.rules);
    if (crawl === null) {
      throw new CrawlOptionError(
        `the crawl "${frontier.crawlName}" has not been started: give this bunny the seed URLs (cobweb bunny URL... --store ...)`,
      );
    }
    if (frontier.joined)
      b.say(`joining the crawl "${frontier.crawlName}" with the settings it was started with`);
    const modules = await startModules(b.own, b.layout.moduleData, b.say);
    closers.push(() => modules.close());
    closers.push(await lockDataDir(b.layout));
    const allSeeds = canonicalSeeds([...crawl.seeds, ...b.seeds]);
    const settings = { ...b.own, ...crawl, perHost: frontier.settings.perHost };
    // Its modules' records go to this bunny's data/, as a crawl's do.
    openDataDir(
      b.layout,
      { settings: linkSettingsOf(settings, allSeeds), fresh: false, modules: modules.names },
      () => {},
    );
    const pages = new PagesLog(b.layout.pages);
    closers.push(() => pages.close());
    const counts = new RunCounter();
    const crawler = await Crawler.start({
      frontier,
      name: `bunny@${hostname()}:${process.pid}`,
      settings: { ...settings, signal: b.signal },
      rules: linkRulesOf(settings, allSeeds),
      seeds: allSeeds,
      modules,
      warc: { dir: b.layout.warc, prefix: (id) => `cobweb-c${id}` },
      requests: b.requests,
      write: (lines) => {
        pages.append(lines);
        b.log.records(lines);
        for (const line of lines) counts.count(line);
      },
      onSettled: (batch) => b.log.visits(batch),
    });
    closers.push(() => crawler.close());
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
    let ended = await crawler.loop.run();
    while (ended !== 'signal' && b.wait) {
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      if (b.signal.aborted) break;
      ended = await crawler.loop.run();
    }
    await b.end(
      {
        crawler: crawler.crawler,
        crawl: frontier.crawlName,
        where: { store: 'postgres' },
        frontier,
        counts,
        warcFiles: crawler.warcFiles,
        pagesFile: b.layout.pages,
      },
      ended,
    );
  } finally {
    await closeAll(closers.reverse());
  }
}
