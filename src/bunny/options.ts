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
  data: string;
  pagesFile: string;
  warcFiles: readonly string[];
  /** Why the crawl ended. */
  stoppedBy: 'finished' | 'max-pages' | 'signal';
  /** Counts by HTTP status class and failure reason, this run. */
  outcomes: Record<string, number>;
}

export const DEFAULTS = {
  data: './cobweb-data',
  maxPages: Number.POSITIVE_INFINITY,
  maxDepth: Number.POSITIVE_INFINITY,
  scope: 'domain' as ScopeMode,
  concurrency: 16,
  perHost: 1,
  delayMs: 1000,
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
} as const;
