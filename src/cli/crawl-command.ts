import { Command, Option } from 'commander';
import { crawl } from '../bunny/crawl.js';
import { DEFAULTS } from '../bunny/options.js';
import type { ScopeMode } from '../url/filter.js';
import {
  collectRegex,
  collectResolve,
  collectString,
  extensionList,
  nonNegativeNumber,
  wholeNumber,
} from './parse-values.js';
import { ProgressReporter, summaryText } from './progress.js';

interface CrawlFlags {
  data: string;
  fresh?: boolean;
  maxPages?: number;
  maxDepth?: number;
  scope: ScopeMode;
  include?: RegExp[];
  exclude?: RegExp[];
  concurrency: number;
  perHost: number;
  delay: number;
  userAgent: string;
  resolve?: Map<string, string>;
  skipExt?: string[];
  followNofollow?: boolean;
  maxBody: number;
  timeout: number;
  connectTimeout: number;
  firstByteTimeout: number;
  maxRedirects: number;
  quiet?: boolean;
  delayFactor: number;
  maxDelay: number;
  politenessKey: 'host' | 'ip';
  retries: number;
  retryDelay: number;
  hostBackoff: number;
  retireAfter: number;
  maxPagesPerHost?: number;
  maxPathSegments: number;
  maxSegmentRepeats: number;
  maxQueryParams: number;
  ignoreRobots?: boolean;
  sitemaps?: boolean;
  allowPrivate?: boolean;
  module?: string[];
  moduleTimeout: number;
  builtinModules: boolean;
}

