import type { PolitenessSettings } from './types.js';

/**
 * When a host (or, with --politeness-key ip, an address) may be asked again. Two rules
 * keep "no two requests to one host closer than --delay" true whatever --per-host is:
 * a lease pushes the ready time to now + delay, and the end of a fetch pushes it to
 * that moment plus the gap the host earned.
 */
export function readyAfterLease(now: number, settings: PolitenessSettings): number {
  return now + settings.delayMs;
}

/**
 * Heritrix's rule: a host that answers slowly is asked less often.
 * gap = min(maxDelay, max(delay, delayFactor x fetch time, Crawl-delay)).
 */
export function gapAfterFetch(settings: PolitenessSettings, fetchMs: number, crawlDelayMs = 0): number {
  return Math.min(
    settings.maxDelayMs,
    Math.max(settings.delayMs, settings.delayFactor * fetchMs, crawlDelayMs),
  );
}

/** A host that failed to connect n times in a row waits base x 2^(n-1), capped. */
export function connectBackoffMs(settings: PolitenessSettings, failures: number): number {
  return Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.max(0, failures - 1));
}

/** Retry-After can ask for days; we wait at most this long before trying a host again. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
