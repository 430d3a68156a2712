import { JoinedLeases } from '../joined-leases.js';
import { longPoll, Waiters } from '../long-poll.js';
import { RECRAWL_BATCH } from '../policy/recrawl.js';
import type {
  AddResult,
  CompleteResult,
  Completion,
  CrawlerId,
  CrawlSeeds,
  ExtendedLease,
  FrontierCookies,
  FrontierHosts,
  FrontierSettings,
  FrontierStats,
  HostOverview,
  LeaseBatch,
  LeaseId,
  LeaseOptions,
  LocalFrontier,
  NewLink,
  PendingRecord,
  RecordId,
  RejectedLink,
  Release,
  RobotsAnswer,
  RobotsEntry,
  SiteFacts,
  StoredCookie,
  StoredLink,
  StoredQuery,
  StoredRobots,
} from '../types.js';
import { claim } from './claim.js';
import { completeBatch } from './completion.js';
import { saveCookies } from './cookies.js';
import { leaveCrawler, registerCrawler } from './crawlers.js';
import { GroupCommit, NO_RELEASES } from './group-commit.js';
import { HeldLeases } from './held-leases.js';
import { markLeaseMode, readDueTimes } from './held-mode.js';
import { askRobotsOf, crawlSeedsOf, recordRobotsOf } from './host-decisions.js';
import { HostTable } from './host-table.js';
import { extendHeld, extendLeases } from './leases.js';
import { insertLinks } from './link-inserts.js';
import { schemaConnection, takeTableSeen } from './open.js';
import { shallowestWaiting } from './passes.js';
import { QueueHeads } from './queue-heads.js';
import { dueAgainStatement, requeueDueBatch } from './recrawl.js';
import { SeenAnswers } from './seen-answers.js';
import { SeenGate, type StoreSeenOptions, TABLE_SEEN } from './seen-gate.js';
import { claimSite, recordSite, sitesOf } from './sites.js';
import { hostOverviewOf, seenStatsOf, statsOf } from './stats.js';
import { Store } from './store.js';
import { acknowledge, findStored, reclaimRecords, requeueStored } from './stored.js';

/** Other processes' changes are not notified: a long poll looks again at least this often. */
const POLL_SLICE_MS = 200;

/** How a store is opened: its clock, and the seen set it keeps beside its file. */
export interface SqliteOpenOptions {
  now?: () => number;
  /**
   * memory, bloom, lmdb or drum, held by this process alone (see seen-gate.ts); without
   * it the store's own table, which every process on the file shares.
   */
  seen?: StoreSeenOptions;
  /** Hears what opening changed (another seen set than last time, a rebuild). */
  say?: (line: string) => void;
}

/**
 * The embedded frontier: one SQLite file (WAL) that any number of crawling processes
 * on this machine may share. Everything is in the file: the queue, the leases, each
 * host's politeness budget and the crawl's counts, each changed in one immediate
 * transaction, so every process sees one crawl. The policies (the gap, the budgets,
 * retirement, lease expiry) are the shared pieces in ../policy. One exception: a store
 * whose seen set its process holds is that process's alone, and keeps its leases in
 * memory rather than in rows (held-leases.ts, held-mode.ts).
 *
 * This class answers the Frontier interface; each job is a file beside it (claim.ts,
 * completion.ts, link-inserts.ts, requeue.ts, recrawl.ts, passes.ts, ...), working on
 * the Store (store.ts) in the transaction group-commit.ts gives it.
 */
export class SqliteFrontier implements LocalFrontier, FrontierHosts, FrontierCookies {
  private readonly s: Store;
  private readonly waiters = new Waiters();
  /** Lease calls of one crawler in one group commit: one claim. */
  private readonly joined = new JoinedLeases();
  private readonly commit: GroupCommit;
  private readonly answers: SeenAnswers;

