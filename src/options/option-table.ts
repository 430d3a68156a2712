import { availableParallelism } from 'node:os';
import type { HostRules } from '../frontier/policy/host-rules.js';
import type { ModulePage } from '../modules/api.js';
import type { PageRecord } from '../output/pages-log.js';
import { DEFAULT_SKIP_EXTENSIONS } from '../url/filter.js';
import { DEFAULT_USER_AGENT } from '../version.js';
import { hostRules } from './host-rules-kind.js';
import {
  abortSignal,
  atLeast,
  callback,
  command,
  crawlName,
  duration,
  extensionList,
  file,
  fileList,
  folder,
  fraction,
  headerMap,
  hostNameList,
  listenAddress,
  type OptionKind,
  oneOf,
  onOff,
  proxyUrl,
  regexList,
  resolveMap,
  storeUrl,
  userAgent,
  whole,
} from './option-kinds.js';
import type { CrawlProgress, LogLevel } from './reports.js';

/** Which table of docs/options.md an option is in (test/docs/option-tables.test.ts holds them to this table). */
export type DocSection =
  | 'followed'
  | 'politeness'
  | 'limits'
  | 'requests'
  | 'render'
  | 'run'
  | 'seen'
  | 'passes'
  | 'file';

export interface OptionDocs {
  section: DocSection;
  /** The "default" cell of docs/options.md, when the value itself does not say it well ("no limit"). */
  default?: string;
  /** The "what it does" cell of docs/options.md; else the help text. */
  text?: string;
}

/** One option: everything about it, in one place. */
export interface OptionSpec<T> {
  /** Its type, its check, and how the command line and a config file spell it. */
  kind: OptionKind<T>;
  default?: T;
  /** Commander's flag spelling, e.g. '--max-pages <n>'; absent for options only crawl() and config files have. */
  flag?: string;
  /** One line: --help says it, and docs/options.md too unless `docs.text` says more. */
  help: string;
  /** How --help shows a default that depends on the machine (else the default's value). */
  helpDefault?: string;
  /** Where docs/options.md lists it; absent for what only crawl() takes (callbacks, a signal). */
  docs?: OptionDocs;
}

export interface DefaultedSpec<T> extends OptionSpec<T> {
  default: T;
}

type Described = Omit<OptionSpec<unknown>, 'kind' | 'default'>;

/** An option of type T (from its kind), with or without a default of that type. */
function option<T>(kind: OptionKind<T>, spec: Described & { default: NoInfer<T> }): DefaultedSpec<T>;
function option<T>(kind: OptionKind<T>, spec: Described): OptionSpec<T>;
function option<T>(kind: OptionKind<T>, spec: Described & { default?: T }): OptionSpec<T> {
  return { kind, ...spec };
}

/**
 * Every option crawl() takes, in --help order: the one table the library's type and
 * checks (options.ts), the command line's flags (src/cli/rule-options.ts), the config
 * file's keys (src/options/config-file.ts) and the tables of docs/options.md come from.
 * A new option is one entry here.
 */
