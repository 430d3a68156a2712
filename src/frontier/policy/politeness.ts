import type { FetchReport, FrontierSettings } from '../types.js';
import { backoffMs, MAX_RETRY_AFTER_MS } from './backoff.js';

/**
 * Politeness is counted per budget: a host, or with --politeness-key ip every host on
 * one address. This is all a store keeps of it, and the two functions below are the
 * only way it changes, so every store is polite in the same way.
 */
export interface BudgetState {
  /** Requests to the budget in flight now. */
  inFlight: number;
  /** Epoch ms before which no request to the budget may start. */
  nextAt: number;
  /** The gap between two request starts, as last earned (delay, Crawl-delay, slowness). */
  gapMs: number;
  /** Failed connections in a row. */
  failures: number;
}

export type PolitenessSettings = Pick<
  FrontierSettings,
  'perHost' | 'delayMs' | 'delayFactor' | 'maxDelayMs' | 'backoffMs' | 'maxBackoffMs'
>;

/** A budget nobody has asked yet. */
export function freshBudget(settings: PolitenessSettings): BudgetState {
  return { inFlight: 0, nextAt: 0, gapMs: settings.delayMs, failures: 0 };
}

/** No lease is due before this (used as "never" for a budget at its --per-host limit). */
export const NEVER = Number.MAX_SAFE_INTEGER;

/** When the budget may next be leased: its next start, or never while --per-host are in flight. */
export function readyAt(b: BudgetState, settings: PolitenessSettings): number {
  return b.inFlight >= settings.perHost ? NEVER : b.nextAt;
}

/**
 * A lease starts a request. The next start waits the budget's gap from this one, so
 * --delay and Crawl-delay hold between request starts whatever --per-host allows;
 * --per-host only caps how many are in flight at once.
 */
export function afterLease(b: BudgetState, now: number): BudgetState {
  return { ...b, inFlight: b.inFlight + 1, nextAt: Math.max(b.nextAt, now + b.gapMs) };
}

/**
 * How many of `room` URLs one turn may lease from a budget: with a gap, one request
 * start per turn (the next waits the gap); without one, as many as --per-host leaves.
 */
export function leasableNow(b: BudgetState, settings: PolitenessSettings, room: number): number {
  return Math.max(0, Math.min(room, settings.perHost - b.inFlight, b.gapMs > 0 ? 1 : room));
}

/**
 * Heritrix's rule: a host that answers slowly is asked less often.
 * gap = min(maxDelay, max(delay, delayFactor x fetch time, Crawl-delay)).
 */
export function gapAfterFetch(settings: PolitenessSettings, fetchMs: number, crawlDelayMs = 0): number {
  // Whole milliseconds: every time a store keeps or sends is one.
  return Math.ceil(
    Math.min(settings.maxDelayMs, Math.max(settings.delayMs, settings.delayFactor * fetchMs, crawlDelayMs)),
  );
}

/**
 * A request is over. The next one waits the gap this one earned (from now, its end), a
 * Retry-After holds the budget (at most an hour), and a failed connection backs it off
 * exponentially; one that connected forgives the failures before it.
 */
export function afterFetch(
  b: BudgetState,
  report: FetchReport,
  settings: PolitenessSettings,
  now: number,
): BudgetState {
  if (report.noRequest === true) return afterLostLease(b);
  const gapMs = gapAfterFetch(settings, report.fetchMs, report.crawlDelayMs);
  const failures = report.connectFailed === true ? b.failures + 1 : 0;
  let wait = gapMs;
  if (report.retryAfterMs !== undefined)
    wait = Math.max(wait, Math.min(report.retryAfterMs, MAX_RETRY_AFTER_MS));
  if (failures > 0) wait = Math.max(wait, backoffMs(settings.backoffMs, failures, settings.maxBackoffMs));
  return {
    inFlight: Math.max(0, b.inFlight - 1),
    nextAt: Math.max(b.nextAt, now + wait),
    gapMs,
    failures,
  };
}

/**
 * How late a crawler may start a leased request: a quarter of the host's gap. The store
 * spaces leases by the gap; a crawler that starts no later than this after receiving
 * its lease keeps request starts at least three quarters of the gap apart, whatever its
 * own delays. No gap, no window. `floorMs`: the least window a store can keep, the time
 * a lease takes to reach its crawler (a commit and a round trip for a store across the
 * network); a shorter window could never be met and every lease would come back late.
 * With it, starts are at least the gap less the window apart.
 */
export function startWindowMs(b: BudgetState, floorMs = 1): number | undefined {
  return b.gapMs > 0 ? Math.max(floorMs, Math.floor(b.gapMs / 4)) : undefined;
}

/** A lease ran out without a report: its slot is free again, and nothing was learned. */
export function afterLostLease(b: BudgetState): BudgetState {
  return { ...b, inFlight: Math.max(0, b.inFlight - 1) };
}

/** Two budgets become one (--politeness-key ip found two hosts on one address). */
export function mergeBudgets(into: BudgetState, from: BudgetState): BudgetState {
  return {
    inFlight: into.inFlight + from.inFlight,
    nextAt: Math.max(into.nextAt, from.nextAt),
    gapMs: Math.max(into.gapMs, from.gapMs),
    failures: Math.max(into.failures, from.failures),
  };
}
