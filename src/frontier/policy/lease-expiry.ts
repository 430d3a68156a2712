import type { FrontierSettings } from '../types.js';

/**
 * A lease lasts --lease time from when it is handed out or extended. A crawler that
 * dies (or hangs) loses its leases when they run out, and the URLs are queued again
 * with one more attempt counted; a completion that arrives after that is stale.
 */
export function leaseExpiry(now: number, settings: Pick<FrontierSettings, 'leaseMs'>): number {
  return now + settings.leaseMs;
}

/**
 * The latest expiry that has run out at `now`. A store finds its expired leases as
 * those expiring at or before it (one range of an index), which is isExpired's rule.
 */
export function expiredThrough(now: number): number {
  return now;
}

export function isExpired(expiresAt: number, now: number): boolean {
  return expiresAt <= expiredThrough(now);
}
