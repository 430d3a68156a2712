import { availableParallelism } from 'node:os';
import type { SeenStats } from '../frontier/types.js';
import type { ModulePage, ModuleStats } from '../modules/api.js';
import type { PageRecord } from '../output/pages-log.js';
import type { ScopeMode } from '../url/filter.js';
import { DEFAULT_SKIP_EXTENSIONS } from '../url/filter.js';
import { DEFAULT_USER_AGENT } from '../version.js';
import { CrawlOptionError } from './errors.js';
import type { LinkSettings } from './marker.js';
import {
  abortSignal,
  atLeast,
  callback,
  command,
  crawlName,
  extensionList,
  fileList,
  folder,
  fraction,
  listenAddress,
  type OptionKind,
  oneOf,
  onOff,
  regexList,
  resolveMap,
  shown,
  storeUrl,
  userAgent,
  whole,
} from './option-kinds.js';
import type { RunCounts } from './run-counts.js';
import { defaultSeen, type SeenKindName } from './seen-default.js';

/** Everything `cobweb crawl` and `crawl()` accept. Only `seeds` is required. */
export interface CrawlOptions {
  seeds: readonly string[];
  /** The store and every output; default './cobweb-data'. The same folder again resumes. */
  data?: string;
  /**
   * A shared store instead of the embedded one in `data`: a PostgreSQL connection string
   * (postgres://USER[:PASSWORD]@HOST[:PORT]/DB; docs/postgres.md). `data` keeps the outputs.
   */
  store?: string;
  /**
   * The crawl's name: each crawl has its own queue, seen set and budget. On a folder store
   * it is the folder crawls/NAME in `data` (the default crawl's is `data` itself), on
   * PostgreSQL its row in the database. Default 'default'.
   */
  crawl?: string;
  /** Delete cobweb's store and outputs in `data` first (only in a folder cobweb made). */
  fresh?: boolean;
  /** Queue the URLs whose fetch failed in earlier runs once more. */
  retryFailed?: boolean;
  maxPages?: number;
  /** Seeds are depth 0. */
  maxDepth?: number;
  scope?: ScopeMode;
  include?: readonly RegExp[];
  exclude?: readonly RegExp[];
  skipExtensions?: readonly string[];
  /** Fetches in flight in total. */
  concurrency?: number;
  /** Threads that parse pages; default the number of cores minus one, at least one. 0: parse on the crawl's thread. */
  parseThreads?: number;
  /** Fetches in flight to one host. */
  perHost?: number;
  /** Least gap in ms between the starts of two requests to one host (or address). */
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
  /**
   * The URL-seen set (docs/seen.md): memory, bloom, lmdb or drum. Not given: memory, or
   * drum for a crawl expected past 10^8 URLs (by maxPages or seenCapacity: defaultSeen).
   */
  seen?: 'memory' | 'bloom' | 'lmdb' | 'drum';
  /** bloom: the URLs it is sized for; memory: its starting size. */
  seenCapacity?: number;
  /** bloom: its false-positive rate at seenCapacity (a new URL taken as seen). */
  seenFpRate?: number;
  /** Crawl in passes (docs/seen.md): pass k fetches what pass k-1 found; stop after this many. */
  passes?: number;
  /** A shell command run at the end of each pass, with the pass number as its argument. */
  onPass?: string;
  /** Module files to load (ES modules; see docs/modules.md), after the built-ins. */
  modules?: readonly string[];
  /** Load the built-in modules (forms, meta, server); default true. */
  builtinModules?: boolean;
  /** A module call still running after this long is cut off and counted. */
  moduleTimeoutMs?: number;
  /**
   * Called for every fetched page, on the crawl's own thread, like a module's onPage and
   * under the same rules: a throw is counted and logged, a promise pending past
   * `moduleTimeoutMs` is counted and not waited for; the crawl goes on.
   */
  onPage?: (page: ModulePage) => unknown;
  /** Where log lines go (warnings, errors, module logs); default stderr. */
  onLog?: (line: string, level: LogLevel) => void;
  /** Called for every line written to pages.jsonl. */
  onRecord?: (record: PageRecord) => void;
  /** Called every `progressMs` with the crawl's numbers. */
  onProgress?: (progress: CrawlProgress) => void;
  progressMs?: number;
  /** Stops the crawl cleanly: no new fetches, in-flight ones finish and are recorded. */
  signal?: AbortSignal;
  /**
   * HOST:PORT: serve the console (the live page, /metrics, /status) from the crawl,
   * 127.0.0.1 when only a port is given, port 0 for a free one. Its actions need the
   * token in `<data>/token` (made with mode 0600 when missing).
   */
  http?: string;
  /** Called once the console listens, with its URL; default: a log line. */
  onConsole?: (url: string) => void;
}

