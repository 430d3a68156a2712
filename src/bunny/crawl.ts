import { hostname } from 'node:os';
import { Fetcher } from '../fetch/fetcher.js';
import { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import { PagesLog } from '../output/pages-log.js';
import { WarcThread } from '../output/warc-thread.js';
import { canonicalize } from '../url/canonicalize.js';
import { createUrlFilter } from '../url/filter.js';
import { VERSION } from '../version.js';
import { CrawlLoop } from './crawl-loop.js';
import { clearCrawl, layoutOf, lockDataDir } from './data-dir.js';
import { type CrawlOptions, type CrawlProgress, type CrawlSummary, DEFAULTS } from './options.js';
import { processFetch, refusedRecord } from './page-processor.js';

/** A problem with what the caller asked for (a bad seed, a bad number): nothing was crawled. */
export class CrawlOptionError extends Error {}

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
  const o = { ...DEFAULTS, ...withoutUndefined(options) };
  const seeds = canonicalSeeds(options.seeds);
  checkPositive('concurrency', o.concurrency);
  checkPositive('perHost', o.perHost);
  if (!(o.delayMs >= 0)) throw new CrawlOptionError(`delay must be 0 or more milliseconds, got ${o.delayMs}`);

  const layout = layoutOf(o.data);
  if (o.fresh === true) clearCrawl(layout);
  // Everything opened is closed in reverse order, whatever fails on the way.
  const closers: (() => unknown)[] = [lockDataDir(layout)];
  try {
    const started = Date.now();
    const frontier = new SqliteFrontier(layout.store, {
      perHost: o.perHost,
      delayMs: o.delayMs,
      leaseMs: DEFAULTS.leaseMs,
    });
    closers.push(() => frontier.close());
    const pages = new PagesLog(layout.pages);
    closers.push(() => pages.close());
    const warc = new WarcThread({
      dir: layout.warc,
      maxFileBytes: o.warcMaxBytes,
      software: `cobweb/${VERSION}`,
      info: { hostname: hostname(), 'http-header-user-agent': o.userAgent, robots: 'classic' },
    });
    closers.push(() => warc.close());
    const fetcher = new Fetcher({
      userAgent: o.userAgent,
      connectTimeoutMs: o.connectTimeoutMs,
      firstByteTimeoutMs: o.firstByteTimeoutMs,
      totalTimeoutMs: o.totalTimeoutMs,
      maxBodyBytes: o.maxBodyBytes,
      connectionsPerOrigin: o.perHost,
      ...(o.resolve !== undefined ? { resolve: o.resolve } : {}),
    });
    closers.push(() => fetcher.close());
    const rules = {
      filter: createUrlFilter({
        scope: o.scope,
        seeds,
        include: o.include ?? [],
        exclude: o.exclude ?? [],
        skipExtensions: o.skipExtensions,
      }),
      maxDepth: o.maxDepth,
      maxRedirects: o.maxRedirects,
    };
    const loop = new CrawlLoop(
      {
        frontier,
        fetcher,
        warc,
        pages,
        process: (lease, outcome) =>
          processFetch(lease, outcome, { rules, followNofollow: o.followNofollow ?? false }),
        onRecord: o.onRecord,
      },
      { bunny: `local-${process.pid}`, concurrency: o.concurrency, signal: o.signal },
    );

    const progress = async (): Promise<CrawlProgress> => {
      const s = await frontier.stats();
      const elapsedMs = Date.now() - started;
      return {
        done: s.done,
        failed: s.failed,
        queued: s.queued,
        inFlight: s.inFlight,
        rejected: s.rejected,
        fetchedThisRun: loop.fetched,
        errorsThisRun: loop.errors,
        elapsedMs,
        pagesPerSec: elapsedMs > 0 ? (loop.fetched * 1000) / elapsedMs : 0,
      };
    };
    const onProgress = o.onProgress;
    if (onProgress !== undefined) {
      const ticker = setInterval(() => void progress().then(onProgress), o.progressMs);
      closers.push(() => clearInterval(ticker));
    }

    // Refusals a killed run stored but never wrote: write them now (see Frontier.add).
    const unlogged = await frontier.unloggedRejections();
    pages.append(unlogged.map(refusedRecord));
    // Seeds are taken as given: they define the scope, so the filter does not judge them.
    await frontier.add(seeds.map((url) => ({ url, depth: 0, via: null })));
    const before = await frontier.stats();
    const stoppedBy = await loop.run(o.maxPages - before.done - before.failed);
    const end = await progress();
    return {
      ...end,
      data: layout.root,
      pagesFile: layout.pages,
      warcFiles: warc.files,
      stoppedBy,
      outcomes: { ...loop.outcomes },
    };
  } finally {
    await closeAll(closers.reverse());
  }
}

/** Runs every closer; the first error, if any, is thrown after all have run. */
async function closeAll(closers: readonly (() => unknown)[]): Promise<void> {
  let first: unknown = null;
  for (const close of closers) {
    try {
      await close();
    } catch (err) {
      first ??= err;
    }
  }
  if (first !== null) throw first;
}

function checkPositive(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new CrawlOptionError(`${name} must be a whole number of at least 1, got ${value}`);
  }
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
