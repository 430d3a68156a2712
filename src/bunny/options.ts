import type { ModulePage, ModuleStats } from '../modules/api.js';
import type { PageRecord } from '../output/pages-log.js';
import type { ScopeMode } from '../url/filter.js';
import { DEFAULT_SKIP_EXTENSIONS } from '../url/filter.js';
import { DEFAULT_USER_AGENT } from '../version.js';

/** Everything `cobweb crawl` and `crawl()` accept. Only `seeds` is required. */
export interface CrawlOptions {
  seeds: readonly string[];
  /** The store and every output; default './cobweb-data'. The same folder again resumes. */
  data?: string;
  /** Delete the store and outputs in `data` first. */
  fresh?: boolean;
  maxPages?: number;
  /** Seeds are depth 0. */
  maxDepth?: number;
  scope?: ScopeMode;
  include?: readonly RegExp[];
  exclude?: readonly RegExp[];
  skipExtensions?: readonly string[];
  /** Fetches in flight in total. */
  concurrency?: number;
  /** Fetches in flight to one host. */
  perHost?: number;
  /** Least gap in ms between two requests to one host. */
  delayMs?: number;
  /** The gap is at least this many times the last response time (Heritrix's delay factor). */
  delayFactor?: number;
  /** Most gap between two requests to one host, Crawl-delay included. */
  maxDelayMs?: number;
  /** 'ip': hosts on one address share one politeness budget. */
  politenessKey?: 'host' | 'ip';
  /** Transient failures (5xx, 429, timeouts, resets) are tried this many more times. */
  retries?: number;
  /** Wait before the first retry; doubles with each. */
  retryDelayMs?: number;
  /** First wait after a host fails to connect; doubles with each failure in a row. */
  hostBackoffMs?: number;
  /** After this many failed connections in a row, a host's queued URLs are failed. */
  retireAfter?: number;
  /** URLs taken per host at most; more are refused ('host-budget'). */
  maxPagesPerHost?: number;
  maxPathSegments?: number;
  maxSegmentRepeats?: number;
  maxQueryParams?: number;
  /** Fetch URLs robots.txt disallows (prints a warning on the command line). */
  ignoreRobots?: boolean;
  /** Read each site's sitemaps (named in robots.txt, else /sitemap.xml) for URLs. */
  sitemaps?: boolean;
  /** Fetch loopback, private, link-local and similar addresses even when no seed is on one. */
  allowPrivate?: boolean;
  userAgent?: string;
  /** 'host:port' -> address to connect to, like curl --resolve. */
  resolve?: ReadonlyMap<string, string>;
  followNofollow?: boolean;
  maxBodyBytes?: number;
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxRedirects?: number;
  /** Roll WARC files at this size. */
  warcMaxBytes?: number;
  /** Module files to load (ES modules; see docs/modules.md), after the built-ins. */
  modules?: readonly string[];
  /** Load the built-in modules (forms, meta, server); default true. */
  builtinModules?: boolean;
  /** A module call still running after this long is cut off and counted. */
  moduleTimeoutMs?: number;
  /** Called for every fetched page, on the crawl's own thread, like a module's onPage. */
  onPage?: (page: ModulePage) => unknown;
  /** Where log lines go (module logs and errors); default stderr. */
  onLog?: (line: string) => void;
  /** Called for every line written to pages.jsonl. */
  onRecord?: (record: PageRecord) => void;
  /** Called every `progressMs` with the crawl's numbers. */
  onProgress?: (progress: CrawlProgress) => void;
  progressMs?: number;
  /** Stops the crawl cleanly: no new fetches, in-flight ones finish and are recorded. */
  signal?: AbortSignal;
}

export interface CrawlProgress {
  /** URLs fetched or failed, this run and earlier runs on the same store. */
  done: number;
  failed: number;
  queued: number;
  inFlight: number;
  rejected: number;
  /** Fetched this run. */
  fetchedThisRun: number;
  /** HTTP errors and failures this run. */
  errorsThisRun: number;
  elapsedMs: number;
  pagesPerSec: number;
}

export interface CrawlSummary extends CrawlProgress {
  /** Per module: calls, errors, timeouts, mean time. */
  modules: ModuleStats[];
  /** Modules that were not loaded, with why. */
  refusedModules: { path: string; reason: string }[];
  data: string;
  pagesFile: string;
  warcFiles: readonly string[];
  /** Why the crawl ended. */
  stoppedBy: 'finished' | 'max-pages' | 'signal';
  /** Counts by HTTP status class and failure reason, this run. */
  outcomes: Record<string, number>;
}

/** What an option is when not given (the README and --help say the same). */
export const DEFAULTS = {
  data: './cobweb-data',
  maxPages: Number.POSITIVE_INFINITY,
  /** Far enough for real sites, near enough that a trap that only goes deeper ends. */
  maxDepth: 50,
  scope: 'domain' as ScopeMode,
  concurrency: 16,
  perHost: 1,
  delayMs: 1000,
  delayFactor: 2,
  maxDelayMs: 30_000,
  politenessKey: 'host' as 'host' | 'ip',
  retries: 2,
  retryDelayMs: 10_000,
  hostBackoffMs: 10_000,
  maxHostBackoffMs: 10 * 60_000,
  retireAfter: 5,
  maxPagesPerHost: Number.POSITIVE_INFINITY,
  maxPathSegments: 20,
  maxSegmentRepeats: 2,
  maxQueryParams: 20,
  ignoreRobots: false,
  sitemaps: false,
  allowPrivate: false,
  robotsTtlMs: 24 * 60 * 60_000,
  builtinModules: true,
  moduleTimeoutMs: 5000,
  userAgent: DEFAULT_USER_AGENT,
  skipExtensions: DEFAULT_SKIP_EXTENSIONS,
  maxBodyBytes: 10 * 1024 * 1024,
  connectTimeoutMs: 10_000,
  firstByteTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  maxRedirects: 20,
  warcMaxBytes: 1_000_000_000,
  progressMs: 1000,
  /** A lease outlives any fetch (total timeout + margin); only the server's remote bunnies can lose one. */
  leaseMs: 5 * 60_000,
};
