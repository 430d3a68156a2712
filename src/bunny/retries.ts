import type { FetchOutcome } from '../fetch/types.js';
import { backoffMs, MAX_RETRY_AFTER_MS } from '../frontier/policy/backoff.js';

export interface RetrySettings {
  /** Tries after the first; default 2. */
  retries: number;
  /** Wait before the first retry; doubles each time. */
  retryDelayMs: number;
}

/** Answers that say "not now" rather than "no": worth another try later. */
const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const TRANSIENT_ERRORS = new Set(['timeout', 'reset', 'network', 'refused']);
/** A DNS failure is worth another try only when the resolver could not answer; "no such name" is final. */
const TRANSIENT_DNS = /EAI_AGAIN|ETIMEOUT|SERVFAIL|ECONNREFUSED|ETIMEDOUT/;

/**
 * Whether this try of a URL should be repeated, and after how long; null when the
 * outcome is final (success, a permanent error, or no tries left). A 429 or 503 with
 * Retry-After waits what the server asked (the host is held back that long too), up
 * to an hour; past that the answer is final.
 */
export function retryDelay(
  outcome: FetchOutcome,
  attempt: number,
  settings: RetrySettings,
  retryAfterMs: number | undefined,
): number | null {
  if (attempt > settings.retries) return null;
  const transient = outcome.ok
    ? TRANSIENT_STATUSES.has(outcome.status)
    : TRANSIENT_ERRORS.has(outcome.error) || (outcome.error === 'dns' && TRANSIENT_DNS.test(outcome.message));
  if (!transient) return null;
  // A server asking us back in days (or years) gets its answer recorded now: waiting
  // that long would keep the whole crawl from ending.
  if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) return null;
  const backoff = backoffMs(settings.retryDelayMs, attempt);
  return retryAfterMs === undefined ? backoff : Math.max(backoff, retryAfterMs);
}

/**
 * Retry-After, as delay-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from `now`;
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
