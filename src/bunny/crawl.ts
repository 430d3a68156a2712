import { hostname } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { privateAddressesOf, privateAddressPolicy } from '../fetch/address-policy.js';
import { DnsCache } from '../fetch/dns-cache.js';
import { Fetcher } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots/robots-cache.js';
import { SqliteFrontier } from '../frontier/sqlite/sqlite-frontier.js';
import { BUILTIN_MODULES } from '../modules/builtin/index.js';
import { ModuleHost } from '../modules/module-host.js';
import { type PageRecord, PagesLog } from '../output/pages-log.js';
import { WarcThread } from '../output/warc-thread.js';
import { canonicalize } from '../url/canonicalize.js';
import { createUrlFilter } from '../url/filter.js';
import { VERSION } from '../version.js';
import { CrawlLoop } from './crawl-loop.js';
import { clearCrawl, layoutOf, lockDataDir } from './data-dir.js';
import type { LinkRules } from './links.js';
import { ModuleStep } from './module-step.js';
import { type CrawlOptions, type CrawlProgress, type CrawlSummary, DEFAULTS } from './options.js';
import type { ProcessOptions } from './page-processor.js';
import { SitemapFinder } from './sitemaps.js';
import { type VisitParts, visit } from './visit.js';

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

type Settings = CrawlOptions & typeof DEFAULTS;

/**
 * Runs a whole crawl in this process with the embedded store: what `cobweb crawl` does.
 * Run it again with the same `data` folder and it resumes where it stopped.
 */
