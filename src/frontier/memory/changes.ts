import type { BudgetState } from '../policy/politeness.js';
import type { RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds, LeaseId, SiteFacts } from '../types.js';
import type { MemoryHost } from './memory-hosts.js';
import type { HeldLease, UrlEntry } from './url-entry.js';

/** A crawler the store gave an id, and whether it has left. */
export interface CrawlerEntry {
  name: string;
  left: boolean;
}

/** Who runs a site's hooks, and what they recorded (null until then). */
export interface SiteClaim {
  claimedBy: CrawlerId | null;
  recorded: boolean;
  facts: SiteFacts | null;
}

/** The store's own numbers that no URL, host or lease holds. */
export interface StoreCounters {
  nextLeaseId: number;
  staleCompletions: number;
  expiredLeases: number;
  nextDueLook: number;
}

/**
 * What the in-memory engine tells of every change it makes, for a store that keeps
 * them (the workbench store's journal). Each call of the contract changes things
 * and then ends with commit(): the call's changes are one step, and the call answers
 * once the promise commit() gives has resolved (null: nothing to wait for).
 */
export interface StoreChanges {
  entry(e: UrlEntry): void;
  lease(l: HeldLease): void;
  leaseEnded(id: LeaseId): void;
  host(h: MemoryHost): void;
  budget(key: string, state: BudgetState): void;
  crawler(id: CrawlerId, c: CrawlerEntry): void;
  site(origin: string, claim: SiteClaim): void;
  cookie(key: string, value: string | null): void;
  robots(origin: string, row: RobotsRow): void;
  seeds(seeds: CrawlSeeds): void;
  commit(counters: StoreCounters): Promise<void> | null;
}

/** What a store that keeps the engine's changes read back, for the engine to start from. */
export interface KeptState {
  /** Every URL, by id (1, 2, ...). */
  entries: UrlEntry[];
  hosts: { host: string; taken: number; retired: boolean; budget: string }[];
  budgets: [string, BudgetState][];
  leases: { id: LeaseId; entryId: number; crawler: CrawlerId; expiresAt: number; released: boolean }[];
  crawlers: [CrawlerId, CrawlerEntry][];
  sites: [string, SiteClaim][];
  cookies: [string, string][];
  robots: [string, RobotsRow][];
  seeds: CrawlSeeds;
  counters: StoreCounters;
}
