import { NEVER } from '../policy/politeness.js';
import { statsOfCounts } from '../store-counts.js';
import type { FrontierStats, HostOverview, HostView, SeenStats } from '../types.js';
import { maxPages, totals } from './counts.js';
import { TABLE_SEEN } from './seen-gate.js';
import type { Store } from './store.js';

export function statsOf(s: Store): FrontierStats {
  return {
    ...statsOfCounts(totals(s), s.st.hostCount.get() as number, maxPages(s)),
    seen: seenBlock(seenStatsOf(s)),
  };
}

/** The held seen set's size and figures (bloom's estimated rate), for stats and logs. */
export function seenStatsOf(s: Store): { kind: string; size: number; [k: string]: unknown } {
  if (s.gate === null) return { kind: TABLE_SEEN, size: s.seen.size };
  return { kind: s.gate.kind, size: s.gate.size, ...(s.gate.stats() ?? {}) };
}

/** The figures of a seen set that stats() reports (SeenStats): the kind, the size, and bloom's rates. */
function seenBlock(figures: { kind: string; size: number; [k: string]: unknown }): SeenStats {
  const block: SeenStats = { kind: figures.kind, size: figures.size };
  for (const key of ['capacity', 'fpRate', 'bits', 'hashes', 'estimatedFpRate'] as const) {
    const v = figures[key];
    if (typeof v === 'number') block[key] = v;
  }
  return block;
}

/** Hosts by state and the busiest ones; reads every host row (for the console, not the crawl). */
export function hostOverviewOf(s: Store, limit: number): HostOverview {
  const counts = s.st.hostCounts.get() as { active: number; waiting: number; retired: number };
  const busiest = (s.st.busiestHosts.all(limit) as HostView[]).map((h) => ({
    ...h,
    readyAt: h.readyAt === NEVER ? null : h.readyAt,
  }));
  return { ...counts, busiest };
}