export async function crawl(options: CrawlOptions): Promise<CrawlSummary> {
  const o: Settings = { ...DEFAULTS, ...withoutUndefined(options), seeds: options.seeds };
  const seeds = canonicalSeeds(options.seeds);
  checkOptions(o);

  const layout = layoutOf(o.data);
  if (o.fresh === true) clearCrawl(layout);
  // Everything opened is closed in reverse order, whatever fails on the way.
  const closers: (() => unknown)[] = [lockDataDir(layout)];
  try {
    const started = Date.now();
    const frontier = new SqliteFrontier(layout.store, {
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
    closers.push(() => frontier.close());
    const pages = new PagesLog(layout.pages);
    closers.push(() => pages.close());
    const warc = new WarcThread({
      dir: layout.warc,
      maxFileBytes: o.warcMaxBytes,
      software: `cobweb/${VERSION}`,
      info: {
        hostname: hostname(),
        'http-header-user-agent': o.userAgent,
        robots: o.ignoreRobots ? 'ignore' : 'obey',
      },
    });
    closers.push(() => warc.close());
    const dnsCache = new DnsCache();
    const fetcher = new Fetcher({
      userAgent: o.userAgent,
      connectTimeoutMs: o.connectTimeoutMs,
      firstByteTimeoutMs: o.firstByteTimeoutMs,
      totalTimeoutMs: o.totalTimeoutMs,
      maxBodyBytes: o.maxBodyBytes,
      connectionsPerOrigin: o.perHost,
      dnsCache,
      addressPolicy: privateAddressPolicy({
        allowPrivate: o.allowPrivate,
        seedAddresses: await privateAddressesOf(seeds, o.resolve, dnsCache),
      }),
      ...(o.resolve !== undefined ? { resolve: o.resolve } : {}),
    });
    closers.push(() => fetcher.close());

    const rules: LinkRules = {
      filter: createUrlFilter({
        scope: o.scope,
        seeds,
        include: o.include ?? [],
        exclude: o.exclude ?? [],
        skipExtensions: o.skipExtensions,
      }),
      traps: {
        maxPathSegments: o.maxPathSegments,
        maxSegmentRepeats: o.maxSegmentRepeats,
        maxQueryParams: o.maxQueryParams,
      },
      maxDepth: o.maxDepth,
      maxRedirects: o.maxRedirects,
    };
    const processOptions: ProcessOptions = {
      rules,
      followNofollow: o.followNofollow ?? false,
      retry: { retries: o.retries, retryDelayMs: o.retryDelayMs },
    };
    const robots = o.ignoreRobots
      ? null
      : new RobotsCache({
          fetch: (url) => fetcher.fetch(url),
          userAgent: o.userAgent,
          ttlMs: DEFAULTS.robotsTtlMs,
          unavailableRetryMs: o.retryDelayMs,
        });
    const write = (lines: readonly PageRecord[]) => {
      pages.append(lines);
      if (o.onRecord !== undefined) for (const line of lines) o.onRecord(line);
    };
    const log = o.onLog ?? ((line: string) => process.stderr.write(`cobweb: ${line}\n`));
    const { host: moduleHost, reports } = await ModuleHost.start({
      paths: [
        ...(o.builtinModules ? BUILTIN_MODULES : []),
        ...(o.modules ?? []).map((p) => (p.startsWith('file:') ? p : resolvePath(p))),
      ],
      dataDir: layout.moduleData,
      timeoutMs: o.moduleTimeoutMs,
      log,
    });
    closers.push(() => moduleHost.close());
    const refusedModules = reports.flatMap((r) =>
      r.refused === undefined ? [] : [{ path: r.path, reason: r.refused }],
    );
    for (const r of refusedModules) log(`module ${r.path} refused: ${r.reason}`);
    const moduleStep =
      moduleHost.active || o.onPage !== undefined
        ? new ModuleStep({ host: moduleHost, robots, rules, onPage: o.onPage })
        : null;
    const visitParts: VisitParts = {
      fetcher,
      robots,
      gate: { maxDelayMs: o.maxDelayMs, retryDelayMs: o.retryDelayMs },
      sitemaps: o.sitemaps ? new SitemapFinder(rules) : null,
      options: processOptions,
    };
    const crawler = await frontier.registerCrawler(`crawl@${hostname()}:${process.pid}`);
    closers.push(() => frontier.leave(crawler));
    const loop = new CrawlLoop(
      { frontier, visit: (lease) => visit(lease, visitParts), warc, modules: moduleStep, write },
      { crawler, concurrency: o.concurrency, signal: o.signal },
    );

    const progress = async (): Promise<CrawlProgress> => {
      const s = await frontier.stats();
      const elapsedMs = Date.now() - started;
      return {
        done: s.done,
        failed: s.failed,
        queued: s.queued + s.retrying,
        inFlight: s.leased,
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

    // Lines a killed run stored but never wrote: write them now.
    await loop.record(await frontier.reclaimRecords(crawler));
    // Seeds are taken as given: they define the scope, so the filter does not judge them.
    const seeded = await frontier.add(
      seeds.map((url) => ({ url, depth: 0, via: null })),
      [],
      crawler,
    );
    await loop.record(seeded.records);
    const stoppedBy = await loop.run();
    const end = await progress();
    return {
      ...end,
      data: layout.root,
      pagesFile: layout.pages,
      warcFiles: warc.files,
      stoppedBy,
      outcomes: { ...loop.outcomes },
      modules: moduleHost.stats(),
      refusedModules,
    };
  } finally {
    await closeAll(closers.reverse());
  }
}

function checkOptions(o: Settings): void {
  checkWhole('concurrency', o.concurrency, 1);
  checkWhole('perHost', o.perHost, 1);
  checkWhole('retries', o.retries, 0);
  checkWhole('retireAfter', o.retireAfter, 1);
  checkWhole('moduleTimeoutMs', o.moduleTimeoutMs, 1);
  for (const [name, value] of [
    ['delayMs', o.delayMs],
    ['delayFactor', o.delayFactor],
    ['maxDelayMs', o.maxDelayMs],
    ['retryDelayMs', o.retryDelayMs],
    ['hostBackoffMs', o.hostBackoffMs],
  ] as const) {
    if (!(value >= 0)) throw new CrawlOptionError(`${name} must be 0 or more, got ${value}`);
  }
}

function checkWhole(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new CrawlOptionError(`${name} must be a whole number of at least ${min}, got ${value}`);
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

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
