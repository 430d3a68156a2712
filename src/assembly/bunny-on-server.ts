import { hostname } from 'node:os';
import { Crawler } from '../bunny/crawler.js';
import { lockDataDir } from '../data-dir/data-dir.js';
import { linkSettingsOf } from '../data-dir/marker.js';
import { openDataDir } from '../data-dir/open-data-dir.js';
import { ServerUnreachableError } from '../frontier/remote/connection.js';
import { RemoteFrontier } from '../frontier/remote/remote-frontier.js';
import { BUILTIN_NAMES } from '../modules/builtin/index.js';
import { RunCounter } from '../output/run-counts.js';
import { browserFor } from '../render/find-browser.js';
import { bunnySettingsFrom } from '../server/bunny-settings.js';
import { type BunnySummary, endBunny, runUntilOver } from './bunny-end.js';
import type { StoreBunny } from './bunny-on-store.js';
import { ModuleCountsReport } from './module-counts-report.js';
import { linkRulesOf, startModules } from './parts.js';
import { progressOf } from './progress-of.js';
import { seedLinks } from './revisit.js';
import { type SentModule, ServerModules } from './server-modules.js';
import { Closers, tickProgress } from './startup.js';

export interface ServerBunny extends StoreBunny {
  server: { host: string; port: number };
  /** The server's token; none: a server on loopback that asks for none. */
  token: string | undefined;
  /** The crawl it works for; none: the server's own one. */
  crawl: string | undefined;
}

/**
 * `cobweb bunny --server HOST:PORT`: the crawl loop of `cobweb crawl`, on a server's
 * queue. It adds the URLs it is given, fetches what the server leases it (WARC files in
 * its own --data, named with its crawler id), hands back what it found, and ends when the
 * server says the crawl is over (or waits for more with `wait`). Resolves with its
 * summary once it has ended, said how, and closed what it opened.
 */
export async function runBunnyOnServer(b: ServerBunny): Promise<BunnySummary> {
  const closers = new Closers();
  try {
    const frontier = new RemoteFrontier({
      host: b.server.host,
      port: b.server.port,
      token: b.token,
      name: `bunny@${hostname()}:${process.pid}`,
      crawl: b.crawl,
      // It runs the built-ins itself, and loads what the server pushes.
      modules: b.own.builtinModules ? BUILTIN_NAMES : [],
      loadsModules: true,
      // A server that went away is waited for until it is back, and the signal stops the
      // waiting. Said as a warning (--quiet hides it): nothing has failed yet, and a
      // server that cannot be reached at all ends the bunny with an error.
      log: (line) => b.say(line, 'warning'),
      signal: b.signal,
    });
    closers.add(() => frontier.close());
    // Modules the server sends right after WELCOME are loaded before the first lease.
    const early: SentModule[] = [];
    let pushed: ServerModules | null = null;
    frontier.connection.on('module', (m: SentModule) => {
      if (pushed === null) early.push(m);
      else void pushed.load(m);
    });
    const welcome = await frontier.welcome();
    const crawl = bunnySettingsFrom(welcome.settings);
    if (crawl === null) throw new ServerUnreachableError('the server sent settings this bunny cannot read');
    // The crawl renders (the server's --render): this machine's Chromium, found before the folder is touched.
    const browser = browserFor({
      render: crawl.render,
      browser: b.own.browser,
      screenshot: b.own.screenshot,
    });
    // Modules record nothing here: what they emit goes to the server with the pages.
    const modules = await startModules(b.own, null, b.say);
    closers.add(() => modules.close());
    closers.add(await lockDataDir(b.layout));
    const allSeeds = [...crawl.seeds, ...b.seeds];
    // Its modules' records go to the server: this folder keeps no module data files.
    openDataDir(
      b.layout,
      { settings: linkSettingsOf({ ...b.own, ...crawl }, allSeeds), fresh: false, modules: [] },
      () => {},
    );
    pushed = new ServerModules(b.layout.root, modules, b.say);
    const moduleCounts = new ModuleCountsReport(modules, (counts) => frontier.reportModules(counts));
    for (const m of early.splice(0)) await pushed.load(m);
    const counts = new RunCounter();
    const crawler = await Crawler.start({
      frontier,
      name: `bunny@${hostname()}:${process.pid}`,
      settings: { ...b.own, ...crawl, browser, signal: b.signal },
      rules: linkRulesOf(crawl, allSeeds),
      seeds: allSeeds,
      modules,
      warc: { dir: b.layout.warc, prefix: (id) => `cobweb-c${id}` },
      requests: b.requests,
      // The server writes pages.jsonl from the completions: here the lines are only counted, and logged.
      write: (lines) => {
        b.log.records(lines);
        for (const line of lines) counts.count(line);
      },
      onSettled: (batch) => b.log.visits(batch),
      onWarning: (line) => b.say(line, 'warning'),
      onInfo: (line) => b.say(line, 'info'),
    });
    closers.add(() => crawler.close());
    // Its own lines, and the crawl's queue as its store reports it.
    tickProgress(b.own, async () => progressOf(await frontier.stats(), counts, b.started), closers, b.say);
    const which = b.crawl === undefined ? '' : `, crawl ${b.crawl}`;
    const at = `${b.server.host}:${b.server.port}`;
    b.say(`bunny ${crawler.crawler} crawling for ${at}${which}`, 'info', {
      event: 'start',
      crawler: crawler.crawler,
      server: at,
      ...(b.crawl === undefined ? {} : { crawl: b.crawl }),
      data: b.layout.root,
    });
    // The server runs a seed's checks, and records what it refuses.
    if (b.seeds.length > 0) await frontier.add(seedLinks(b.seeds), [], crawler.crawler);
    const ended = await runUntilOver(crawler.loop, b.wait, b.signal);
    // Before the bunny leaves: its modules' last calls reach the server's counts.
    await moduleCounts.close();
    return await endBunny(
      {
        crawler: crawler.crawler,
        crawl: b.crawl ?? null,
        where: { server: at },
        frontier,
        counts,
        started: b.started,
        warcFiles: crawler.warcFiles,
      },
      b.stoppedBy(ended),
      b.log,
    );
  } finally {
    await closers.close();
  }
}