  /** A store with the seen set `options.seen` names (opened and reconciled first), or its own table. */
  static async open(
    file: string,
    settings: FrontierSettings,
    options: SqliteOpenOptions = {},
  ): Promise<SqliteFrontier> {
    if (options.seen === undefined) return new SqliteFrontier(file, settings, options.now);
    // The schema first: the gate reads the store's rows to fill the set. Its connection
    // stays open until the store's own is: the last connection to close a WAL file
    // checkpoints it and syncs it to disk, work for the end of a crawl, not its start.
    const schema = schemaConnection(file);
    try {
      const gate = await SeenGate.acquire(file, options.seen, options.say ?? (() => {}));
      try {
        return new SqliteFrontier(file, settings, options.now, gate);
      } catch (err) {
        await gate.release();
        throw err;
      }
    } finally {
      schema.close();
    }
  }

  constructor(
    readonly file: string,
    settings: FrontierSettings,
    now: () => number = Date.now,
    /** The seen set beside the file, held by this process; null: the store's own table. */
    gate: SeenGate | null = null,
  ) {
    const db = schemaConnection(file);
    try {
      if (gate === null) takeTableSeen(db, file);
    } catch (err) {
      db.close();
      throw err;
    }
    const s = new Store(file, db, settings, now, gate);
    this.s = s;
    this.commit = new GroupCommit(s, this.waiters);
    this.answers = new SeenAnswers(s, this.commit);
    // The budget is the crawl's, not this process's: the last one to start sets it.
    s.st.putMeta.run('max_pages', String(settings.maxPages));
    const held = gate !== null;
    const [incarnation] = this.commit.transact(NO_RELEASES, [(tx) => markLeaseMode(s, held, tx)]) as [number];
    s.held = held ? new HeldLeases(incarnation) : null;
    s.heads = s.held === null ? null : new QueueHeads();
    s.keptHosts = s.held === null ? null : new HostTable(s.hostSt, settings, settings.key === 'ip');
    readDueTimes(s);
    // Built here, not in a lease call's transaction, when it is wanted from the start.
    if (settings.recrawlAfterMs !== undefined) dueAgainStatement(s);
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    return this.commit.write((tx) => registerCrawler(this.s, name, tx));
  }

  async add(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    crawler: CrawlerId,
  ): Promise<AddResult> {
    const result = await this.answers.answered(async () => {
      const fresh = await this.answers.ask([...links, ...rejected]);
      return this.answers.write(fresh, (tx) => {
        const added = insertLinks(this.s, links, rejected, crawler, tx, fresh ?? undefined);
        return { added, records: tx.records };
      });
    });
    if (result.added > 0) this.waiters.notify();
    return result;
  }

  async lease(n: number, crawler: CrawlerId, options: LeaseOptions = {}): Promise<LeaseBatch> {
    const attempt = () =>
      this.joined.ask(n, crawler, (take) => this.commit.write((tx) => claim(this.s, take(), crawler, tx)));
    const waitMs = options.waitMs ?? 0;
    const batch = await (waitMs > 0
      ? longPoll(attempt, waitMs, this.waiters, this.s.now, POLL_SLICE_MS)
      : attempt());
    if (batch.leases.length === 0 && !this.s.closed) this.s.wal.idle();
    return batch;
  }

