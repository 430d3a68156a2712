import type { FetchReport, FrontierSettings } from '../types.js';
import { backoffMs, MAX_RETRY_AFTER_MS } from './backoff.js';

/**
 * Politeness is counted per budget: a host, or with --politeness-key ip every host on
 * one address. This is all a store keeps of it, and the functions below are the only
 * way it changes, so every store is polite in the same way.
 *
 * With --politeness-key ip a host is first "unplaced": the store does not know its
 * address, so its budget is its own and provisional. An unplaced host gets one lease
 * at a time, and that lease makes no request: the crawler resolves the host and gives
 * the lease back with the address (see Lease.needsAddress), and from then on the host
 * counts against its address's budget, its first request included.
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
> & {
  /**
   * The least start window the store can keep, in ms (default 1): the time a lease
   * takes to reach its crawler after the store decided it. A PostgreSQL lease arrives a
   * commit and a round trip later, so a window shorter than that could never be met and
   * every lease would come back late. See startWindowMs.
   */
  startWindowFloorMs?: number;
};

/** A budget nobody has asked yet. */
export function freshBudget(settings: PolitenessSettings): BudgetState {
  return { inFlight: 0, nextAt: 0, gapMs: settings.delayMs, failures: 0 };
}

/** No lease is due before this (used as "never" for a budget at its --per-host limit). */
export const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * When the budget may next be leased: its next start, or never while --per-host are in
 * flight (an unplaced host: while its one placement lease is out).
 */
export function readyAt(b: BudgetState, settings: PolitenessSettings, placed = true): number {
  return b.inFlight >= (placed ? settings.perHost : 1) ? NEVER : b.nextAt;
}

/**
 * How many URLs of a ready budget one lease call may hand out, with `room` wanted: with
 * a gap, one request start per turn (the next waits the gap); without one, as many as
 * --per-host leaves free. An unplaced host: its one placement lease.
 */
export function leasesThisTurn(
  b: BudgetState,
  settings: PolitenessSettings,
  room: number,
  placed = true,
): number {
  if (!placed) return b.inFlight === 0 ? Math.min(room, 1) : 0;
  return Math.max(0, Math.min(room, settings.perHost - b.inFlight, b.gapMs > 0 ? 1 : room));
}

/**
 * How late a crawler may start a leased request: a quarter of the budget's gap, so a
 * crawler that was busy for a moment need not give its lease back, and never less than
 * the store's floor (startWindowFloorMs). No gap, no window.
 */
export function startWindowMs(b: BudgetState, settings: PolitenessSettings): number | undefined {
  // One fetch in flight at a time: the next lease waits for this one's release, and the
  // gap then runs from the end of its request, so however late it starts it crowds no
  // one. A deadline would only send back the leases of a crawler busy for a moment.
  if (b.gapMs <= 0 || settings.perHost <= 1) return undefined;
  return Math.max(settings.startWindowFloorMs ?? 1, Math.floor(b.gapMs / 4));
}

/**
 * The epoch ms by which a lease handed out at `now` must start its request, or be given
 * back deferred; undefined when it may start any time (no gap, or a placement lease,
 * which starts none).
 */
export function startDeadline(
  b: BudgetState,
  settings: PolitenessSettings,
  now: number,
  placed = true,
): number | undefined {
  const window = placed ? startWindowMs(b, settings) : undefined;
  return window === undefined ? undefined : now + window;
}

/**
 * A lease may start a request at any moment up to its deadline, so the next lease waits
 * the gap from that deadline: two request starts to one budget are never closer than
 * the gap, whatever --per-host allows (which only caps how many are in flight) and
 * whatever the start window is. A placement lease starts no request and moves no start.
 */
export function afterLease(
  b: BudgetState,
  settings: PolitenessSettings,
  now: number,
  placed = true,
): BudgetState {
  if (!placed) return { ...b, inFlight: b.inFlight + 1 };
  const latestStart = startDeadline(b, settings, now) ?? now;
  return { ...b, inFlight: b.inFlight + 1, nextAt: Math.max(b.nextAt, latestStart + b.gapMs) };
}

/**
 * Heritrix's rule: a host that answers slowly is asked less often.
 * gap = min(maxDelay, max(delay, delayFactor x fetch time, Crawl-delay)).
 */
export function gapAfterFetch(
  settings: Pick<PolitenessSettings, 'delayMs' | 'delayFactor' | 'maxDelayMs'>,
  fetchMs: number,
  crawlDelayMs = 0,
): number {
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

/** A lease ran out without a report: its slot is free again, and nothing was learned. */
export function afterLostLease(b: BudgetState): BudgetState {
  return { ...b, inFlight: Math.max(0, b.inFlight - 1) };
}

/** Two budgets become one (--politeness-key ip found a host on an address). */
export function mergeBudgets(into: BudgetState, from: BudgetState): BudgetState {
  return {
    inFlight: into.inFlight + from.inFlight,
    nextAt: Math.max(into.nextAt, from.nextAt),
    gapMs: Math.max(into.gapMs, from.gapMs),
    failures: Math.max(into.failures, from.failures),
  };
}