export function crawlCommand(): Command {
  return new Command('crawl')
    .description('crawl from the seed URLs with the embedded store; the same command again resumes')
    .argument('<seed...>', 'http(s) URLs to start from (depth 0)')
    .option('--data <dir>', 'the store and every output (pages.jsonl, warc/)', DEFAULTS.data)
    .option('--fresh', 'delete the store and outputs in --data and start over')
    .option('--max-pages <n>', 'stop after fetching this many URLs (counting earlier runs)', wholeNumber(0))
    .option(
      '--max-depth <n>',
      'follow links this many hops from a seed (a seed is depth 0)',
      wholeNumber(0),
      DEFAULTS.maxDepth,
    )
    .addOption(
      new Option('--scope <scope>', 'which links to follow: same host, same registrable domain, or any')
        .choices(['host', 'domain', 'any'])
        .default(DEFAULTS.scope),
    )
    .option('--include <regex>', 'only follow URLs matching one of these (repeatable)', collectRegex)
    .option('--exclude <regex>', 'never follow URLs matching any of these (repeatable)', collectRegex)
    .option('--concurrency <n>', 'fetches in flight in total', wholeNumber(1), DEFAULTS.concurrency)
    .option('--per-host <n>', 'fetches in flight to one host', wholeNumber(1), DEFAULTS.perHost)
    .option('--delay <ms>', 'least gap between two requests to one host', wholeNumber(0), DEFAULTS.delayMs)
    .option(
      '--delay-factor <n>',
      'the gap is at least this many times the last response time',
      nonNegativeNumber,
      DEFAULTS.delayFactor,
    )
    .option(
      '--max-delay <ms>',
      'most gap between two requests to one host, Crawl-delay included',
      wholeNumber(0),
      DEFAULTS.maxDelayMs,
    )
    .addOption(
      new Option(
        '--politeness-key <key>',
        'count politeness per host, or per IP address (hosts sharing one share it)',
      )
        .choices(['host', 'ip'])
        .default(DEFAULTS.politenessKey),
    )
    .option(
      '--retries <n>',
      'tries after the first for 5xx, 429, timeouts and resets',
      wholeNumber(0),
      DEFAULTS.retries,
    )
    .option(
      '--retry-delay <ms>',
      'wait before the first retry; doubles each time',
      wholeNumber(0),
      DEFAULTS.retryDelayMs,
    )
    .option(
      '--host-backoff <ms>',
      'wait after a host fails to connect; doubles each time in a row',
      wholeNumber(0),
      DEFAULTS.hostBackoffMs,
    )
    .option(
      '--retire-after <n>',
      'give up on a host after this many failed connections in a row',
      wholeNumber(1),
      DEFAULTS.retireAfter,
    )
    .option('--max-pages-per-host <n>', 'take at most this many URLs from one host', wholeNumber(1))
    .option(
      '--max-path-segments <n>',
      'refuse URLs with more path segments (a trap)',
      wholeNumber(1),
      DEFAULTS.maxPathSegments,
    )
    .option(
      '--max-segment-repeats <n>',
      'refuse URLs repeating a path segment more often (a trap)',
      wholeNumber(1),
      DEFAULTS.maxSegmentRepeats,
    )
    .option(
      '--max-query-params <n>',
      'refuse URLs with more query parameters (a trap)',
      wholeNumber(0),
      DEFAULTS.maxQueryParams,
    )
    .option('--ignore-robots', 'fetch what robots.txt disallows (be sure you may)')
    .option('--sitemaps', "read each site's sitemaps (named in robots.txt, else /sitemap.xml) for URLs")
    .option('--allow-private', 'fetch loopback, private and link-local addresses even when no seed is on one')
    .option('--user-agent <string>', 'User-Agent header', DEFAULTS.userAgent)
    .option(
      '--resolve <host:port:addr>',
      'connect to addr for host:port, keeping the URL and Host header (repeatable, like curl)',
      collectResolve,
    )
    .option(
      '--skip-ext <list>',
      `comma-separated extensions never fetched; "" for none (default: ${DEFAULTS.skipExtensions.length} image, video, audio, archive, font and executable extensions)`,
      extensionList,
    )
    .option('--follow-nofollow', 'also follow rel=nofollow links')
    .option(
      '--max-body <bytes>',
      'largest body kept, counted after decompression',
      wholeNumber(1),
      DEFAULTS.maxBodyBytes,
    )
    .option('--timeout <ms>', 'longest one whole exchange may take', wholeNumber(1), DEFAULTS.totalTimeoutMs)
    .option(
      '--connect-timeout <ms>',
      'longest a connection may take to open',
      wholeNumber(1),
      DEFAULTS.connectTimeoutMs,
    )
    .option(
      '--first-byte-timeout <ms>',
      'longest to wait for the response head (and between two body chunks)',
      wholeNumber(1),
      DEFAULTS.firstByteTimeoutMs,
    )
    .option(
      '--max-redirects <n>',
      'follow at most this many redirects in a row',
      wholeNumber(0),
      DEFAULTS.maxRedirects,
    )
    .option(
      '--module <path>',
      'load a module (an ES module file; see docs/modules.md); repeatable',
      collectString,
    )
    .option(
      '--module-timeout <ms>',
      'cut off a module call after this long',
      wholeNumber(1),
      DEFAULTS.moduleTimeoutMs,
    )
    .option('--no-builtin-modules', 'do not load the built-in modules (forms, meta, server)')
    .option('--quiet', 'print nothing but errors')
    .action(async (seeds: string[], flags: CrawlFlags) => {
      const progress = new ProgressReporter(process.stderr);
      const stop = new AbortController();
      let signals = 0;
      const onSignal = () => {
        signals++;
        if (signals > 1) process.exit(130);
        progress.finish();
        process.stderr.write('cobweb: stopping: finishing the fetches in flight (again to quit at once)\n');
        stop.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      if (flags.ignoreRobots === true) {
        process.stderr.write('cobweb: warning: --ignore-robots: robots.txt will not be read or obeyed\n');
      }
      try {
        const summary = await crawl({
          seeds,
          data: flags.data,
          fresh: flags.fresh,
          maxPages: flags.maxPages,
          maxDepth: flags.maxDepth,
          scope: flags.scope,
          include: flags.include,
          exclude: flags.exclude,
          concurrency: flags.concurrency,
          perHost: flags.perHost,
          delayMs: flags.delay,
          userAgent: flags.userAgent,
          resolve: flags.resolve,
          skipExtensions: flags.skipExt,
          followNofollow: flags.followNofollow,
          maxBodyBytes: flags.maxBody,
          totalTimeoutMs: flags.timeout,
          connectTimeoutMs: flags.connectTimeout,
          firstByteTimeoutMs: flags.firstByteTimeout,
          maxRedirects: flags.maxRedirects,
          delayFactor: flags.delayFactor,
          maxDelayMs: flags.maxDelay,
          politenessKey: flags.politenessKey,
          retries: flags.retries,
          retryDelayMs: flags.retryDelay,
          hostBackoffMs: flags.hostBackoff,
          retireAfter: flags.retireAfter,
          maxPagesPerHost: flags.maxPagesPerHost,
          maxPathSegments: flags.maxPathSegments,
          maxSegmentRepeats: flags.maxSegmentRepeats,
          maxQueryParams: flags.maxQueryParams,
          ignoreRobots: flags.ignoreRobots,
          sitemaps: flags.sitemaps,
          allowPrivate: flags.allowPrivate,
          modules: flags.module,
          moduleTimeoutMs: flags.moduleTimeout,
          builtinModules: flags.builtinModules,
          signal: stop.signal,
          progressMs: progress.intervalMs,
          onProgress: flags.quiet === true ? undefined : (p) => progress.update(p),
        });
        progress.finish();
        if (flags.quiet !== true) process.stdout.write(`${summaryText(summary)}\n`);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
