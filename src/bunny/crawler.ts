import { hostname } from 'node:os';
import type { Cookie } from 'tough-cookie';
import { privateAddressesOf } from '../fetch/address-policy.js';
import { CrawlCookies } from '../fetch/cookie-jar.js';
import { DnsCache } from '../fetch/dns-cache.js';
import { Fetcher } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots/robots-cache.js';
import { robotsFetchOf } from '../fetch/robots/robots-fetch.js';
import { type HostRules, mostPerHost, ruleFor } from '../frontier/policy/host-rules.js';
import type { CrawlerId, Frontier } from '../frontier/types.js';
import type { ModulePage } from '../modules/api.js';
import type { ModuleHost } from '../modules/module-host.js';
import { DEFAULTS, robotsRetryMsOf } from '../options/options.js';
import type { RequestSetup } from '../options/request-setup.js';
import type { PageRecord } from '../output/pages-log.js';
import { WarcThread } from '../output/warc-thread.js';
import { VERSION } from '../version.js';
import { CrawlLoop } from './crawl-loop.js';
import { allowedFetcher, CrawlSeedList } from './crawl-seed-list.js';
import type { LinkRules } from './links.js';
import { ModuleStep } from './module-step.js';
import { ParsePool } from './parse-pool.js';
import { gatedFetcher, renderPartOf, subresourceGateOf } from './render-part.js';
import { SitemapFinder } from './sitemaps.js';
import { type Visit, type VisitParts, visit } from './visit.js';

/** How a crawling process fetches: the options of `crawl` and `bunny` that are not the store's. */
export interface FetchSettings {
  userAgent: string;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  totalTimeoutMs: number;
  maxBodyBytes: number;
  perHost: number;
  /**
   * The most of one host's URLs the store hands out at once, when it says so (a server's
   * WELCOME, its host sections included). The connections opened to one host are the
   * most of this, `perHost` and the `hosts` sections' perHost.
   */
  connectionsPerHost?: number | undefined;
  allowPrivate: boolean;
  resolve?: ReadonlyMap<string, string> | undefined;
  ignoreRobots: boolean;
  sitemaps: boolean;
  followNofollow?: boolean | undefined;
  /** --requisites: pages' stylesheets, scripts, images and the like are fetched and archived. */
  requisites?: boolean | undefined;
  /** --render; with 'auto' or 'always', `browser` is the Chromium found (find-browser.ts). */
  render?: 'never' | 'auto' | 'always' | undefined;
  browser?: string | undefined;
  renderConcurrency?: number | undefined;
  renderWaitMs?: number | undefined;
  /** --render-memory: the browser's processes' memory (MB) past which a new browser takes over. */
  renderMemoryMb?: number | undefined;
  /** --render-requests: most requests a rendered page makes of its own. */
  renderRequests?: number | undefined;
  /** --delay and --delay-factor: the store spaces the crawl's fetches; a rendered page's own requests are spaced here. */
  delayMs?: number | undefined;
  delayFactor?: number | undefined;
  /** --screenshot: each rendered page's picture in the WARC. */
  screenshot?: boolean | undefined;
  /** A server's bunny: its server hands back the captures new to the crawl (bunny-settings.ts). */
  capturesBack?: boolean | undefined;
  retries: number;
  retryDelayMs: number;
  maxDelayMs: number;
  concurrency: number;
  parseThreads: number;
  warcMaxBytes: number;
  signal?: AbortSignal | undefined;
  /** --header: sent with every request. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The config file's host sections: their headers go to their hosts. */
  hosts?: HostRules | undefined;
  http2?: boolean | undefined;
}

