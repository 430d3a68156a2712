import type Database from 'better-sqlite3';
import { SqliteSeenSet } from '../../seen/sqlite-seen.js';
import { RecentUrls } from '../recent-urls.js';
import type { CrawlerId, FrontierSettings } from '../types.js';
import type { HeldLeases } from './held-leases.js';
import { type HostStatements, type HostTable, prepareHostStatements } from './host-table.js';
import type { QueueHeads } from './queue-heads.js';
import { BUSY_TIMEOUT_MS } from './schema.js';
import type { SeenGate } from './seen-gate.js';
import { prepareStatements, type Statements } from './statements.js';
import { WalTrim } from './wal-trim.js';

/**
 * One open store as its parts see it (claim.ts, completion.ts, link-inserts.ts, ...):
 * the connection and its statements, the settings, and this handle's state. Made once
 * when the store opens and handed to each part, so a call on the crawl path reaches
 * them without a closure or an object of its own.
 */
export class Store {
  /** The store's own table: the seen set when no gate is given. */
  readonly seen: SqliteSeenSet;
  readonly st: Statements;
  /** Checkpoints the WAL down to nothing at the end of a run and when idle. */
  readonly wal: WalTrim;
  readonly hostSt: HostStatements;
  /** URLs the store answered for lately. */
  readonly recent = new RecentUrls();
  /** When each crawler of this process was last marked as heard from. */
  readonly lastTouched = new Map<CrawlerId, number>();
  closed = false;
  /** Crawl passes (--passes): only URLs shallower than this are leased; Infinity: all. */
  passDepth = Number.POSITIVE_INFINITY;
  /**
   * With a held seen set the store is this process's alone, and so are its leases
   * (held-leases.ts). Set once the file has been told which (held-mode.ts).
   */
  held: HeldLeases | null = null;
  /**
   * A write failed and was rolled back (a full disk): the held leases in memory may no
   * longer match the file's counts and hosts' slots, so the file is left saying it was
   * held, and the next open counts them again from the rows.
   */
  recountAtNextOpen = false;
  /**
   * With held leases, the hosts and budgets read and written, kept from one transaction
   * to the next (host-table.ts); null: each transaction reads its own.
   */
  keptHosts: HostTable | null = null;
  /** With held leases, the hosts' next queued rows, read ahead (queue-heads.ts). */
  heads: QueueHeads | null = null;
  /** --recrawl-after: when this handle's lease calls next look for URLs come due (store clock). */
  nextDueLook = 0;
  /**
   * With held leases, the earliest expiry of the file's lease rows (a shared run's, left
   * from before this holder) and the earliest retry due: only this process writes
   * either, so a lease call reads the file for them only when one is due, not each time.
   * null: there is none; undefined (not held): the file is asked each time.
   */
  rowLeaseDue: number | null | undefined = undefined;
  retryDue: number | null | undefined = undefined;
  /** --recrawl-after's query (recrawl.ts, dueAgainStatement); null until a crawl asks for it. */
  dueAgain: Database.Statement | null = null;

  constructor(
    readonly file: string,
    readonly db: Database.Database,
    readonly settings: FrontierSettings,
    readonly now: () => number,
    /** The seen set beside the file, held by this process; null: the store's own table. */
    readonly gate: SeenGate | null,
  ) {
    this.seen = new SqliteSeenSet(db);
    this.wal = new WalTrim(db, BUSY_TIMEOUT_MS, now);
    this.st = prepareStatements(db);
    this.hostSt = prepareHostStatements(db);
  }
}
