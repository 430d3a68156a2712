// What `cobweb bunny` does once its flags are read: loaded only when that command runs.
import { hostname } from 'node:os';
import { canonicalSeeds, linkRulesOf, openDataDir, startModules } from '../bunny/crawl.js';
import { Crawler, closeAll } from '../bunny/crawler.js';
import { checkDataDir, layoutOf, lockDataDir } from '../bunny/data-dir.js';
import { linkSettingsOf } from '../bunny/marker.js';
import { type CrawlOptions, checkCrawlOptions, withDefaults } from '../bunny/options.js';
import { addSeeds } from '../bunny/revisit.js';
import { RunCounter } from '../bunny/run-counts.js';
import { type SentModule, ServerModules } from '../bunny/server-modules.js';
import { ServerUnreachableError } from '../frontier/remote/connection.js';
import { RemoteFrontier } from '../frontier/remote/remote-frontier.js';
import { bunnySettingsFrom } from '../server/bunny-settings.js';
import { EXIT, type StopSignal } from './exit-codes.js';

/** How long a bunny with --wait sleeps between two looks at a crawl that is over. */
const WAIT_POLL_MS = 2000;

/** Runs `cobweb bunny` with its options read; the exit code it ends with is left in `outcome.code`. */
export async function runBunny(
  given: CrawlOptions,
  urlArgs: string[],
  flags: Record<string, unknown>,
  outcome: { code: number },
): Promise<void> {
  checkCrawlOptions(given);
  const own = withDefaults(given);
  const seeds = urlArgs.length === 0 ? [] : canonicalSeeds(urlArgs);
  const server = flags.server as { host: string; port: number };
  const quiet = flags.quiet === true;
  const say = (line: string, level = 'info') => {
    if (level !== 'info' || !quiet) process.stderr.write(`cobweb: ${line}\n`);
  };
  const layout = layoutOf(own.data);
  checkDataDir(layout);
  const stop = new AbortController();
  let signal: StopSignal | null = null;
  const onSignal = (received: StopSignal) => {
    if (signal !== null) process.exit(EXIT[received]);
    signal = received;
    say('stopping: finishing the fetches in flight (again to quit at once)');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const closers: (() => unknown)[] = [];
  try {
    const frontier = new RemoteFrontier({
      host: server.host,
      port: server.port,
      // An empty token is none (COBWEB_TOKEN= in a shell): AUTH cannot carry one.
      token: [flags.token, process.env.COBWEB_TOKEN].find(
        (t): t is string => typeof t === 'string' && t !== '',
      ),
      name: `bunny@${hostname()}:${process.pid}`,
      // A server that went away is waited for until it is back; the user hears of it
      // (with --quiet too), and Ctrl-C stops the waiting.
      log: (line) => say(line, 'warn'),
      signal: stop.signal,
    });
    closers.push(() => frontier.close());
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
    // Modules record nothing here: what they emit goes to the server with the pages.
    const modules = await startModules(own, null, say);
    closers.push(() => modules.close());
    closers.push(await lockDataDir(layout));
    const allSeeds = [...crawl.seeds, ...seeds];
    openDataDir(layout, linkSettingsOf({ ...own, ...crawl }, allSeeds), false, () => {});
    pushed = new ServerModules(layout.root, modules, say);
    for (const m of early.splice(0)) await pushed.load(m);
    const counts = new RunCounter();
    const crawler = await Crawler.start({
      frontier,
      name: `bunny@${hostname()}:${process.pid}`,
      settings: { ...own, ...crawl, signal: stop.signal },
      rules: linkRulesOf(crawl, allSeeds),
      seeds: allSeeds,
      modules,
      warc: { dir: layout.warc, prefix: (id) => `cobweb-c${id}` },
      // The server writes pages.jsonl from the completions: here the lines are only counted.
      write: (lines) => {
        for (const line of lines) counts.count(line);
      },
    });
    closers.push(() => crawler.close());
    say(`bunny ${crawler.crawler} crawling for ${server.host}:${server.port}`);
    if (seeds.length > 0) await addSeeds(frontier, seeds, crawler.crawler);
    let ended = await crawler.loop.run();
    while (ended !== 'signal' && flags.wait === true) {
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      if (stop.signal.aborted) break;
      ended = await crawler.loop.run();
    }
    say(
      `${ended === 'signal' ? 'stopped by signal' : `the crawl is over (${ended})`}: ${counts.fetched} fetched by this bunny; WARC files: ${crawler.warcFiles.join(', ') || '(none)'}`,
    );
    outcome.code = signal === null ? EXIT.ok : EXIT[signal];
  } catch (err) {
    if (err instanceof ServerUnreachableError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      outcome.code = signal === null ? EXIT.failed : EXIT[signal];
      return;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeAll(closers.reverse());
  }
}