/** 'error': something failed; 'warning': something the user may not want; 'info': module logs and the like. */
export type LogLevel = 'error' | 'warning' | 'info';

export interface CrawlProgress {
  /** In the store, this run and earlier runs on the same folder: URLs that got a response (any status). */
  done: number;
  /** In the store: URLs given up on without a response (a robots.txt answering 5xx included). */
  failed: number;
  queued: number;
  inFlight: number;
  /** In the store: URLs not fetched because the crawl's rules (filters, too long) or robots.txt refused them. */
  rejected: number;
  /** URLs that got an HTTP response this run, whatever the status. */
  fetchedThisRun: number;
  /** This run: 4xx and 5xx responses, and URLs that failed without one (the summary's "errors"). */
  errorsThisRun: number;
  elapsedMs: number;
  pagesPerSec: number;
  /** The store's seen set: its kind and size, and a bloom filter's estimated false-positive rate as it fills. */
  seen?: SeenStats;
}

export interface CrawlSummary extends CrawlProgress {
  /** Per module (and the library's onPage): calls, errors, timeouts, pages skipped, mean time. */
  modules: ModuleStats[];
  data: string;
  pagesFile: string;
  warcFiles: readonly string[];
  /**
   * Why the crawl ended; 'passes': --passes N were done, and more is queued for the next
   * run; 'console': stopped from the console's Stop.
   */
  stoppedBy: 'finished' | 'max-pages' | 'signal' | 'passes' | 'console';
  /** This run's URLs by outcome: fetched by status class, failed, refused by robots.txt, refused by reason. */
  thisRun: RunCounts;
  /** The options deciding which URLs are followed that differ from the last run on this folder (cobweb.json). */
  changedSettings: (keyof LinkSettings)[];
}