export interface CrawlerParts {
  frontier: Frontier;
  /** Its name in the store's crawlers. */
  name: string;
  settings: FetchSettings;
  rules: LinkRules;
  /** The seeds: a private address a seed is on may be fetched. */
  seeds: readonly string[];
  modules: ModuleHost;
  /** The library's onPage, already held to a module hook's rules. */
  onPage?: ((page: ModulePage) => unknown) | undefined;
  /** Where the WARC files go; the prefix of their names. */
  warc: { dir: string; prefix?: string | ((crawler: CrawlerId) => string) };
  /** Appends pages.jsonl lines (or, for a bunny, only counts them: its server writes them). */
  write: (lines: readonly PageRecord[]) => void;
  /** What --cookies, --ca-file and the proxies came to (request-setup.ts). */
  requests: RequestSetup;
  /** Hears each settled batch of visits, for the debug log. */
  onSettled?: ((batch: readonly Visit[]) => void) | undefined;
  /** Says what the user must hear at once (a proxy that cannot be reached). */
  onWarning?: ((line: string) => void) | undefined;
  /** Says what the user may want to know, at the info level (a browser replaced for its memory). */
  onInfo?: ((line: string) => void) | undefined;
}

/**
 * One crawling process's machinery around a frontier: the fetcher and its DNS cache,
 * the robots.txt cache, the WARC thread, the modules' step, and the crawl loop. `cobweb
 * crawl` runs it on its own store and `cobweb bunny` on a server's; there is one loop.
 */
export class Crawler {
  private constructor(
    readonly crawler: CrawlerId,
    readonly loop: CrawlLoop,
    private readonly warc: WarcThread,
    private readonly closers: (() => unknown)[],
  ) {}

