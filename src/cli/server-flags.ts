import { InvalidArgumentError } from 'commander';
import { crawlName, parseHostPort as hostAndPort } from '../options/option-kinds.js';

// What the server, bunny and control commands share, apart from the server's own code:
// a command that needs only these does not load the server.

/** The crawl options that belong to the queue (the server's), not to fetching (each bunny's). */
export const QUEUE_OPTIONS = [
  'data',
  'store',
  'crawl',
  'fresh',
  'retryFailed',
  'maxPages',
  'maxDepth',
  'scope',
  'include',
  'exclude',
  'perHost',
  'delayMs',
  'delayFactor',
  'maxDelayMs',
  'politenessKey',
  'retries',
  'retryDelayMs',
  'hostBackoffMs',
  'retireAfter',
  'maxPagesPerHost',
  'maxPathSegments',
  'maxSegmentRepeats',
  'maxQueryParams',
  'ignoreRobots',
  'sitemaps',
  'skipExtensions',
  'followNofollow',
  'requisites',
  'render',
  'maxRedirects',
  'moduleTimeoutMs',
  'builtinModules',
  'seen',
  'seenCapacity',
  'seenFpRate',
  'recrawlAfterMs',
  'leaseMs',
  'http',
  'httpAllowHost',
  'metricsOpen',
] as const;

/** --crawl NAME of the control commands, read as the crawl options' --crawl is. */
export function parseCrawlName(text: string): string {
  if (!crawlName.check(text))
    throw new InvalidArgumentError(`expected ${crawlName.expected}, got "${text}".`);
  return text;
}

/**
 * --listen and --server HOST:PORT (an IPv6 host in brackets), read by the options' own
 * grammar (option-kinds.ts), with the host required: a bare port is refused here.
 */
export function parseHostPort(text: string): { host: string; port: number } {
  const parsed = text.includes(':') ? hostAndPort(text) : null;
  if (parsed === null) {
    throw new InvalidArgumentError(`expected HOST:PORT, like 127.0.0.1:7070, got "${text}".`);
  }
  return parsed;
}
