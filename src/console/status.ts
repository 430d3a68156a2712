import type { HostView } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';
import { type LineStats, sum } from './line-stats.js';
import type { BunnyView, ConsoleState, SourceSnapshot, TrafficView } from './types.js';

/** A bunny with its rate: completions per second over the last sample. */
export interface BunnyRow extends BunnyView {
  pagesPerSecond: number;
}

/** `/status`, and what each of the page's updates carries: one JSON object, plain numbers. */
export interface Status {
  kind: 'crawl' | 'server';
  state: ConsoleState;
  /** Why a finished crawl ended ('finished', 'max-pages', 'signal', 'console', ...). */
  stoppedBy: string | null;
  startedAt: string;
  uptimeSeconds: number;
  /** This process's run: the lines it wrote to pages.jsonl. */
  thisRun: {
    /** Responses of any status, and by status class. */
    fetched: number;
    byStatus: Record<string, number>;
    /** No response, by error kind. */
    failed: number;
    byError: Record<string, number>;
    /** Not fetched: robots.txt (`robots`) and the crawl's rules, by reason. */
    refused: number;
    byReason: Record<string, number>;
    /** Body bytes, after decoding. */
    bytes: number;
    pagesPerSecond: number;
  };
  /** The store, all runs: the URL states and its counters. */
  store: {
    queued: number;
    leased: number;
    retrying: number;
    done: number;
    failed: number;
    rejected: number;
    hosts: number;
    /**
     * The store's expiredLeases: /status is an output users read (docs/operations.md), and
     * this key was published under this spelling (as the metric cobweb_leases_expired_total).
     */
    leasesExpired: number;
    staleCompletions: number;
    budgetLeft: number | null;
  };
  /** A crawl's fetches on the network now. */
  fetching: number | null;
  hosts: { active: number; waiting: number; retired: number } | null;
  busiestHosts: HostView[] | null;
  warcBytes: number | null;
  modules: ModuleStats[];
  bunniesConnected: number | null;
  bunnies: BunnyRow[] | null;
  traffic: TrafficView | null;
}

export interface StatusParts {
  kind: 'crawl' | 'server';
  state: ConsoleState;
  stoppedBy: string | null;
  startedAt: number;
  snapshot: SourceSnapshot;
  lines: LineStats;
  pagesPerSecond: number;
  /** The bunnies' rates, from the last sample. */
  bunnyRates: ReadonlyMap<number, number>;
}

export function statusOf(p: StatusParts): Status {
  const { snapshot: s, lines } = p;
  return {
    kind: p.kind,
    state: p.state,
    stoppedBy: p.stoppedBy,
    startedAt: new Date(p.startedAt).toISOString(),
    uptimeSeconds: Math.round((Date.now() - p.startedAt) / 100) / 10,
    thisRun: {
      fetched: sum(lines.fetched),
      byStatus: { ...lines.fetched },
      failed: sum(lines.failed),
      byError: { ...lines.failed },
      refused: sum(lines.refused),
      byReason: { ...lines.refused },
      bytes: lines.bytes,
      pagesPerSecond: Math.round(p.pagesPerSecond * 10) / 10,
    },
    store: {
      queued: s.store.queued,
      leased: s.store.leased,
      retrying: s.store.retrying,
      done: s.store.done,
      failed: s.store.failed,
      rejected: s.store.rejected,
      hosts: s.store.hosts,
      leasesExpired: s.store.expiredLeases,
      staleCompletions: s.store.staleCompletions,
      budgetLeft: s.store.budgetLeft,
    },
    fetching: s.fetching,
    hosts:
      s.hosts === null
        ? null
        : { active: s.hosts.active, waiting: s.hosts.waiting, retired: s.hosts.retired },
    busiestHosts: s.hosts?.busiest ?? null,
    warcBytes: s.warcBytes,
    modules: s.modules,
    bunniesConnected: s.bunnies?.length ?? null,
    bunnies: s.bunnies?.map((b) => ({ ...b, pagesPerSecond: p.bunnyRates.get(b.crawler) ?? 0 })) ?? null,
    traffic: s.traffic,
  };
}