  /**
   * Releases ride on the next transaction this process makes (a lease call usually
   * follows soon), or on their own after 5 ms: a commit costs more than the
   * few rows a release changes.
   */
  release(batch: readonly Release[]): Promise<void> {
    return this.commit.releasing.add(batch);
  }

  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    if (this.s.closed) throw new Error('the frontier is closed');
    return extendHeld(this.s, leaseIds) ?? this.commit.write((tx) => extendLeases(this.s, leaseIds, tx));
  }

  async complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    const result = await this.answers.answered(() => completeBatch(this.s, this.answers, batch, crawler));
    this.waiters.notify();
    return result;
  }

  async acknowledge(ids: readonly RecordId[]): Promise<void> {
    if (ids.length === 0) return;
    await this.commit.write(() => acknowledge(this.s, ids));
  }

  async reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]> {
    return this.commit.write((tx) => reclaimRecords(this.s, crawler, tx));
  }

  async claimSite(origin: string, crawler: CrawlerId): Promise<boolean> {
    return this.commit.write((tx) => claimSite(this.s, origin, crawler, tx));
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.commit.write(() => recordSite(this.s, site));
  }

  async sites(): Promise<SiteFacts[]> {
    return sitesOf(this.s);
  }

  async findStored(query: StoredQuery, after: RecordId, limit: number): Promise<StoredLink[]> {
    return findStored(this.s, query, after, limit);
  }

  async requeue(ids: readonly RecordId[], options: { asSeeds?: boolean } = {}): Promise<number> {
    const queued = await this.commit.write((tx) => requeueStored(this.s, ids, options, tx));
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async requeueDue(afterMs: number): Promise<number> {
    dueAgainStatement(this.s);
    let queued = 0;
    for (;;) {
      const n = await this.commit.write((tx) => requeueDueBatch(this.s, afterMs, tx));
      queued += n;
      if (n < RECRAWL_BATCH) break;
    }
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async cookies(): Promise<StoredCookie[]> {
    return this.s.st.cookies.all() as StoredCookie[];
  }

  async saveCookies(changes: readonly StoredCookie[]): Promise<void> {
    if (changes.length === 0) return;
    await this.commit.write(() => saveCookies(this.s, changes));
  }

  async robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
    return this.commit.write((tx) => askRobotsOf(this.s, origin, crawler, tx));
  }

  async recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
  ): Promise<StoredRobots | null> {
    return this.commit.write((tx) => recordRobotsOf(this.s, origin, entry, crawler, tx));
  }

  async crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds> {
    if (add.origins.length === 0 && add.addresses.length === 0) return crawlSeedsOf(this.s, add);
    return this.commit.write(() => crawlSeedsOf(this.s, add));
  }

  async hostQueues(limit: number): Promise<{ host: string; queued: number }[]> {
    return this.s.st.hostQueues.all(limit) as { host: string; queued: number }[];
  }

  /** Hosts by state and the busiest ones; reads every host row (for the console, not the crawl). */
  async hostOverview(limit: number): Promise<HostOverview> {
    return hostOverviewOf(this.s, limit);
  }

  async stats(): Promise<FrontierStats> {
    return statsOf(this.s);
  }

  async leave(crawler: CrawlerId): Promise<void> {
    await this.commit.write((tx) => leaveCrawler(this.s, crawler, tx));
    this.waiters.notify();
  }

  async close(): Promise<void> {
    const s = this.s;
    if (s.closed) return;
    if (this.answers.busy) await this.answers.drain();
    if (s.closed) return;
    this.commit.releasing.stop();
    // What waits for the next group commit is committed before the file closes.
    this.commit.commitQueued();
    // A store closed with no lease held needs no recount at its next open, unless a
    // rolled-back write left its memory and its file apart.
    if (s.held?.size === 0 && !s.recountAtNextOpen) s.st.deleteMeta.run('held_leases');
    s.closed = true;
    this.waiters.notify();
    // The last connection to close checkpoints by itself; one closing while another
    // process (or a reader) has the file open would leave the WAL at its full size.
    try {
      s.wal.trim();
    } catch {
      // a store that cannot checkpoint now still closes; the next run's does it
    }
    s.db.close();
    await s.gate?.release();
  }

  /**
   * Crawl passes: from now on only URLs shallower than `depth` are leased, and a lease
   * call says 'finished' once none of them is queued, leased or waiting to retry: the
   * pass's clean boundary. null: every depth again. (This process's handle only.)
   */
  setPassDepth(depth: number | null): void {
    this.s.passDepth = depth ?? Number.POSITIVE_INFINITY;
  }

  /** The shallowest depth still waiting (queued or retrying), or null: where the next pass starts. */
  async shallowestWaiting(): Promise<number | null> {
    return shallowestWaiting(this.s);
  }

  /** The seen set's kind: the store's own table, or the strategy held beside it. */
  get seenKind(): string {
    return this.s.gate?.kind ?? TABLE_SEEN;
  }

  /** The held seen set's size and figures (bloom's estimated rate), for stats and logs. */
  seenStats(): { kind: string; size: number; [k: string]: unknown } {
    return seenStatsOf(this.s);
  }

  /** A crawl pass's boundary: every link has its answer, and the held seen set is flushed (SeenGate.settle). */
  async settleSeen(): Promise<void> {
    await this.s.gate?.settle();
  }
}
