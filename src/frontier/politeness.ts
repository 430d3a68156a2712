import type { PolitenessSettings } from './types.js';

/**
 * When a host may be asked again. Two rules keep "no two requests to one host closer
 * than delayMs" true whatever --per-host is: a lease pushes the host's ready time to
 * now + delay, and a completion pushes it to completion time + the gap the host earned.
 * The later issue on adaptive politeness grows `gapAfterFetch`; the rest stays.
 */
export function readyAfterLease(now: number, settings: PolitenessSettings): number {
  return now + settings.delayMs;
}

export function gapAfterFetch(settings: PolitenessSettings, _fetchMs: number, hostDelayMs = 0): number {
  return Math.max(settings.delayMs, hostDelayMs);
}