export const OPTIONS = {
  data: option(folder, {
    default: './cobweb-data',
    flag: '--data <dir>',
    help: 'the store and every output (pages.jsonl, warc/)',
    docs: {
      section: 'followed',
      text: 'the store and every output; the same DIR again resumes (see [The data folder](#the-data-folder))',
    },
  }),
  store: option(storeUrl, {
    flag: '--store <url>',
    help: 'crawl on PostgreSQL (postgres://USER@HOST/DB; else COBWEB_STORE) instead of the embedded store in --data',
    docs: {
      section: 'followed',
      default: '`COBWEB_STORE`, else none',
      text: 'crawl on PostgreSQL (`postgres://USER@HOST/DB`) instead of the embedded store in `--data`, which keeps the outputs (see [Crawling on PostgreSQL](#crawling-on-postgresql-bunnies-with-no-server))',
    },
  }),
  crawl: option(crawlName, {
    default: 'default',
    flag: '--crawl <name>',
    help: "which crawl, each with its own queue, seen set and budget: on the embedded store the folder crawls/NAME in --data (default: --data itself), on PostgreSQL (--store) its row; with --server, the server's crawl NAME",
    docs: {
      section: 'followed',
      text: "which crawl; each has its own queue, seen set and budget. On the embedded store the folder `crawls/NAME` in `--data` (`default`: `--data` itself), on PostgreSQL (`--store`) its row in the database; with `--server`, the server's crawl NAME",
    },
  }),
  fresh: option(onOff, {
    flag: '--fresh',
    help: "delete cobweb's store and outputs in --data (a folder cobweb made) and start over (a crawl in PostgreSQL: cobweb reset)",
    docs: { section: 'followed' },
  }),
  retryFailed: option(onOff, {
    flag: '--retry-failed',
    help: 'queue the URLs whose fetch failed in earlier runs once more',
    docs: { section: 'followed' },
  }),
  maxPages: option(whole(0, true), {
    default: Number.POSITIVE_INFINITY,
    flag: '--max-pages <n>',
    help: 'stop once this many URLs have a final outcome (fetched, or failed for good), counting earlier runs; URLs robots.txt refuses do not count',
    docs: { section: 'followed' },
  }),
  maxDepth: option(whole(0), {
    // Far enough for real sites, near enough that a trap that only goes deeper ends.
    default: 50,
    flag: '--max-depth <n>',
    help: 'follow links this many hops from a seed (a seed is depth 0)',
    docs: { section: 'followed' },
  }),
  scope: option(oneOf(['host', 'domain', 'any']), {
    default: 'domain',
    flag: '--scope <scope>',
    help: 'which links to follow: same host, same registrable domain, or any',
    docs: {
      section: 'followed',
      text: "follow links to the seed's host, its registrable domain (by the Public Suffix List; an IP address is its own scope), or anywhere",
    },
  }),
  include: option(regexList, {
    flag: '--include <regex>',
    help: 'only follow URLs matching one of these (repeatable)',
    docs: { section: 'followed' },
  }),
  exclude: option(regexList, {
    flag: '--exclude <regex>',
    help: 'never follow URLs matching any of these (repeatable)',
    docs: { section: 'followed' },
  }),
  concurrency: option(whole(1), {
    default: 16,
    flag: '--concurrency <n>',
    help: 'fetches in flight in total',
    docs: { section: 'politeness' },
  }),
  parseThreads: option(whole(0), {
    // The crawl's thread keeps the network, the store and the writing; the other cores parse.
    default: Math.max(1, availableParallelism() - 1),
    flag: '--parse-threads <n>',
    help: "threads that parse pages (0: on the crawl's own thread)",
    helpDefault: 'the cores but one, at least 1',
    docs: {
      section: 'politeness',
      default: 'the cores but one, at least 1',
      text: "threads that parse pages, each page's bytes moved to one, not copied; 0 parses on the crawl's own thread",
    },
  }),
  perHost: option(whole(1), {
    default: 1,
    flag: '--per-host <n>',
    help: 'fetches in flight to one host',
    docs: { section: 'politeness', text: 'fetches in flight to one host (or address)' },
  }),
  delayMs: option(whole(0), {
    default: 1000,
    flag: '--delay <ms>',
    help: 'least gap between the starts of two requests to one host',
    docs: { section: 'politeness' },
  }),
  delayFactor: option(atLeast(0), {
    default: 2,
    flag: '--delay-factor <n>',
    help: 'the gap is at least this many times the last response time',
    docs: { section: 'politeness' },
  }),
  maxDelayMs: option(whole(0), {
    default: 30_000,
    flag: '--max-delay <ms>',
    help: 'most gap between two requests to one host, Crawl-delay included',
    docs: { section: 'politeness' },
  }),
  politenessKey: option(oneOf(['host', 'ip']), {
    default: 'host',
    flag: '--politeness-key <key>',
    help: 'count politeness per host, or per IP address (hosts sharing one share it)',
    docs: { section: 'politeness' },
  }),
  retries: option(whole(0), {
    default: 2,
    flag: '--retries <n>',
    help: 'tries after the first for 5xx, 429, timeouts and resets',
    docs: {
      section: 'politeness',
      text: 'transient failures (5xx, 408, 429, timeouts, resets, refused connections, a DNS server that did not answer) are tried N more times; a name that does not exist is not; only the last try is recorded',
    },
  }),
  retryDelayMs: option(whole(0), {
    default: 10_000,
    flag: '--retry-delay <ms>',
    help: 'wait before the first retry; doubles each time',
    docs: { section: 'politeness' },
  }),
  hostBackoffMs: option(whole(0), {
    default: 10_000,
    flag: '--host-backoff <ms>',
    help: 'wait after a host fails to connect; doubles each time in a row',
    docs: {
      section: 'politeness',
      text: 'a host that fails to connect waits this long, doubling with each failure in a row (at most 10 minutes)',
    },
  }),
  retireAfter: option(whole(1), {
    default: 5,
    flag: '--retire-after <n>',
    help: 'give up on a host after this many failed connections in a row',
    docs: {
      section: 'politeness',
      text: "after N failed connections in a row, the host's queued URLs are recorded as `host-unreachable` and it is left alone",
    },
  }),
  maxPagesPerHost: option(whole(1, true), {
    default: Number.POSITIVE_INFINITY,
    flag: '--max-pages-per-host <n>',
    help: 'take at most this many URLs from one host (what ends a host of endless URLs)',
    docs: {
      section: 'limits',
      text: 'take at most N URLs from one host, queued or fetched (what ends a host of endless URLs); more are recorded as `filtered`, detail `host-budget`',
    },
  }),
  maxPathSegments: option(whole(1), {
    default: 20,
    flag: '--max-path-segments <n>',
    help: 'refuse URLs with more path segments (a trap)',
    docs: {
      section: 'limits',
      text: 'refuse URLs with more path segments (a trap): `filtered`, detail `path-depth`',
    },
  }),
  maxSegmentRepeats: option(whole(1), {
    default: 2,
    flag: '--max-segment-repeats <n>',
    help: 'refuse URLs repeating a path segment more often (a trap)',
    docs: {
      section: 'limits',
      text: 'refuse URLs repeating one path segment more often than this (a trap): `filtered`, detail `repeated-segment`',
    },
  }),
  maxQueryParams: option(whole(0), {
    default: 20,
    flag: '--max-query-params <n>',
    help: 'refuse URLs with more query parameters (a trap)',
    docs: {
      section: 'limits',
      text: 'refuse URLs with more query parameters (a trap): `filtered`, detail `query-params`',
    },
  }),
  ignoreRobots: option(onOff, {
    default: false,
    flag: '--ignore-robots',
    help: 'fetch what robots.txt disallows (be sure you may)',
    docs: { section: 'followed', text: 'neither read nor obey robots.txt (prints a warning)' },
  }),
  sitemaps: option(onOff, {
    default: false,
    flag: '--sitemaps',
    help: "read each site's sitemaps (named in robots.txt, else /sitemap.xml) for URLs",
    docs: {
      section: 'followed',
      text: "read each site's sitemaps (named in robots.txt, else `/sitemap.xml`; indexes and gzipped ones too) and crawl the URLs they list",
    },
  }),
  allowPrivate: option(onOff, {
    default: false,
    flag: '--allow-private',
    help: 'fetch loopback, private and link-local addresses even when no seed is on one',
    docs: { section: 'requests' },
  }),
  userAgent: option(userAgent, {
    default: DEFAULT_USER_AGENT,
    flag: '--user-agent <string>',
    help: 'User-Agent header; its first word is the robots.txt product token',
    docs: {
      section: 'requests',
      default: '`cobweb/<version> (+<project url>)`',
      text: 'the User-Agent header; its first word is the robots.txt product token, so it must start with one (letters, `-`, `_`)',
    },
  }),
  headers: option(headerMap, {
    flag: '--header <header>',
    help: "send this request header ('Name: value'; repeatable); adds to the config file's headers (one of the same name replaced), and its host sections add their own",
    docs: {
      section: 'requests',
      text: "send this header with every request (`'Name: value'`, repeatable); on the command line it adds to the config file's `headers:`, replacing a header of the same name (`cobweb config --print` shows the result); a host section of the config file adds or overrides headers for its hosts. Host, User-Agent, Connection and the conditional headers are the crawler's own",
    },
  }),
  cookies: option(file, {
    flag: '--cookies <file>',
    help: "import a Netscape cookies.txt (curl's, wget's) into the crawl's cookie jar",
    docs: {
      section: 'requests',
      text: "import a Netscape `cookies.txt` (as curl `-c` and wget `--save-cookies` write it) into the crawl's cookie jar; see [Cookies](#cookies)",
    },
  }),
  proxy: option(proxyUrl, {
    flag: '--proxy <url>',
    help: 'send requests through this HTTP(S) proxy (else HTTPS_PROXY / HTTP_PROXY; NO_PROXY is honoured)',
    docs: {
      section: 'requests',
      default: '`HTTPS_PROXY`, `HTTP_PROXY`, else none',
      text: 'send every request through this `http://` or `https://` proxy (`http://USER:PASSWORD@HOST:PORT` to log in); hosts in `NO_PROXY` go direct; see [Proxies](#proxies)',
    },
  }),
  http2: option(onOff, {
    default: false,
    flag: '--http2',
    help: 'speak HTTP/2 to https:// servers that offer it (ALPN), HTTP/1.1 to the rest',
    docs: { section: 'requests' },
  }),
  caFile: option(file, {
    flag: '--ca-file <file>',
    help: "trust the CA certificates in this PEM file too, for the sites (besides Node's own)",
    docs: {
      section: 'requests',
      text: "trust the CA certificates in this PEM file as well as Node's own, for the sites (a company's CA, a test server's); certificates are checked all the same",
    },
  }),
  proxyCaFile: option(file, {
    flag: '--proxy-ca-file <file>',
    help: "trust the CA certificates in this PEM file for an https:// proxy (besides Node's own); --ca-file is for the sites",
    docs: {
      section: 'requests',
      text: "trust the CA certificates in this PEM file for an `https://` proxy's own certificate, as well as Node's own (curl's `--proxy-cacert`); `--ca-file` is for the sites, not the proxy",
    },
  }),
  resolve: option(resolveMap, {
    flag: '--resolve <host:port:addr>',
    help: 'connect to addr for host:port, keeping the URL and Host header (repeatable, like curl); host may be *.example.com for every host under it (an exact host wins)',
    docs: {
      section: 'requests',
      text: 'connect to addr for host:port, keeping the URL and Host header (repeatable, like curl); host may be `*.example.com` for every host under it, `example.com` itself not included (an exact host wins, then the longest suffix)',
    },
  }),
  skipExtensions: option(extensionList, {
    default: DEFAULT_SKIP_EXTENSIONS,
    flag: '--skip-ext <list>',
    help: `comma-separated extensions never fetched; "" for none (default: ${DEFAULT_SKIP_EXTENSIONS.length} image, video, audio, archive, font and executable extensions)`,
    docs: {
      section: 'followed',
      default: 'images, video, audio, archives, fonts, executables',
      text: 'comma-separated extensions never fetched; `""` turns the filter off',
    },
  }),
  followNofollow: option(onOff, {
    flag: '--follow-nofollow',
    help: 'also follow rel=nofollow links',
    docs: { section: 'followed', text: 'also follow `rel=nofollow` links' },
  }),
  render: option(oneOf(['never', 'auto', 'always']), {
    default: 'never',
    flag: '--render <when>',
    help: 'render HTML pages in Chromium before reading their links: never, auto (pages whose HTML looks built by script), always',
    docs: {
      section: 'render',
      text: 'read HTML pages as Chromium shows them, scripts run: their links, title and facts come from the rendered DOM, and their pages.jsonl line says `"rendered": true`. `auto` renders a page only when its fetched HTML looks built by script (see [Rendering](#rendering-pages-in-chromium)). With a server, the crawl\'s setting, given to its bunnies',
    },
  }),
  browser: option(file, {
    flag: '--browser <path>',
    help: 'the Chromium --render runs (default: COBWEB_BROWSER, else chromium, chromium-browser or google-chrome on PATH); never downloaded',
    docs: {
      section: 'render',
      default: '`COBWEB_BROWSER`, else `chromium`, `chromium-browser`, `google-chrome` on PATH',
      text: 'the Chromium `--render` runs. None found: the command stops before anything is touched (exit code 2). cobweb never downloads a browser',
    },
  }),
  renderConcurrency: option(whole(1), {
    default: Math.max(1, Math.min(4, availableParallelism() - 1)),
    flag: '--render-concurrency <n>',
    help: 'pages rendered at once, in one Chromium (default: the cores but one, 1 to 4)',
    docs: {
      section: 'render',
      default: 'the cores but one, 1 to 4',
      text: 'pages rendered at once, each in its own tab of one Chromium, a browser context per host; the browser is replaced every 100 pages',
    },
  }),
  renderWaitMs: option(whole(0), {
    default: 2_000,
    flag: '--render-wait <ms>',
    help: "after a rendered page's load event, how long to wait at most for its network to go quiet",
    docs: {
      section: 'render',
      text: "after a rendered page's load event, how long to wait at most for its network to go quiet (250 ms without a request under way); 0: the load event is enough; `--timeout` caps the whole page",
    },
  }),
  renderMemoryMb: option(whole(1), {
    default: 1_024,
    flag: '--render-memory <mb>',
    help: "the memory (MB) of the browser's processes past which a new browser takes over",
    docs: {
      section: 'render',
      text: "the memory (MB, the PSS of the browser's processes from /proc) past which the browser gets no new page and a new one takes over; read after a page, at most once a second, and said at the info level. One page's JavaScript heap is held to it (at least 1024 MB): a page that eats more crashes its own renderer (`render-crash`)",
    },
  }),
  renderRequests: option(whole(0), {
    default: 100,
    flag: '--render-requests <n>',
    help: 'most requests a rendered page makes of its own (scripts, stylesheets, XHR); the rest are refused',
    docs: {
      section: 'render',
      text: "most requests a rendered page makes of its own (scripts, stylesheets, XHR), all hosts together; the rest are refused, and the page's `subrequests` says how many of each. Each goes out in its host's turn: `--per-host` at a time per host (one by default), `--delay` / Crawl-delay after the last one ended",
    },
  }),
  screenshot: option(onOff, {
    flag: '--screenshot',
    help: 'with --render: keep a PNG of each rendered page in the WARC (a resource record, urn:screenshot:URL)',
    docs: {
      section: 'render',
      text: "a PNG of each rendered page (its first 1280x1000 pixels) in the WARC, as a `resource` record whose `WARC-Target-URI` is `urn:screenshot:` and the page's URL (Browsertrix's form). Only with `--render`: without it the command stops before anything is touched (exit code 2)",
    },
  }),
  requisites: option(onOff, {
    flag: '--requisites',
    help: "also fetch and archive what each page needs to be shown (wget's -p): stylesheets, scripts, images, icons, media, CSS url() and @import",
    docs: {
      section: 'followed',
      text: 'also fetch what each page needs to be shown (wget\'s `-p`): stylesheets, scripts, images (`src`, `srcset`, `<picture>`), icons, media and posters, and what stylesheets name by `url()` and `@import`. Each once across the crawl, queued after every page of its host whatever their depths, and a host with only requisites left after hosts with pages (in pages.jsonl at one hop below its page; past `--max-depth` too, and whatever `--skip-ext` says), never followed as a page; in the WARC as responses, in pages.jsonl with `"requisite": true`. With `--render`, what the browser loaded is taken from it instead of fetched again (`"captured": true`; see [Rendering](#rendering-pages-in-chromium))',
    },
  }),
  maxBodyBytes: option(whole(1), {
    default: 10 * 1024 * 1024,
    flag: '--max-body <bytes>',
    help: 'largest body kept, counted after decompression',
    docs: {
      section: 'limits',
      default: '10 MiB',
      text: 'largest body kept, counted after decompression (a gzip bomb is cut off there): `too-large`',
    },
  }),
  totalTimeoutMs: option(whole(1), {
    default: 60_000,
    flag: '--timeout <ms>',
    help: 'longest one whole exchange may take',
    docs: {
      section: 'limits',
      text: 'longest one whole exchange may take (a slowloris drip too): `timeout`',
    },
  }),
  connectTimeoutMs: option(whole(1), {
    default: 10_000,
    flag: '--connect-timeout <ms>',
    help: 'longest a connection may take to open',
    docs: { section: 'limits', text: 'longest a connection may take to open: `timeout`' },
  }),
  firstByteTimeoutMs: option(whole(1), {
    default: 30_000,
    flag: '--first-byte-timeout <ms>',
    help: 'longest to wait for the response head (and between two body chunks)',
    docs: {
      section: 'limits',
      text: 'longest to wait for the response head, and between two body chunks: `timeout`',
    },
  }),
  maxRedirects: option(whole(0), {
    default: 20,
    flag: '--max-redirects <n>',
    help: 'follow at most this many redirects in a row',
    docs: {
      section: 'limits',
      text: 'follow at most this many redirects in a row; the next is `filtered`, detail `redirects`',
    },
  }),
  seen: option(oneOf(['memory', 'bloom', 'lmdb', 'drum']), {
    // No default of its own: memory, or drum for a crawl expected past 10^8 URLs (seen-default.ts).
    flag: '--seen <kind>',
    help: 'the URL-seen set: memory (exact, in RAM), bloom (small, loses a few), lmdb (on disk), drum (on disk, flat RAM) (default: memory, or drum when --max-pages or --seen-capacity says past 10^8 URLs)',
    docs: {
      section: 'seen',
      default: '`memory`, or `drum` past 10^8 URLs (below)',
      text: '`memory`: exact, in RAM, 10-15 bytes a URL, filled from the store at start; `drum`: exact, on disk at 8 bytes a URL, flat memory, answers after a merge; `lmdb`: exact, on disk; `bloom`: small, but loses a few new URLs',
    },
  }),
  seenCapacity: option(whole(1), {
    flag: '--seen-capacity <n>',
    help: "URLs the bloom filter is sized for (default 10000000); memory's starting size (default: the store's URLs)",
    docs: {
      section: 'seen',
      default: '10000000',
      text: 'the URLs a bloom filter is sized for (memory: its starting size)',
    },
  }),
  seenFpRate: option(fraction, {
    default: 0.001,
    flag: '--seen-fp-rate <p>',
    help: "the bloom filter's false-positive rate at --seen-capacity: new URLs taken as seen, never crawled",
    docs: { section: 'seen' },
  }),
  passes: option(whole(1), {
    flag: '--passes <n>',
    help: 'crawl in passes, each fetching what the last one found (one depth), and stop at the boundary after n of them',
    docs: { section: 'passes', text: 'crawl N passes, then stop with the rest queued' },
  }),
  onPass: option(command, {
    flag: '--on-pass <cmd>',
    help: 'run this shell command at the end of each pass, with the pass number as its argument',
    docs: {
      section: 'passes',
      text: 'at the end of each pass, run `CMD <pass>` through the shell (also `COBWEB_PASS` and `COBWEB_DATA` in its environment), beside the next pass',
    },
  }),
  modules: option(fileList, {
    flag: '--module <path>',
    help: 'load a module (an ES module file; see docs/modules.md); repeatable',
    docs: {
      section: 'followed',
      text: 'load a module (repeatable; see `docs/modules.md`); one that cannot be loaded stops the crawl before it starts (exit code 2)',
    },
  }),
  moduleTimeoutMs: option(whole(1), {
    default: 5000,
    flag: '--module-timeout <ms>',
    help: 'cut off a module call after this long',
    docs: { section: 'followed', text: 'a module call still running after this is cut off and counted' },
  }),
  builtinModules: option(onOff, {
    default: true,
    flag: '--no-builtin-modules',
    help: 'do not load the built-in modules (forms, meta, server)',
    docs: { section: 'followed', text: 'leave out the built-in modules `forms`, `meta`, `server`' },
  }),
  maxTimeMs: option(duration, {
    flag: '--max-time <duration>',
    help: 'stop cleanly after this long (90s, 15m, 2h), as at --max-pages',
    docs: {
      section: 'run',
      default: 'no limit',
      text: 'stop after this long (`90s`, `15m`, `2h`, `1d`) the way `--max-pages` stops: the fetches in flight finish and are written, the rest stays queued (exit code 0)',
    },
  }),
  leaseMs: option(duration, {
    default: 5 * 60_000,
    flag: '--lease-time <duration>',
    help: 'how long a URL handed to a crawling process stays its own without word from it (bunnies extend at half)',
    docs: {
      section: 'run',
      default: '5m',
      text: "how long a URL handed out (leased) stays that process's without word from it: a bunny extends its leases at half this time, and a process killed mid-fetch has its URLs handed to another after it; also how long a process may go silent before it counts as gone. Shorter hands a lost process's URLs on sooner (and tests a bunny's EXTEND); a fetch longer than it keeps its URL by extending",
    },
  }),
  recrawlAfterMs: option(duration, {
    flag: '--recrawl-after <duration>',
    help: 'fetch again the URLs fetched longer ago than this (when a run starts, and as they come due while it runs), with If-None-Match / If-Modified-Since',
    docs: {
      section: 'run',
      default: 'never',
      text: 'URLs fetched longer ago than this (`7d`, `12h`) are due again, when a run starts and as they come due while it runs, and are asked for with `If-None-Match` / `If-Modified-Since` from what was stored; see [Recrawling](#recrawling)',
    },
  }),
  logLevel: option(oneOf(['error', 'warn', 'info', 'debug']), {
    default: 'info',
    flag: '--log-level <level>',
    help: 'what is logged: error, warn, info (lifecycle), debug (every fetch, retry, back-off, refusal)',
    docs: {
      section: 'run',
      text: 'the least level logged, on stderr and in `--log-file`: `info` adds the lifecycle (start, stop, summary) to errors and warnings; `debug` adds every fetch, retry, back-off and refusal',
    },
  }),
  logFile: option(file, {
    flag: '--log-file <file>',
    help: 'also write the log here as JSON lines (pino), at --log-level',
    docs: {
      section: 'run',
      text: "append the log to FILE as JSON lines (pino's: `level`, `time`, `msg`, `event`, and its fields such as `url`, `status`, `durationMs`), at `--log-level`",
    },
  }),
  http: option(listenAddress, {
    flag: '--http <host:port>',
    help: 'serve the live console, /metrics and /status here (127.0.0.1 for a port alone; port 0 picks one); its actions need the token, and off loopback every request does',
    docs: {
      section: 'run',
      text: 'serve the live console, `/metrics` and `/status` here; off loopback every request needs the token (see [Watching and steering](#watching-and-steering---http-and-cobweb-report))',
    },
  }),
  httpAllowHost: option(hostNameList, {
    flag: '--http-allow-host <name>',
    help: "a name the console answers to besides its address (repeatable): the one you open it by, or a proxy's",
    docs: {
      section: 'run',
      text: 'a name the console answers to besides its address (and `localhost` on loopback), repeatable; a request whose `Host` is none of them is refused (421), against DNS rebinding',
    },
  }),
  metricsOpen: option(onOff, {
    default: false,
    flag: '--metrics-open',
    help: 'off loopback, leave /metrics open without the token (a warning says so at start)',
    docs: {
      section: 'run',
      text: 'on an `--http` address that is not loopback, leave `/metrics` open to anyone who reaches it, without the token (a warning at start); the rest still needs it',
    },
  }),
  hosts: option(hostRules, {
    help: 'per-host sections, by host or pattern: delayMs, perHost, maxPages, headers',
    docs: {
      section: 'file',
      text: 'per-host sections, by host (`example.com`, `example.com:8080`) or pattern (`*.example.com`), each setting `delayMs`, `perHost`, `maxPages` (URLs taken from the host) and `headers` for its hosts; a section naming the host exactly wins, else the first pattern that matches',
    },
  }),
  warcMaxBytes: option(whole(1), {
    default: 1_000_000_000,
    help: 'roll WARC files at this size',
    docs: { section: 'file', default: '1000000000 (1 GB)' },
  }),
  progressMs: option(whole(1), {
    default: 1000,
    help: "how often onProgress is called, in ms (the command line's live line: every 500 ms on a terminal, every 1000 elsewhere)",
    docs: {
      section: 'file',
      text: "how often `crawl()`'s `onProgress` is called, in ms; `cobweb crawl` sets its own (its live line is redrawn every 500 ms on a terminal, and a plain line is printed every 5 s elsewhere), so in a config file it only matters to a script",
    },
  }),
  onPage: option(callback<(page: ModulePage) => unknown>(), {
    help: "called for every fetched page, on the crawl's own thread, under a module hook's rules: a throw is counted and logged, a promise pending past moduleTimeoutMs is counted and not waited for",
  }),
  onLog: option(callback<(line: string, level: LogLevel) => void>(), {
    help: 'where log lines go (warnings, errors, module logs, at logLevel); default stderr',
  }),
  onRecord: option(callback<(record: PageRecord) => void>(), {
    help: 'called for every line written to pages.jsonl',
  }),
  onProgress: option(callback<(progress: CrawlProgress) => void>(), {
    help: "called every progressMs with the crawl's numbers",
  }),
  onConsole: option(callback<(url: string, access: { tokenOnEveryRequest: boolean }) => void>(), {
    help: 'called once the console (http) listens, with its URL and whether every request needs the token (off loopback) or only its actions; default: a log line',
  }),
  signal: option(abortSignal, {
    help: 'stops the crawl cleanly: no new fetches, in-flight ones finish and are recorded',
  }),
};

/** The per-host sections' type, for callers of crawl(). */
export type { HostRules };
