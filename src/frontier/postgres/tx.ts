import type { StoreCounts } from '../store-counts.js';
import type { FrontierSettings, PendingRecord } from '../types.js';
import type { Query } from './database.js';
import type { HostRows } from './host-rows.js';

/** What one transaction of the PostgreSQL store works with. */
export interface Tx {
  q: Query;
  /** The crawl's id (crawls.id): every row read or written is this crawl's. */
  crawl: number;
  /** The store's clock, read once per transaction. */
  now: number;
  settings: FrontierSettings;
  hosts: HostRows;
  /** Changes to the crawl's counts, written once at the end. */
  delta: StoreCounts;
  /** Lines the caller must write (refused URLs, URLs of a host given up on). */
  records: PendingRecord[];
}

/** A leased link as completions, releases and expiry read it. */
export interface LeasedRow {
  id: number;
  lease_id: number;
  host: string;
  /** Its rank (policy/queue-rank.ts): where it goes back in its host's queue. */
  rank: number;
  released: boolean;
}