  static async start(parts: CrawlerParts): Promise<Crawler> {
    const { settings: o, frontier, rules } = parts;
    const closers: (() => unknown)[] = [];
    try {
      const crawler = await frontier.registerCrawler(parts.name);
      closers.push(() => frontier.leave(crawler));
      const prefix = typeof parts.warc.prefix === 'function' ? parts.warc.prefix(crawler) : parts.warc.prefix;
      const warc = new WarcThread({
        dir: parts.warc.dir,
        maxFileBytes: o.warcMaxBytes,
        software: `cobweb/${VERSION}`,
        ...(prefix === undefined ? {} : { prefix }),
        info: {
          hostname: hostname(),
          'http-header-user-agent': o.userAgent,
          robots: o.ignoreRobots ? 'ignore' : 'obey',
        },
      });
      closers.push(() => warc.close());
      const cookies = await cookieJarOf(frontier, parts.requests.cookies);
      const dnsCache = new DnsCache();
      // Made before the seed list: it hears when the crawl's scope grows.
      const parser = new ParsePool({
        threads: o.parseThreads,
        rules,
        followNofollow: o.followNofollow ?? false,
        requisites: o.requisites ?? false,
      });
      closers.push(() => parser.close());
      const seeds = await CrawlSeedList.start({
        frontier,
        rules,
        allowPrivate: o.allowPrivate,
        seeds: parts.seeds,
        seedAddresses: await privateAddressesOf(parts.seeds, o.resolve, dnsCache),
        onRulesChanged: () => parser.rulesChanged(),
      });
      const fetcher = new Fetcher({
        ...(o.headers === undefined ? {} : { headers: o.headers }),
        ...(o.hosts === undefined ? {} : { headersFor: (host: string) => ruleFor(o.hosts, host)?.headers }),
        cookies: cookies.jar,
        proxy: parts.requests.proxy,
        http2: o.http2 === true,
        ...(parts.requests.ca === undefined ? {} : { ca: parts.requests.ca }),
        ...(parts.requests.proxyCa === undefined ? {} : { proxyCa: parts.requests.proxyCa }),
        userAgent: o.userAgent,
        connectTimeoutMs: o.connectTimeoutMs,
        firstByteTimeoutMs: o.firstByteTimeoutMs,
        totalTimeoutMs: o.totalTimeoutMs,
        maxBodyBytes: o.maxBodyBytes,
        connectionsPerOrigin: Math.max(o.connectionsPerHost ?? 0, mostPerHost(o.perHost, o.hosts)),
        dnsCache,
        addressPolicy: seeds.policy,
        ...(o.resolve !== undefined ? { resolve: o.resolve } : {}),
        onProxyUnreachable: (proxy, message) =>
          parts.onWarning?.(
            `the proxy ${proxy} could not be reached (${message}): every request through it fails until it answers; check --proxy, or HTTP_PROXY / HTTPS_PROXY`,
          ),
      });
      closers.push(() => fetcher.close());
      // --render: rendered pages' own requests take turns with this process's fetches, host by host.
      let robotsCache: RobotsCache | null = null;
      const gate = subresourceGateOf(o, () => robotsCache);
      const fetching = gatedFetcher(allowedFetcher(fetcher, seeds), gate);
      // robots.txt is the crawl's: the store says whose read an origin's file is, and
      // every crawler obeys what that one read (FrontierHostDecisions).
      const robots = o.ignoreRobots
        ? null
        : new RobotsCache({
            fetch: robotsFetchOf(fetching),
            shared: {
              robots: (origin) => frontier.robots(origin, crawler),
              recordRobots: (origin, entry) => frontier.recordRobots(origin, entry, crawler),
            },
            userAgent: o.userAgent,
            ttlMs: DEFAULTS.robotsTtlMs,
            unavailableRetryMs: robotsRetryMsOf(o),
          });
      robotsCache = robots;
      // A server's crawler always has the step: the server runs site hooks on the sites it
      // claims (its own modules, and loadmod's), and modules it loads later reach this
      // host while the crawl runs, however many it started with (maybe none).
      const keepsOutputs = frontier.keepsOutputs === true;
      const moduleStep =
        parts.modules.active || parts.onPage !== undefined || keepsOutputs
          ? new ModuleStep({
              host: parts.modules,
              robots,
              rules,
              onPage: parts.onPage,
              // A store that keeps the crawl's outputs runs site hooks itself (a server).
              siteHooks: !keepsOutputs,
            })
          : null;
      // Captures are archived here; over a server, only when it hands the new ones back.
      const capturesKept = frontier.keepsOutputs !== true || o.capturesBack === true;
      const render = renderPartOf(o, rules, gate, cookies.jar, capturesKept, (line, level) =>
        (level === 'warning' ? parts.onWarning : parts.onInfo)?.(line),
      );
      if (render !== null) closers.push(() => render.renderer.close());
      const visitParts: VisitParts = {
        render,
        fetcher: fetching,
        robots,
        gate: { maxDelayMs: o.maxDelayMs, retryDelayMs: o.retryDelayMs },
        sitemaps: o.sitemaps ? new SitemapFinder(rules) : null,
        parser,
        options: { rules, retry: { retries: o.retries, retryDelayMs: o.retryDelayMs }, crawler },
      };
      const loop = new CrawlLoop(
        {
          frontier,
          visit: async (lease, startBy, exchangeOver) => {
            await seeds.knowScopeOf(lease.url);
            return visit(lease, visitParts, startBy, exchangeOver);
          },
          warc,
          modules: moduleStep,
          write: parts.write,
          // The cookies the batch's responses set are kept before its leases complete.
          beforeComplete: cookies.save,
          onSettled: parts.onSettled,
        },
        { crawler, concurrency: o.concurrency, signal: o.signal },
      );
      return new Crawler(crawler, loop, warc, closers);
    } catch (err) {
      await closeAll(closers.reverse());
      throw err;
    }
  }

  /** Bytes written to this crawler's WARC files so far. */
  get warcBytes(): number {
    return this.warc.bytesWritten;
  }

  get warcFiles(): readonly string[] {
    return this.warc.files;
  }

  /** Leaves the store (its leases go back) and closes what it opened, last opened first. */
  close(): Promise<void> {
    return closeAll(this.closers.reverse());
  }
}

/**
 * The crawl's cookie jar: the store's (a resumed crawl keeps its session) with
 * --cookies' added; `save` hands the store what changed.
 */
async function cookieJarOf(
  frontier: Frontier,
  imported: readonly Cookie[],
): Promise<{ jar: CrawlCookies; save: () => Promise<void> }> {
  const jar = new CrawlCookies(await frontier.cookies());
  jar.add(imported);
  return {
    jar,
    save: async () => {
      const changes = jar.changes();
      if (changes.length > 0) await frontier.saveCookies(changes);
    },
  };
}

/** Runs every closer; the first error, if any, is thrown after all have run. */
export async function closeAll(closers: readonly (() => unknown)[]): Promise<void> {
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
