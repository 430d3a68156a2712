/**
 * The one back-off formula of the crawl: the n-th wait in a row is base x 2^(n-1),
 * capped. Retries of a URL, a host that fails to connect, and a robots.txt that could
 * not be read all wait by it.
 */
export function backoffMs(baseMs: number, n: number, capMs = Number.POSITIVE_INFINITY): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, n - 1));
}

/** Retry-After can ask for days; a host is held back at most this long. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
