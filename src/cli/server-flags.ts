import { InvalidArgumentError } from 'commander';
import { crawlName } from '../bunny/option-kinds.js';

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
  'maxRedirects',
  'moduleTimeoutMs',
  'builtinModules',
  'seen',
  'seenCapacity',
  'seenFpRate',
  'recrawlAfterMs',
  'http',
] as const;

/** --crawl NAME of the control commands, read as the crawl options' --crawl is. */
export function parseCrawlName(text: string): string {
  if (!crawlName.check(text))
    throw new InvalidArgumentError(`expected ${crawlName.expected}, got "${text}".`);
  return text;
}

/** --listen HOST:PORT; an IPv6 host in brackets. */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim());
  if (m === null || Number(m[2]) > 65535) {
    throw new InvalidArgumentError(`expected HOST:PORT, like 127.0.0.1:7070, got "${text}".`);
  }
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}
