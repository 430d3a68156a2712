import type { BudgetState } from '../policy/politeness.js';
import type { RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds, LeaseId, RecordId, SiteFacts } from '../types.js';
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
  /** A final URL read back from the disk (UrlsOnDisk) and queued again: kept whole. */
  returned(e: UrlEntry): void;
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

/**
 * Where a store keeps URLs out of the engine's memory (the workbench store's URL files):
 * those that are final (done, or failed or refused with their record written), asked
 * about only by the owner's calls (findStored, requeue, requeueDue), and the queued URLs,
 * whose places their host's queue holds (MemoryHost.rest) and which the engine reads
 * back as it leases them. So the engine holds only the URLs it leases, retries and has
 * records to hand out, and those that came since URLs last left memory.
 */
export interface UrlsOnDisk {
  /** Its state if URL `id` is kept here, else null. */
  stateOf(id: RecordId): 'done' | 'failed' | 'refused' | 'queued' | null;
  /** URL `id` as kept here (stateOf not null), read from its file. */
  read(id: RecordId): UrlEntry;
  /** URL `id` is the engine's again (read back to be leased, or queued once more): no longer counted here. */
  takeBack(id: RecordId): void;
  /** The queued URLs kept here when the store opened, once: their hosts and places. */
  takeQueuedRead(): { id: RecordId; host: string; key: number }[];
  /** The done URLs kept here that were fetched at or before `cutoff` (epoch ms). */
  doneBy(cutoff: number): RecordId[];
  /** Every URL kept here, read from the files (a search by URL). */
  each(visit: (e: UrlEntry) => void): void;
  counts(): { done: number; failed: number; refused: number; queued: number };
}

/** What a store that keeps the engine's changes read back, for the engine to start from. */
export interface KeptState {
  /** The URLs in memory (all of them, but those of UrlsOnDisk), by id. */
  entries: UrlEntry[];
  /** The highest URL id given, in memory or not. */
  lastId: number;
  /** The fingerprints of the URLs in UrlsOnDisk, for the seen set. */
  finalFingerprints: BigUint64Array;
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
