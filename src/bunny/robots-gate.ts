import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import type { Lease } from '../frontier/types.js';
import type { Gate, GateVerdict } from './visit.js';

export interface GateSettings {
  delayMs: number;
  maxDelayMs: number;
  /** How long a URL waits when its site's robots.txt could not be read. */
  retryDelayMs: number;
}

/**
 * The robots gate (DESIGN.md: "robots gate (src/fetch) RFC 9309, cached per host"):
 * asks the cache, caps Crawl-delay at --max-delay, and when it had to fetch robots.txt
 * first, tells the bunny to keep the politeness gap before the page itself.
 */
export function robotsGate(robots: RobotsCache, settings: GateSettings): Gate {
  return async (lease: Lease): Promise<GateVerdict> => {
    const v = await robots.check(lease.url);
    const crawlDelayMs = v.crawlDelayMs === null ? null : Math.min(v.crawlDelayMs, settings.maxDelayMs);
    const verdict: GateVerdict = {
      allowed: v.allowed,
      crawlDelayMs,
      waitMs: v.allowed && v.fetched ? Math.max(settings.delayMs, crawlDelayMs ?? 0) : 0,
      retryMs: v.reason === 'robots-unavailable' ? settings.retryDelayMs * 2 ** (lease.attempt - 1) : null,
      fetched: v.fetched,
    };
    if (v.reason !== undefined) verdict.reason = v.reason;
    if (v.failure !== undefined) verdict.failure = v.failure;
    return verdict;
  };
}