/** What an option is when not given (the README and --help say the same). */
export const DEFAULTS = {
  data: './cobweb-data',
  crawl: 'default',
  maxPages: Number.POSITIVE_INFINITY,
  /** Far enough for real sites, near enough that a trap that only goes deeper ends. */
  maxDepth: 50,
  scope: 'domain' as ScopeMode,
  concurrency: 16,
  /** The crawl's thread keeps the network, the store and the writing; the other cores parse. */
  parseThreads: Math.max(1, availableParallelism() - 1),
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
  seenFpRate: 0.001,
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

/** One option: its kind of value and, when the command line has it, its flag and help. */
export interface OptionRule {
  kind: OptionKind;
  /** Commander's flag spelling, e.g. '--max-pages <n>'; absent for options only the library has. */
  flag?: string;
  help?: string;
}

type RuledOption = Exclude<keyof CrawlOptions, 'seeds'>;

/**
 * Every option crawl() takes, in --help order: the one set of rules the command line
 * (src/cli/crawl-command.ts builds its flags from it) and crawl() (checkCrawlOptions)
 * both apply. A new option is one line here.
 */
export const OPTION_RULES: { readonly [K in RuledOption]-?: OptionRule } = {
  data: { kind: folder, flag: '--data <dir>', help: 'the store and every output (pages.jsonl, warc/)' },
  store: {
    kind: storeUrl,
    flag: '--store <url>',
    help: 'crawl on PostgreSQL (postgres://USER@HOST/DB; else COBWEB_STORE) instead of the embedded store in --data',
  },
  crawl: {
    kind: crawlName,
    flag: '--crawl <name>',
    help: "which crawl, each with its own queue, seen set and budget: on the embedded store the folder crawls/NAME in --data (default: --data itself), on PostgreSQL (--store) its row; with --server, the server's crawl NAME",
  },
  fresh: {
    kind: onOff,
    flag: '--fresh',
    help: "delete cobweb's store and outputs in --data (a folder cobweb made) and start over",
  },
  retryFailed: {
    kind: onOff,
    flag: '--retry-failed',
    help: 'queue the URLs whose fetch failed in earlier runs once more',
  },
  maxPages: {
    kind: whole(0, true),
    flag: '--max-pages <n>',
    help: 'stop once this many URLs have a final outcome (fetched, or failed for good), counting earlier runs; URLs robots.txt refuses do not count',
  },
  maxDepth: {
    kind: whole(0),
    flag: '--max-depth <n>',
    help: 'follow links this many hops from a seed (a seed is depth 0)',
  },
  scope: {
    kind: oneOf(['host', 'domain', 'any']),
    flag: '--scope <scope>',
    help: 'which links to follow: same host, same registrable domain, or any',
  },
  include: {
    kind: regexList,
    flag: '--include <regex>',
    help: 'only follow URLs matching one of these (repeatable)',
  },
  exclude: {
    kind: regexList,
    flag: '--exclude <regex>',
    help: 'never follow URLs matching any of these (repeatable)',
  },
  concurrency: { kind: whole(1), flag: '--concurrency <n>', help: 'fetches in flight in total' },
  parseThreads: {
    kind: whole(0),
    flag: '--parse-threads <n>',
    help: "threads that parse pages (default: the cores but one, at least 1; 0: on the crawl's own thread)",
  },
  perHost: { kind: whole(1), flag: '--per-host <n>', help: 'fetches in flight to one host' },
  delayMs: {
    kind: whole(0),
    flag: '--delay <ms>',
    help: 'least gap between the starts of two requests to one host',
  },
  delayFactor: {
    kind: atLeast(0),
    flag: '--delay-factor <n>',
    help: 'the gap is at least this many times the last response time',
  },
  maxDelayMs: {
    kind: whole(0),
    flag: '--max-delay <ms>',
    help: 'most gap between two requests to one host, Crawl-delay included',
  },
  politenessKey: {
    kind: oneOf(['host', 'ip']),
    flag: '--politeness-key <key>',
    help: 'count politeness per host, or per IP address (hosts sharing one share it)',
  },
  retries: {
    kind: whole(0),
    flag: '--retries <n>',
    help: 'tries after the first for 5xx, 429, timeouts and resets',
  },
  retryDelayMs: {
    kind: whole(0),
    flag: '--retry-delay <ms>',
    help: 'wait before the first retry; doubles each time',
  },
  hostBackoffMs: {
    kind: whole(0),
    flag: '--host-backoff <ms>',
    help: 'wait after a host fails to connect; doubles each time in a row',
  },
  retireAfter: {
    kind: whole(1),
    flag: '--retire-after <n>',
    help: 'give up on a host after this many failed connections in a row',
  },
  maxPagesPerHost: {
    kind: whole(1, true),
    flag: '--max-pages-per-host <n>',
    help: 'take at most this many URLs from one host',
  },
  maxPathSegments: {
    kind: whole(1),
    flag: '--max-path-segments <n>',
    help: 'refuse URLs with more path segments (a trap)',
  },
  maxSegmentRepeats: {
    kind: whole(1),
    flag: '--max-segment-repeats <n>',
    help: 'refuse URLs repeating a path segment more often (a trap)',
  },
  maxQueryParams: {
    kind: whole(0),
    flag: '--max-query-params <n>',
    help: 'refuse URLs with more query parameters (a trap)',
  },
  ignoreRobots: {
    kind: onOff,
    flag: '--ignore-robots',
    help: 'fetch what robots.txt disallows (be sure you may)',
  },
  sitemaps: {
    kind: onOff,
    flag: '--sitemaps',
    help: "read each site's sitemaps (named in robots.txt, else /sitemap.xml) for URLs",
  },
  allowPrivate: {
    kind: onOff,
    flag: '--allow-private',
    help: 'fetch loopback, private and link-local addresses even when no seed is on one',
  },
  userAgent: {
    kind: userAgent,
    flag: '--user-agent <string>',
    help: 'User-Agent header; its first word is the robots.txt product token',
  },
  resolve: {
    kind: resolveMap,
    flag: '--resolve <host:port:addr>',
    help: 'connect to addr for host:port, keeping the URL and Host header (repeatable, like curl)',
  },
  skipExtensions: {
    kind: extensionList,
    flag: '--skip-ext <list>',
    help: `comma-separated extensions never fetched; "" for none (default: ${DEFAULT_SKIP_EXTENSIONS.length} image, video, audio, archive, font and executable extensions)`,
  },
  followNofollow: { kind: onOff, flag: '--follow-nofollow', help: 'also follow rel=nofollow links' },
  maxBodyBytes: {
    kind: whole(1),
    flag: '--max-body <bytes>',
    help: 'largest body kept, counted after decompression',
  },
  totalTimeoutMs: { kind: whole(1), flag: '--timeout <ms>', help: 'longest one whole exchange may take' },
  connectTimeoutMs: {
    kind: whole(1),
    flag: '--connect-timeout <ms>',
    help: 'longest a connection may take to open',
  },
  firstByteTimeoutMs: {
    kind: whole(1),
    flag: '--first-byte-timeout <ms>',
    help: 'longest to wait for the response head (and between two body chunks)',
  },
  maxRedirects: {
    kind: whole(0),
    flag: '--max-redirects <n>',
    help: 'follow at most this many redirects in a row',
  },
  seen: {
    kind: oneOf(['memory', 'bloom', 'lmdb', 'drum']),
    flag: '--seen <kind>',
    help: 'the URL-seen set: memory (exact, in RAM), bloom (small, loses a few), lmdb (on disk), drum (on disk, flat RAM) (default: memory, or drum when --max-pages or --seen-capacity says past 10^8 URLs)',
  },
  seenCapacity: {
    kind: whole(1),
    flag: '--seen-capacity <n>',
    help: "URLs the bloom filter is sized for (default 10000000); memory's starting size (default: the store's URLs)",
  },
  seenFpRate: {
    kind: fraction,
    flag: '--seen-fp-rate <p>',
    help: "the bloom filter's false-positive rate at --seen-capacity: new URLs taken as seen, never crawled",
  },
  passes: {
    kind: whole(1),
    flag: '--passes <n>',
    help: 'crawl in passes, each fetching what the last one found (one depth), and stop at the boundary after n of them',
  },
  onPass: {
    kind: command,
    flag: '--on-pass <cmd>',
    help: 'run this shell command at the end of each pass, with the pass number as its argument',
  },
  modules: {
    kind: fileList,
    flag: '--module <path>',
    help: 'load a module (an ES module file; see docs/modules.md); repeatable',
  },
  moduleTimeoutMs: {
    kind: whole(1),
    flag: '--module-timeout <ms>',
    help: 'cut off a module call after this long',
  },
  builtinModules: {
    kind: onOff,
    flag: '--no-builtin-modules',
    help: 'do not load the built-in modules (forms, meta, server)',
  },
  http: {
    kind: listenAddress,
    flag: '--http <host:port>',
    help: 'serve the live console, /metrics and /status here (127.0.0.1 for a port alone; port 0 picks one); its actions need the token',
  },
  warcMaxBytes: { kind: whole(1) },
  onPage: { kind: callback },
  onLog: { kind: callback },
  onRecord: { kind: callback },
  onProgress: { kind: callback },
  onConsole: { kind: callback },
  progressMs: { kind: whole(1) },
  signal: { kind: abortSignal },
};

/**
 * Checks what was given to crawl() against OPTION_RULES: an unknown key or a value of
 * the wrong kind is a CrawlOptionError naming the option. `undefined` means "not given".
 */
/** Options with their defaults filled in: what a crawl runs with. */
export type Settings = CrawlOptions & typeof DEFAULTS & { seen: SeenKindName };

/** The options given, over the defaults (an option given as undefined takes its default). */
export function withDefaults(options: CrawlOptions): Settings {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return {
    ...DEFAULTS,
    ...given,
    seen: options.seen ?? defaultSeen(options),
    seeds: options.seeds,
  } as Settings;
}

export function checkCrawlOptions(options: unknown): asserts options is CrawlOptions {
  if (typeof options !== 'object' || options === null) {
    throw new CrawlOptionError(`crawl() takes an options object, like { seeds: ['https://example.com/'] }`);
  }
  const rules: Record<string, OptionRule | undefined> = OPTION_RULES;
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seeds') {
      if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
        throw new CrawlOptionError(`seeds must be a list of URLs, got ${shown(value)}`);
      }
      continue;
    }
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      const near = nearestOption(key);
      throw new CrawlOptionError(
        `unknown option "${key}"${near === null ? '' : `; did you mean "${near}"?`} (see CrawlOptions)`,
      );
    }
    if (value !== undefined && !rule.kind.check(value)) {
      throw new CrawlOptionError(`${key} must be ${rule.kind.expected}, got ${shown(value)}`);
    }
  }
  if (!('seeds' in options)) {
    throw new CrawlOptionError(`seeds is missing: crawl({ seeds: ['https://example.com/'] })`);
  }
}

/** The known option closest to a misspelt one, if any is close. */
function nearestOption(key: string): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const name of ['seeds', ...Object.keys(OPTION_RULES)]) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}
