import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSeenSet } from '../../seen/sqlite-seen.js';
import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { addressBudget, hostBudget } from '../host-row.js';
import { JoinedLeases } from '../joined-leases.js';
import { leaseOf } from '../lease-of.js';
import { type CrawlerLife, crawlerGone, MACHINE } from '../liveness.js';
import { longPoll, Waiters } from '../long-poll.js';
import { PendingReleases, type TakenReleases } from '../pending-releases.js';
import { type CrawlCounts, crawlEnd, pagesLeft } from '../policy/crawl-budget.js';
import { hostBudgetRefusal } from '../policy/host-budget.js';
import { settingsForHost } from '../policy/host-rules.js';
import { expiredThrough, leaseExpiry } from '../policy/lease-expiry.js';
import {
  afterFetch,
  afterLease,
  afterLostLease,
  leasesThisTurn,
  mergeBudgets,
  NEVER,
  readyAt,
  startDeadline,
} from '../policy/politeness.js';
import {
  DUE_LOOK_MS,
  dueLookNeeded,
  previousOf,
  RECRAWL_BATCH,
  recrawlCutoff,
  validatorColumns,
} from '../policy/recrawl.js';
import { RETIRED_REASON, shouldRetire } from '../policy/retirement.js';
import { RecentUrls } from '../recent-urls.js';
import type {
  AddResult,
  CompleteResult,
  Completion,
  CrawlerId,
  ExtendedLease,
  FetchReport,
  FrontierCookies,
  FrontierHosts,
  FrontierSettings,
  FrontierStats,
  HostOverview,
  HostView,
  Lease,
  LeaseBatch,
  LeaseId,
  LeaseOptions,
  LocalFrontier,
  NewLink,
  PendingRecord,
  RecordId,
  RejectedLink,
  Release,
  SeenStats,
  SiteFacts,
  StoredCookie,
  StoredLink,
  StoredQuery,
} from '../types.js';
import { type HeldLease, HeldLeases } from './held-leases.js';
import { HostTable, prepareHostStatements } from './host-table.js';
import { type QueuedRow, QueueHeads } from './queue-heads.js';
import { ensureFetchedIndex, openSchema, URL_KIND, URL_STATE } from './schema.js';
import { SeenGate, SeenSetBusyError, type StoreSeenOptions, seenSetHeld, TABLE_SEEN } from './seen-gate.js';
import { DUE_AGAIN_SQL, prepareStatements, type Statements } from './statements.js';

/** Changes to the crawl's counts made by one transaction, written once at its end. */
interface Delta {
  queued: number;
  leased: number;
  retrying: number;
  done: number;
  failed: number;
  rejected: number;
  stale: number;
  expired: number;
}

/** A call's work, waiting for the next group commit. */
interface QueuedWrite {
  work: (tx: Tx) => unknown;
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
}

/** What one call's work in a write transaction works with. */
interface Tx {
  now: number;
  /** Shared by every call in the transaction: read once, written once at its end. */
  hosts: HostTable;
  /** Shared too: the transaction's changes to the counts so far. */
  delta: Delta;
  /** This call's own: the lines it hands back to be written. */
  records: PendingRecord[];
}

/** No releases: a call run again alone, after its group failed, carries none. */
const NO_RELEASES: TakenReleases = { releases: [], done: () => {}, failed: () => {} };

/** A final state as findStored() names it. */
const STORED_STATE: Record<number, StoredLink['state']> = {
  [URL_STATE.done]: 'done',
  [URL_STATE.failed]: 'failed',
  [URL_STATE.rejected]: 'refused',
};

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
 * memory rather than in rows (held-leases.ts; recountAfterHeld for a crash).
 */
export class SqliteFrontier implements LocalFrontier, FrontierHosts, FrontierCookies {
  private readonly db: Database.Database;
  private readonly st: Statements;
  private readonly hostSt: ReturnType<typeof prepareHostStatements>;
  /** The store's own table: the seen set when no gate is given. */
  private readonly seen: SqliteSeenSet;
  /**
   * URLs the store answered for lately. Pages' links come already thinned by the
   * analyzers (each leaves out what it sent lately), so a modest cache catches what is
   * left; 250,000 URLs a generation (the class's default) held some 60 MB of strings
   * in a long crawl, memory that grew with the crawl up to that bound.
   */
  private readonly recent = new RecentUrls(RECENT_URLS_PER_GENERATION);
  private readonly waiters = new Waiters();
  /** Lease calls of one crawler in one group commit: one claim. */
  private readonly joined = new JoinedLeases();
  /** Releases waiting for this process's next transaction. */
  private readonly releasing = new PendingReleases(() => {
    if (!this.closed) this.commitQueued();
  });
  /** Calls waiting for the next group commit (see write()). */
  private queued: QueuedWrite[] = [];
  private groupScheduled: NodeJS.Immediate | null = null;
  /** When each crawler of this process was last marked as heard from. */
  private readonly lastTouched = new Map<CrawlerId, number>();
  private closed = false;
  /** add() and complete() calls waiting for the held seen set's answers: close() lets them commit first. */
  private answering = 0;
  private drained: (() => void)[] = [];
  /** Crawl passes (--passes): only URLs shallower than this are leased; Infinity: all. */
  private passDepth = Number.POSITIVE_INFINITY;
  /** With a held seen set the store is this process's alone, and so are its leases (held-leases.ts). */
  private readonly held: HeldLeases | null;
  /** With held leases, the hosts' next queued rows, read ahead (queue-heads.ts). */
  private readonly heads: QueueHeads | null;
  /** --recrawl-after: when this handle's lease calls next look for URLs come due (store clock). */
  private nextDueLook = 0;
  /**
   * With held leases, the earliest expiry of the file's lease rows (a shared run's, left
   * from before this holder) and the earliest retry due: only this process writes
   * either, so a lease call reads the file for them only when one is due, not each time.
   * null: there is none; undefined (not held): the file is asked each time.
   */
  private rowLeaseDue: number | null | undefined = undefined;
  private retryDue: number | null | undefined = undefined;
  /** --recrawl-after's query (dueAgainStatement); null until a crawl asks for it. */
  private dueAgain: Database.Statement | null = null;

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
    private readonly settings: FrontierSettings,
    private readonly now: () => number = Date.now,
    /** The seen set beside the file, held by this process; null: the store's own table. */
    private readonly gate: SeenGate | null = null,
  ) {
    this.db = schemaConnection(file);
    try {
      if (gate === null) this.takeTableSeen();
    } catch (err) {
      this.db.close();
      throw err;
    }
    this.seen = new SqliteSeenSet(this.db);
    this.st = prepareStatements(this.db);
    this.hostSt = prepareHostStatements(this.db);
    // The budget is the crawl's, not this process's: the last one to start sets it.
    this.st.putMeta.run('max_pages', String(settings.maxPages));
    this.held = this.openLeases(gate !== null);
    this.heads = this.held === null ? null : new QueueHeads();
    this.readDueTimes();
    // Built here, not in a lease call's transaction, when it is wanted from the start.
    if (settings.recrawlAfterMs !== undefined) this.dueAgainStatement();
  }

  /** --recrawl-after's query, and the index it reads, made the first time either is wanted. */
  private dueAgainStatement(): Database.Statement {
    if (this.dueAgain === null) {
      ensureFetchedIndex(this.db);
      this.dueAgain = this.db.prepare(DUE_AGAIN_SQL);
    }
    return this.dueAgain;
  }

  /** A held store's due times, from the file (at the start, and after a rollback). */
  private readDueTimes(): void {
    if (this.held === null) return;
    this.rowLeaseDue = this.st.nextExpiry.get() as number | null;
    this.retryDue = this.st.nextRetry.get() as number | null;
  }

  /**
   * A process that holds the store keeps its leases in memory (held-leases.ts) and says
   * so in the file until it closes with none. If it crashed, the file's counts still count
   * its leases as leased and their hosts' slots as taken, with no lease rows to give them
   * back when they expire: the next process to open the store (nobody else can have it
   * then) counts them from the rows again, and nothing is in flight.
   */
  private openLeases(held: boolean): HeldLeases | null {
    const [incarnation] = this.transact(NO_RELEASES, [
      (tx) => {
        if (this.st.getMeta.get('held_leases') !== undefined) {
          this.db.exec(RECOUNT_QUEUE);
          for (const key of this.st.busyBudgets.all() as string[]) {
            // A host's budget: its row is read so that flush() writes its ready time again.
            if (key === hostBudget(key)) tx.hosts.host(key);
            tx.hosts.setBudget(key, { ...tx.hosts.budget(key), inFlight: 0 });
          }
        }
        if (!held) {
          this.st.deleteMeta.run('held_leases');
          return 0;
        }
        this.st.putMeta.run('held_leases', '1');
        const n = Number(this.st.getMeta.get('lease_incarnation') ?? 0) + 1;
        this.st.putMeta.run('lease_incarnation', String(n));
        return n;
      },
    ]) as [number];
    return held ? new HeldLeases(incarnation) : null;
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    return this.write((tx) => {
      this.reclaimFromGone(tx);
      const info = this.st.insertCrawler.run(name, MACHINE, process.pid, tx.now, tx.now);
      return Number(info.lastInsertRowid);
    });
  }

  async add(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    crawler: CrawlerId,
  ): Promise<AddResult> {
    const result = await this.answered(async () => {
      const fresh = await this.askGate([...links, ...rejected]);
      return this.writeAnswered(fresh, (tx) => {
        const added = this.insertLinks(links, rejected, crawler, tx, fresh ?? undefined);
        return { added, records: tx.records };
      });
    });
    if (result.added > 0) this.waiters.notify();
    return result;
  }

  async lease(n: number, crawler: CrawlerId, options: LeaseOptions = {}): Promise<LeaseBatch> {
    const attempt = () =>
      this.joined.ask(n, crawler, (take) => this.write((tx) => this.claim(take(), crawler, tx)));
    const waitMs = options.waitMs ?? 0;
    return waitMs > 0 ? longPoll(attempt, waitMs, this.waiters, this.now, POLL_SLICE_MS) : attempt();
  }

  /**
   * Releases ride on the next transaction this process makes (a lease call usually
   * follows soon), or on their own after 5 ms: a commit costs more than the
   * few rows a release changes.
   */
  release(batch: readonly Release[]): Promise<void> {
    return this.releasing.add(batch);
  }

  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    return this.write((tx) => {
      const expiresAt = leaseExpiry(tx.now, this.settings);
      return leaseIds
        .filter((id) => {
          const { seq, gen } = splitLeaseId(id);
          const held = this.held === null ? undefined : this.leaseOf(id, tx)?.held;
          if (held === undefined) return this.st.extendLease.run(expiresAt, seq, gen).changes === 1;
          held.expiresAt = expiresAt;
          return true;
        })
        .map((id) => ({ id, expiresAt }));
    });
  }

  async complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    const result = await this.answered(() => this.completeNow(batch, crawler));
    this.waiters.notify();
    return result;
  }

  /**
   * Runs an add or a completion; with a held seen set, counted until it has committed,
   * so that close() lets it finish: the set has marked its links, and a close in
   * between would leave marks the store lacks.
   */
  private async answered<T>(work: () => Promise<T>): Promise<T> {
    if (this.gate === null) return work();
    this.answering++;
    try {
      return await work();
    } finally {
      if (--this.answering === 0) for (const done of this.drained.splice(0)) done();
    }
  }

  private async completeNow(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    // A held seen set is asked before the transaction (drum answers late), for the
    // completions that still hold their lease: a stale one's links are not taken.
    const live = this.gate === null ? [] : this.stillLeased(batch);
    const fresh = await this.askGate(live.flatMap((c) => [...c.outlinks, ...c.rejected]));
    const freshOf = new Map<Completion, boolean[]>();
    let at = 0;
    for (const c of live) {
      const n = c.outlinks.length + c.rejected.length;
      freshOf.set(c, (fresh as boolean[]).slice(at, at + n));
      at += n;
    }
    return this.writeAnswered(fresh, (tx) => {
      const stale: LeaseId[] = [];
      let added = 0;
      for (const c of batch) {
        const lease = this.leaseOf(c.leaseId, tx);
        const answered = freshOf.get(c);
        if (lease === undefined) {
          // It expired and went back to the queue (maybe to someone else): change nothing.
          stale.push(c.leaseId);
          tx.delta.stale++;
          // Unless the seen set was asked before it expired: what it marked must be queued.
          if (answered !== undefined)
            added += this.insertLinks(c.outlinks, c.rejected, crawler, tx, answered);
          continue;
        }
        if (lease.released === 0) this.applyReport(lease.host, c.report ?? { fetchMs: 0 }, tx);
        this.endLease(lease, tx);
        this.settle(lease, c, crawler, tx);
        added += this.insertLinks(c.outlinks, c.rejected, crawler, tx, answered);
        this.retireIfDead(lease.host, crawler, tx);
      }
      this.adoptOrphans(crawler, tx);
      return { added, records: tx.records, stale };
    });
  }

  async acknowledge(ids: readonly RecordId[]): Promise<void> {
    if (ids.length === 0) return;
    await this.write(() => {
      for (const id of ids) this.st.acknowledge.run(id);
    });
  }

  async reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]> {
    return this.write((tx) => {
      const live = this.liveCrawlers(tx.now);
      const rows = this.st.unlogged.all() as (PendingRecord & { holder: number | null })[];
      const mine: PendingRecord[] = [];
      for (const { holder, ...r } of rows) {
        if (holder !== null && holder !== crawler && live.has(holder)) continue;
        this.st.setHolder.run(crawler, r.id);
        mine.push(r);
      }
      return mine;
    });
  }

  async claimSite(origin: string, crawler: CrawlerId): Promise<boolean> {
    return this.write((tx) => {
      if (this.st.claimNewSite.run(origin, crawler).changes === 1) return true;
      const row = this.st.getSite.get(origin) as { claimed_by: number | null; recorded: number };
      if (row.recorded === 1 || row.claimed_by === crawler) return false;
      // Claimed by a crawler that died before its hooks finished: run them again, not never.
      if (row.claimed_by !== null && this.liveCrawlers(tx.now).has(row.claimed_by)) return false;
      return this.st.reclaimSite.run(crawler, origin).changes === 1;
    });
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.write(() => {
      this.st.recordSite.run(site.origin, site.address, site.firstSeen, JSON.stringify(site.info));
    });
  }

  async sites(): Promise<SiteFacts[]> {
    const rows = this.st.sites.all() as {
      origin: string;
      address: string | null;
      first_seen: number;
      info: string;
    }[];
    return rows.map((r) => ({
      origin: r.origin,
      address: r.address,
      firstSeen: r.first_seen,
      info: JSON.parse(r.info) as Record<string, unknown>,
    }));
  }

  async findStored(query: StoredQuery, after: RecordId, limit: number): Promise<StoredLink[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const reasons = query.refusedFor ?? [];
    if (query.refused === true) where.push(`state = ${URL_STATE.rejected}`);
    else if (reasons.length > 0) {
      where.push(`(state = ${URL_STATE.rejected} AND error IN (${reasons.map(() => '?').join(', ')}))`);
      params.push(...reasons);
    }
    if (query.failed === true) where.push(`state = ${URL_STATE.failed}`);
    if (query.done === true) where.push(`state = ${URL_STATE.done}`);
    if (where.length === 0 || query.among?.length === 0) return [];
    const among = query.among ?? [];
    const rows = this.db
      .prepare(
        `SELECT seq AS id, url, depth, via, state, error AS reason FROM urls
         WHERE seq > ? AND (${where.join(' OR ')})
         ${among.length > 0 ? `AND url IN (${among.map(() => '?').join(', ')})` : ''}
         ORDER BY seq LIMIT ?`,
      )
      .all(after, ...params, ...among, limit) as (Omit<StoredLink, 'state'> & { state: number })[];
    return rows.map((r) => ({ ...r, state: STORED_STATE[r.state] ?? 'refused' }));
  }

  async requeue(ids: readonly RecordId[], options: { asSeeds?: boolean } = {}): Promise<number> {
    const queued = await this.write((tx) => {
      let n = 0;
      for (const id of ids) {
        const row = this.st.storedRow.get(id) as { host: string; depth: number; state: number } | undefined;
        if (row === undefined || (row.state !== URL_STATE.failed && row.state !== URL_STATE.rejected))
          continue;
        (options.asSeeds === true ? this.st.requeueSeed : this.st.requeueFinal).run(id);
        if (row.state === URL_STATE.failed) tx.delta.failed--;
        else tx.delta.rejected--;
        const h = tx.hosts.host(row.host);
        if (h.retired) {
          // Asked for again on purpose: the host gets a fresh start.
          h.retired = false;
          tx.hosts.setBudget(h.budget, { ...tx.hosts.budget(h.budget), failures: 0 });
        }
        tx.hosts.queue(h, options.asSeeds === true ? 0 : row.depth);
        this.heads?.forget(row.host);
        tx.delta.queued++;
        n++;
      }
      return n;
    });
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async requeueDue(afterMs: number): Promise<number> {
    this.dueAgainStatement();
    let queued = 0;
    for (;;) {
      const n = await this.write((tx) => this.requeueDueBatch(afterMs, tx));
      queued += n;
      if (n < RECRAWL_BATCH) break;
    }
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async cookies(): Promise<StoredCookie[]> {
    return this.st.cookies.all() as StoredCookie[];
  }

  async saveCookies(changes: readonly StoredCookie[]): Promise<void> {
    if (changes.length === 0) return;
    await this.write(() => {
      for (const c of changes) {
        if (c.value === null) this.st.deleteCookie.run(c.key);
        else this.st.putCookie.run(c.key, c.value);
      }
    });
  }

  async hostQueues(limit: number): Promise<{ host: string; queued: number }[]> {
    return this.st.hostQueues.all(limit) as { host: string; queued: number }[];
  }

  /** Hosts by state and the busiest ones; reads every host row (for the console, not the crawl). */
  async hostOverview(limit: number): Promise<HostOverview> {
    const counts = this.st.hostCounts.get() as { active: number; waiting: number; retired: number };
    const busiest = (this.st.busiestHosts.all(limit) as HostView[]).map((h) => ({
      ...h,
      readyAt: h.readyAt === NEVER ? null : h.readyAt,
    }));
    return { ...counts, busiest };
  }

  async stats(): Promise<FrontierStats> {
    const t = this.totals();
    return {
      queued: t.queued,
      leased: t.leased,
      retrying: t.retrying,
      done: t.done,
      failed: t.failed,
      rejected: t.rejected,
      hosts: this.st.hostCount.get() as number,
      staleCompletions: t.stale,
      expiredLeases: t.expired,
      budgetLeft: Number.isFinite(this.maxPages()) ? pagesLeft(this.maxPages(), countsOf(t)) : null,
      seen: seenBlock(this.seenStats()),
    };
  }

  async leave(crawler: CrawlerId): Promise<void> {
    await this.write((tx) => {
      for (const seq of this.st.leasesOf.all(crawler) as number[]) this.reclaimLease(seq, tx);
      for (const lease of this.held?.ofCrawler(crawler) ?? []) this.reclaimHeld(lease, tx);
      this.st.leaveCrawler.run(tx.now, crawler);
    });
    this.waiters.notify();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.answering > 0) await new Promise<void>((r) => this.drained.push(r));
    if (this.closed) return;
    this.releasing.stop();
    // What waits for the next group commit is committed before the file closes.
    this.commitQueued();
    // A store closed with no lease held needs no recount at its next open.
    if (this.held?.size === 0) this.st.deleteMeta.run('held_leases');
    this.closed = true;
    this.waiters.notify();
    this.db.close();
    await this.gate?.release();
  }

  /**
   * Crawl passes: from now on only URLs shallower than `depth` are leased, and a lease
   * call says 'finished' once none of them is queued, leased or waiting to retry: the
   * pass's clean boundary. null: every depth again. (This process's handle only.)
   */
  setPassDepth(depth: number | null): void {
    this.passDepth = depth ?? Number.POSITIVE_INFINITY;
  }

  /** The shallowest depth still waiting (queued or retrying), or null: where the next pass starts. */
  async shallowestWaiting(): Promise<number | null> {
    const host = this.db
      .prepare(`SELECT min(min_depth) FROM hosts WHERE queued > 0 AND retired = 0`)
      .pluck()
      .get() as number | null;
    const retry = this.db
      .prepare(`SELECT min(depth) FROM urls WHERE state = ${URL_STATE.retrying}`)
      .pluck()
      .get() as number | null;
    const known = [host, retry].filter((d): d is number => d !== null);
    return known.length === 0 ? null : Math.min(...known);
  }

  /** With a pass under way: 'finished' once nothing shallower than its depth is queued, leased or retrying. */
  private passEnd(after: Delta, tx: Tx): 'finished' | null {
    if (!Number.isFinite(this.passDepth) || after.leased > 0) return null;
    // The hosts read below must see this transaction's claims.
    tx.hosts.flush();
    const queued = this.db
      .prepare(`SELECT 1 FROM hosts WHERE queued > 0 AND retired = 0 AND min_depth < ? LIMIT 1`)
      .get(this.passDepth);
    if (queued !== undefined) return null;
    const retrying = this.db
      .prepare(`SELECT 1 FROM urls WHERE state = ${URL_STATE.retrying} AND depth < ? LIMIT 1`)
      .get(this.passDepth);
    return retrying === undefined ? 'finished' : null;
  }

  /** The seen set's kind: the store's own table, or the strategy held beside it. */
  get seenKind(): string {
    return this.gate?.kind ?? TABLE_SEEN;
  }

  /** The held seen set's size and figures (bloom's estimated rate), for stats and logs. */
  seenStats(): { kind: string; size: number; [k: string]: unknown } {
    if (this.gate === null) return { kind: TABLE_SEEN, size: this.seen.size };
    return { kind: this.gate.kind, size: this.gate.size, ...(this.gate.stats() ?? {}) };
  }

  /** A crawl pass's boundary: every link has its answer, and the held seen set is flushed (SeenGate.settle). */
  async settleSeen(): Promise<void> {
    await this.gate?.settle();
  }

  /**
   * With no held seen set, this handle uses the store's own table, which every process
   * on the file shares. A store whose set another process holds is refused; one whose
   * set nobody holds now goes back to its table, filled again from every URL row.
   */
  private takeTableSeen(): void {
    const kind = this.db.prepare(`SELECT value FROM meta WHERE key = 'seen'`).pluck().get() as
      | string
      | undefined;
    if (kind === undefined || kind === TABLE_SEEN) return;
    if (seenSetHeld(this.file)) {
      throw new SeenSetBusyError(
        `${this.file} is being crawled with the ${kind} seen set, which one process holds; reach that crawl through its server (cobweb://HOST:PORT)`,
      );
    }
    const seen = new SqliteSeenSet(this.db);
    const page = this.db.prepare('SELECT seq, url FROM urls WHERE seq > ? ORDER BY seq LIMIT 65536');
    this.db
      .transaction(() => {
        this.db.exec('DELETE FROM seen');
        for (let last = 0; ; ) {
          const rows = page.all(last) as { seq: number; url: string }[];
          if (rows.length === 0) break;
          seen.insertNewNow(BigUint64Array.from(rows, (r) => BigInt.asUintN(64, fingerprint(r.url))));
          last = (rows[rows.length - 1] as { seq: number }).seq;
        }
        this.db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('seen', ?)`).run(TABLE_SEEN);
      })
      .immediate();
  }

  /** Which of the links are new, from the held seen set (null: the table answers inside the transaction). */
  private async askGate(items: readonly { url: string }[]): Promise<boolean[] | null> {
    if (this.gate === null) return null;
    if (this.closed) throw new Error('the frontier is closed');
    const { fresh, ask, urls } = this.candidates(items);
    // Asked even with nothing to ask: every ask is followed by committed() or failed().
    const answers = await this.gate.ask(urls);
    ask.forEach((itemIndex, j) => {
      fresh[itemIndex] = answers[j] === true;
    });
    return fresh;
  }

  /**
   * write(), for links the held seen set has answered: the set is told when their rows
   * have committed (or could not be), and flushes only when every answer it gave has
   * (see SeenGate). If the commit fails, the set holds marks the store lacks: the gate stops.
   */
  private async writeAnswered<T>(fresh: boolean[] | null, work: (tx: Tx) => T): Promise<T> {
    const gate = this.gate;
    if (fresh === null || gate === null) return this.write(work);
    const anyNew = fresh.some((f) => f);
    let result: T;
    try {
      result = await this.write(work);
    } catch (err) {
      gate.failed(err, anyNew);
      throw err;
    }
    gate.committed(anyNew);
    return result;
  }

  /**
   * Runs `work` in the next group commit: every call made in this turn of the event loop
   * (a lease, another crawler's completion, releases waiting) shares one immediate
   * transaction, made from setImmediate, and each call resolves once it has committed.
   * A commit costs about as much as the pages it writes, and calls that land together
   * dirty many of the same pages (a host's queue, its row, the counts), so a group
   * writes them once. A call that throws rolls back only itself: the group is run
   * again, each call in its own transaction.
   */
  private write<T>(work: (tx: Tx) => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the frontier is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ work, resolve: resolve as (result: unknown) => void, reject });
      this.groupScheduled ??= setImmediate(() => this.commitQueued());
    });
  }

  /** Commits every call waiting, and the releases waiting, in one transaction. */
  private commitQueued(): void {
    if (this.groupScheduled !== null) clearImmediate(this.groupScheduled);
    this.groupScheduled = null;
    const calls = this.queued;
    this.queued = [];
    if (calls.length === 0 && this.releasing.size === 0) return;
    const releasing = this.releasing.take();
    let results: unknown[];
    try {
      results = this.transact(
        releasing,
        calls.map((c) => c.work),
      );
    } catch (err) {
      if (calls.length <= 1) {
        releasing.failed(err);
        calls[0]?.reject(err);
        return;
      }
      // One call's failure is its own: each call again, alone (the releases ride on the first).
      calls.forEach((c, i) => {
        const own = i === 0 ? releasing : NO_RELEASES;
        try {
          c.resolve((this.transact(own, [c.work]) as unknown[])[0]);
          own.done();
        } catch (e) {
          own.failed(e);
          c.reject(e);
        }
      });
      return;
    }
    releasing.done();
    if (releasing.releases.length > 0) this.waiters.notify();
    for (const [i, c] of calls.entries()) c.resolve(results[i]);
  }

  /** One immediate transaction (other processes wait): the releases, then each call's work in turn. */
  private transact(releasing: TakenReleases, works: readonly ((tx: Tx) => unknown)[]): unknown[] {
    const run = this.db.transaction(() => {
      const shared = {
        now: this.now(),
        hosts: new HostTable(this.hostSt, this.settings, this.settings.key === 'ip'),
        delta: { queued: 0, leased: 0, retrying: 0, done: 0, failed: 0, rejected: 0, stale: 0, expired: 0 },
      };
      const releaseTx: Tx = { ...shared, records: [] };
      for (const release of releasing.releases) this.applyRelease(release, releaseTx);
      const results = works.map((work) => work({ ...shared, records: [] }));
      shared.hosts.flush();
      const d = shared.delta;
      if (Object.values(d).some((v) => v !== 0)) {
        this.st.addTotals.run(
          d.queued,
          d.leased,
          d.retrying,
          d.done,
          d.failed,
          d.rejected,
          d.stale,
          d.expired,
        );
      }
      return results;
    });
    try {
      return run.immediate();
    } catch (err) {
      // What the caches remembered may not have been committed.
      this.recent.clear();
      this.heads?.clear();
      this.readDueTimes();
      throw err;
    }
  }

  /** The fetch is over: its host's budget learns from the report and frees the slot. */
  private applyRelease(r: Release, tx: Tx): void {
    const lease = this.leaseOf(r.leaseId, tx);
    if (lease === undefined || lease.released === 1) return;
    // Still counted in flight while the report is applied: a host moving to its address
    // takes this fetch along, and the report then frees its slot there.
    this.applyReport(lease.host, r.report, tx);
    if (lease.held === undefined) this.st.markReleased.run(lease.seq);
    else lease.held.released = true;
  }

  /**
   * The completions whose lease still holds, read in one snapshot: outside a transaction
   * each read takes a snapshot of its own, some 8 µs here against 2 within one.
   */
  private stillLeased(batch: readonly Completion[]): Completion[] {
    // Leases this process holds are known in memory: the file is read only for others.
    const held = this.held;
    const inMemory = (c: Completion) => {
      const { seq, gen } = splitLeaseId(c.leaseId);
      return held !== null && held.get(seq, gen) !== undefined;
    };
    if (batch.every(inMemory)) return [...batch];
    const read = this.db.transaction(() => batch.filter((c) => this.leaseOf(c.leaseId) !== undefined));
    return read.deferred();
  }

  /** The URL row a lease id names, if that lease still holds it (not expired and handed on). */
  private leaseOf(id: LeaseId, tx?: Tx): LeaseRow | undefined {
    const { seq, gen } = splitLeaseId(id);
    if (this.held !== null) {
      const held = this.held.get(seq, gen);
      if (held !== undefined) return heldRow(held);
    }
    // A store opened held may still have lease rows of a shared run before it.
    const row = this.st.leaseOf.get(seq) as (LeaseRow & { lease_gen: number }) | undefined;
    if (row !== undefined) return row.lease_gen % GENERATIONS === gen ? row : undefined;
    const earlier = this.earlierHoldersLease(seq, gen);
    return earlier === undefined || tx === undefined ? earlier : this.adopt(earlier, gen, tx);
  }

  /**
   * A lease handed out by a holder of the store that has since died (a server killed and
   * started again, its bunnies finishing what they had): its row is queued again and,
   * unless this holder has leased it since, the fetch is taken as if the lease had lived.
   * Its host's slot was freed when the store was opened (released).
   */
  private earlierHoldersLease(seq: number, gen: number): LeaseRow | undefined {
    if (this.held === null || !this.held.fromEarlierHolder(gen) || this.held.has(seq)) return undefined;
    const row = this.st.storedRow.get(seq) as { host: string; depth: number; state: number } | undefined;
    if (row?.state !== URL_STATE.queued) return undefined;
    return { seq, released: 1, host: row.host, depth: row.depth };
  }

  /**
   * An earlier holder's lease becomes this holder's, as if it had leased the row now:
   * counted leased, and passed over by lease calls. Its crawler is not known (0).
   */
  private adopt(earlier: LeaseRow, gen: number, tx: Tx): LeaseRow {
    const held: HeldLease = {
      seq: earlier.seq,
      gen,
      host: earlier.host,
      depth: earlier.depth,
      crawler: 0,
      expiresAt: leaseExpiry(tx.now, this.settings),
      released: true,
    };
    this.held?.hold(held);
    this.heads?.forget(earlier.host);
    tx.delta.queued--;
    tx.delta.leased++;
    const h = tx.hosts.host(earlier.host);
    // Its host's shallowest depth may be this URL's: the next lease call reads it again.
    h.queued = Math.max(0, h.queued - 1);
    tx.hosts.touch(h);
    return heldRow(held);
  }

  /** The lease is over: its URL is no longer counted leased. */
  private endLease(lease: LeaseRow, tx: Tx): void {
    if (lease.held !== undefined) this.held?.take(lease.held);
    tx.delta.leased--;
  }

  /** A held lease ran out (or its crawler is gone): given back as a lease row would be. */
  private reclaimHeld(lease: HeldLease, tx: Tx): void {
    this.giveBack(heldRow(lease), tx);
  }

  /** lease(): up to n URLs from ready hosts, shallowest first, within the crawl's budget. */
  private claim(n: number, crawler: CrawlerId, tx: Tx): LeaseBatch {
    // Heard from: at most once a second, a row write each lease would be waste.
    if (tx.now - (this.lastTouched.get(crawler) ?? 0) >= 1000) {
      this.st.touchCrawler.run(tx.now, crawler);
      this.lastTouched.set(crawler, tx.now);
    }
    if (isDue(this.rowLeaseDue, expiredThrough(tx.now))) {
      for (const seq of this.st.expiredLeases.all(expiredThrough(tx.now)) as number[])
        this.reclaimLease(seq, tx);
      if (this.held !== null) this.rowLeaseDue = this.st.nextExpiry.get() as number | null;
    }
    for (const lease of this.held?.expired(expiredThrough(tx.now)) ?? []) this.reclaimHeld(lease, tx);
    this.requeueDueRetries(tx);
    this.requeueComeDue(tx);
    // The queries below read the hosts table: let them see what came back to the queue.
    tx.hosts.flush();
    const before = this.totalsWith(tx.delta);
    const want = Math.min(n, pagesLeft(this.maxPages(), countsOf(before)));
    const leases: Lease[] = [];
    let depth = -1;
    while (leases.length < want) {
      const next = this.st.nextDepth.get(depth) as number | undefined;
      if (next === undefined || next >= this.passDepth) break;
      depth = next;
      const ready = this.st.readyAtDepth.all(depth, tx.now, want - leases.length) as string[];
      for (const host of ready) {
        if (leases.length >= want) break;
        this.claimFromHost(host, depth, want - leases.length, crawler, tx, leases);
      }
      // The next depth's query reads the hosts table: let it see this level's claims.
      tx.hosts.flush();
    }
    const after = this.totalsWith(tx.delta);
    const ended = crawlEnd(this.maxPages(), countsOf(after)) ?? this.passEnd(after, tx);
    return {
      leases,
      ended,
      nextReadyAt: ended !== null || want === 0 ? this.nextExpiryOrRetry() : this.nextReadyAt(),
    };
  }

  /** Leases up to `room` URLs of one host at `depth` (deeper ones wait for their level). */
  private claimFromHost(
    host: string,
    depth: number,
    room: number,
    crawler: CrawlerId,
    tx: Tx,
    out: Lease[],
  ): void {
    const h = tx.hosts.host(host);
    let b = tx.hosts.budget(h.budget);
    const placed = tx.hosts.placed(h.budget);
    const settings = settingsForHost(this.settings, host);
    if (h.retired || h.queued <= 0 || readyAt(b, settings, placed) > tx.now) return;
    const k = leasesThisTurn(b, settings, room, placed);
    if (k <= 0) return;
    const rows = this.headOf(host, k + 1);
    let n = 0;
    while (n < k && n < rows.length && (rows[n] as QueuedRow).depth <= depth) n++;
    const taken = rows.slice(0, n);
    const expiresAt = leaseExpiry(tx.now, this.settings);
    const startBy = startDeadline(b, settings, tx.now, placed);
    for (const r of taken) {
      const gen =
        this.held === null
          ? (this.st.leaseUrl.get(expiresAt, crawler, r.seq) as number)
          : this.held.add({ seq: r.seq, host, depth: r.depth, crawler, expiresAt });
      const id = leaseIdOf(r.seq, gen);
      b = afterLease(b, settings, tx.now, placed);
      const row = {
        ...r,
        kind: r.kind === URL_KIND.sitemap ? ('sitemap' as const) : ('page' as const),
        previous: previousOf(r),
      };
      out.push(leaseOf(id, row, host, expiresAt, { startBy, placed }));
    }
    tx.hosts.setBudget(h.budget, b);
    // The table is the truth: fewer rows than counted means the count was stale.
    h.queued = rows.length > n ? h.queued - n : 0;
    const head = rows[n];
    if (head !== undefined) h.minDepth = head.depth;
    tx.hosts.touch(h);
    tx.delta.queued -= taken.length;
    tx.delta.leased += taken.length;
    this.heads?.take(host, n);
  }

  /** At least `want` of the host's next queued rows that no lease holds, or all there are. */
  private headOf(host: string, want: number): readonly QueuedRow[] {
    const read = (limit: number): QueuedRow[] => {
      // A held lease's row is still queued in the file: it is read, and passed over.
      const held = this.held?.countOn(host) ?? 0;
      const rows = this.st.headOfHost.all(host, limit + held) as QueuedRow[];
      return held > 0 ? rows.filter((r) => !this.held?.has(r.seq)) : rows;
    };
    return this.heads === null ? read(want) : this.heads.rowsOf(host, want, read);
  }

  /** A lease ran out (or its crawler is gone): the URL is queued again, one try counted. */
  private reclaimLease(seq: number, tx: Tx): void {
    const lease = this.st.leaseOf.get(seq) as LeaseRow | undefined;
    if (lease !== undefined) this.giveBack(lease, tx);
  }

  /** A lease, with a row or held, ran out or lost its crawler: its slot back, one try counted. */
  private giveBack(lease: LeaseRow, tx: Tx): void {
    const h = tx.hosts.host(lease.host);
    if (lease.released === 0) tx.hosts.setBudget(h.budget, afterLostLease(tx.hosts.budget(h.budget)));
    this.endLease(lease, tx);
    tx.delta.expired++;
    // Nobody in particular will write the record of a URL failed here: the next completer adopts it.
    this.requeue1(lease.seq, lease.host, lease.depth, 1, null, tx);
  }

  /**
   * A URL goes back to the queue (after an expired lease, a retry, a deferral), with
   * `tries` more attempts counted. A host given up on takes no URL back: it is failed
   * as 'host-unreachable' and its record goes to `holder` (null: to the next completer).
   */
  private requeue1(
    seq: number,
    host: string,
    depth: number,
    tries: number,
    holder: CrawlerId | null,
    tx: Tx,
  ): void {
    const h = tx.hosts.host(host);
    if (h.retired) {
      this.st.retire.run(holder, seq);
      tx.delta.failed++;
      if (holder !== null) tx.records.push(this.recordOf(seq));
      return;
    }
    this.st.requeueAfterLease.run(tries, seq);
    this.heads?.forget(host);
    tx.hosts.queue(h, depth);
    tx.delta.queued++;
  }

  /** Records nobody was given (URLs failed while reclaiming a lease) go to this completer. */
  private adoptOrphans(crawler: CrawlerId, tx: Tx): void {
    for (const seq of this.st.orphans.all() as number[]) {
      this.st.setHolder.run(crawler, seq);
      tx.records.push(this.recordOf(seq));
    }
  }

  private recordOf(seq: number): PendingRecord {
    return this.st.recordById.get(seq) as PendingRecord;
  }

  /** At a crawler's start: leases and site claims of crawlers that died are given back now. */
  private reclaimFromGone(tx: Tx): void {
    for (const c of this.st.activeCrawlers.all() as (CrawlerLife & { id: number })[]) {
      if (!crawlerGone(c, tx.now, this.settings.leaseMs)) continue;
      for (const seq of this.st.leasesOf.all(c.id) as number[]) this.reclaimLease(seq, tx);
      for (const lease of this.held?.ofCrawler(c.id) ?? []) this.reclaimHeld(lease, tx);
      this.st.leaveCrawler.run(tx.now, c.id);
    }
  }

  private liveCrawlers(now: number): Set<number> {
    const live = new Set<number>();
    for (const c of this.st.activeCrawlers.all() as (CrawlerLife & { id: number })[]) {
      if (!crawlerGone(c, now, this.settings.leaseMs)) live.add(c.id);
    }
    return live;
  }

  /** One batch of the URLs due again (policy/recrawl.ts) back in the queue; how many. */
  private requeueDueBatch(afterMs: number, tx: Tx): number {
    const cutoff = recrawlCutoff(tx.now, afterMs);
    if (cutoff === null) return 0;
    const rows = this.dueAgainStatement().all(cutoff, RECRAWL_BATCH) as {
      seq: number;
      host: string;
      depth: number;
    }[];
    for (const r of rows) {
      this.st.requeueDone.run(r.seq);
      this.heads?.forget(r.host);
      tx.delta.done--;
      tx.hosts.queue(tx.hosts.host(r.host), r.depth);
      tx.delta.queued++;
    }
    return rows.length;
  }

  /**
   * --recrawl-after while the crawl runs: a lease call queues the URLs that came due
   * when dueLookNeeded says to look. Not within crawl passes, whose boundaries a URL
   * coming back at a depth already passed would move: those wait for the next run.
   */
  private requeueComeDue(tx: Tx): void {
    const afterMs = this.settings.recrawlAfterMs;
    if (afterMs === undefined || Number.isFinite(this.passDepth)) return;
    const counts = countsOf(this.totalsWith(tx.delta));
    if (!dueLookNeeded(afterMs, tx.now, this.nextDueLook, this.maxPages(), counts)) return;
    this.nextDueLook = tx.now + DUE_LOOK_MS;
    this.requeueDueBatch(afterMs, tx);
  }

  private requeueDueRetries(tx: Tx): void {
    if (!isDue(this.retryDue, tx.now)) return;
    for (const r of this.st.dueRetries.all(tx.now) as { seq: number; host: string; depth: number }[]) {
      tx.delta.retrying--;
      this.requeue1(r.seq, r.host, r.depth, 0, null, tx);
    }
    if (this.held !== null) this.retryDue = this.st.nextRetry.get() as number | null;
  }

  /** Writes a completed lease's outcome. */
  private settle(lease: LeaseRow, c: Completion, crawler: CrawlerId, tx: Tx): void {
    const o = c.outcome;
    switch (o.kind) {
      case 'done':
        this.st.markDone.run(
          crawler,
          c.hasForm === true ? 1 : 0,
          tx.now,
          ...validatorColumns(o.validators),
          lease.seq,
        );
        tx.delta.done++;
        return;
      case 'failed':
        this.st.markFinal.run(URL_STATE.failed, 1, o.error, crawler, lease.seq);
        tx.delta.failed++;
        return;
      case 'refused':
        this.st.markFinal.run(URL_STATE.rejected, 0, o.reason, crawler, lease.seq);
        tx.delta.rejected++;
        return;
      case 'retry':
        // A host given up on takes no retry: requeue1 fails the URL instead.
        if (tx.hosts.host(lease.host).retired) {
          this.requeue1(lease.seq, lease.host, lease.depth, 1, crawler, tx);
          return;
        }
        this.st.markRetrying.run(o.error, tx.now + o.afterMs, lease.seq);
        if (this.retryDue !== undefined)
          this.retryDue = Math.min(this.retryDue ?? Infinity, tx.now + o.afterMs);
        tx.delta.retrying++;
        return;
      case 'deferred':
        this.requeue1(lease.seq, lease.host, lease.depth, 0, crawler, tx);
        return;
    }
  }

  /** One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot. */
  private applyReport(host: string, report: FetchReport, tx: Tx): void {
    const h = tx.hosts.host(host);
    if (this.settings.key === 'ip' && report.address != null) this.moveToAddress(h, report.address, tx);
    const settings = settingsForHost(this.settings, host);
    tx.hosts.setBudget(h.budget, afterFetch(tx.hosts.budget(h.budget), report, settings, tx.now));
  }

  /**
   * --politeness-key ip: the host was found at `address`, so from now on it shares one
   * budget with every other host there. Its fetches in flight move along with it.
   */
  private moveToAddress(h: ReturnType<HostTable['host']>, address: string, tx: Tx): void {
    const key = addressBudget(address);
    if (h.budget === key) return;
    const inFlight = (this.st.leasedOfHost.get(h.host) as number) + (this.held?.inFlightOn(h.host) ?? 0);
    const from = tx.hosts.budget(h.budget);
    tx.hosts.setBudget(h.budget, { ...from, inFlight: Math.max(0, from.inFlight - inFlight) });
    const moving = { ...from, inFlight };
    tx.hosts.setBudget(key, mergeBudgets(tx.hosts.budget(key), moving));
    h.budget = key;
    tx.hosts.touch(h);
  }

  /**
   * A budget that failed to connect --retire-after times in a row is given up on: its
   * hosts' queued and retrying URLs are failed as 'host-unreachable' and handed back
   * to be recorded. URLs in flight finish on their own.
   */
  private retireIfDead(host: string, crawler: CrawlerId, tx: Tx): void {
    const h = tx.hosts.host(host);
    if (h.retired || !shouldRetire(tx.hosts.budget(h.budget).failures, this.settings)) return;
    for (const member of tx.hosts.membersOf(h.budget).concat(h.host)) {
      const m = tx.hosts.host(member);
      if (m.retired) continue;
      m.retired = true;
      m.queued = 0;
      this.heads?.forget(member);
      tx.hosts.touch(m);
      const rows = this.st.waitingOfHost.all(member) as (RejectedLink & { seq: number; state: number })[];
      for (const r of rows) {
        // A held lease's row is queued in the file, but leased: its completion settles it.
        if (this.held?.has(r.seq)) continue;
        this.st.retire.run(crawler, r.seq);
        if (r.state === URL_STATE.retrying) tx.delta.retrying--;
        else tx.delta.queued--;
        tx.delta.failed++;
        tx.records.push({ id: r.seq, url: r.url, depth: r.depth, via: r.via, reason: RETIRED_REASON });
      }
    }
  }

  /**
   * The seen check and the queue, in one transaction: links the seen set has not met
   * are queued (or refused by the store's own rules: a retired host, --max-pages-per-host)
   * and rejections are stored to be recorded once.
   */
  private insertLinks(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    crawler: CrawlerId,
    tx: Tx,
    answered?: readonly boolean[],
  ): number {
    const fresh = answered ?? this.freshOf([...links, ...rejected]);
    let added = 0;
    links.forEach((l, i) => {
      if (!fresh[i]) return;
      const host = hostKey(l.url);
      const h = tx.hosts.host(host);
      const refusal = h.retired
        ? RETIRED_REASON
        : hostBudgetRefusal(h.taken, settingsForHost(this.settings, host));
      if (refusal !== null) {
        this.storeRecord({ url: l.url, depth: l.depth, via: l.via, reason: refusal }, host, crawler, tx);
        return;
      }
      const kind = l.kind === 'sitemap' ? URL_KIND.sitemap : URL_KIND.page;
      const redirects = l.redirects ?? 0;
      const { lastInsertRowid } = this.st.insertQueued.run(l.url, host, l.depth, l.via, redirects, kind);
      this.heads?.appended(host, newRow(Number(lastInsertRowid), l, redirects, kind));
      h.taken++;
      tx.hosts.queue(h, l.depth);
      tx.delta.queued++;
      added++;
    });
    rejected.forEach((r, i) => {
      if (fresh[links.length + i]) this.storeRecord(r, hostKey(r.url), crawler, tx);
    });
    return added;
  }

  /**
   * Which of the URLs are new to the crawl (only a URL's first occurrence can be). The
   * recent-URL cache answers most of them without asking the seen set.
   */
  private freshOf(items: readonly { url: string }[]): boolean[] {
    const { fresh, ask, urls } = this.candidates(items);
    if (ask.length === 0) return fresh;
    // Another process took the seen set from the table while this handle was open (not
    // while it held it): its marks would go where nobody reads them.
    const kind = this.st.getMeta.get('seen') as string | undefined;
    if (kind !== undefined && kind !== TABLE_SEEN) {
      throw new SeenSetBusyError(
        `${this.file} is now crawled with the ${kind} seen set, held by another process; reach that crawl through its server`,
      );
    }
    const fps = new BigUint64Array(ask.length);
    urls.forEach((url, j) => {
      fps[j] = BigInt.asUintN(64, fingerprint(url));
    });
    const answers = this.seen.insertNewNow(fps);
    ask.forEach((itemIndex, j) => {
      fresh[itemIndex] = answers[j] === true;
    });
    return fresh;
  }

  /**
   * The URLs to ask the seen set about: each one's first occurrence, unless the
   * recent-URL cache knows it (all start as not new; the caller fills in the answers).
   */
  private candidates(items: readonly { url: string }[]): { fresh: boolean[]; ask: number[]; urls: string[] } {
    const fresh = new Array<boolean>(items.length).fill(false);
    const ask: number[] = [];
    const urls: string[] = [];
    items.forEach((item, i) => {
      // Remembered as it is asked about: a later copy in the same batch is known already.
      if (!this.recent.add(item.url)) return;
      ask.push(i);
      urls.push(item.url);
    });
    return { fresh, ask, urls };
  }

  /** A URL that will not be fetched, stored once, handed to the caller to write. */
  private storeRecord(r: RejectedLink, host: string, crawler: CrawlerId, tx: Tx): void {
    const failed = r.reason === RETIRED_REASON;
    const state = failed ? URL_STATE.failedUnlogged : URL_STATE.rejectedUnlogged;
    const id = Number(
      this.st.insertRecord.run(r.url, host, r.depth, r.via, state, r.reason, crawler).lastInsertRowid,
    );
    if (failed) tx.delta.failed++;
    else tx.delta.rejected++;
    tx.records.push({ id, url: r.url, depth: r.depth, via: r.via, reason: r.reason });
  }

  private nextReadyAt(): number | null {
    const host = this.st.nextHostReady.get() as number | null;
    const other = this.nextExpiryOrRetry();
    const candidates = [host === null || host >= NEVER ? null : host, other].filter(
      (t): t is number => t !== null,
    );
    return candidates.length === 0 ? null : Math.min(...candidates);
  }

  /** When a lease runs out or a retry comes due: the only news a store with nothing ready can have. */
  private nextExpiryOrRetry(): number | null {
    const times = [
      this.rowLeaseDue === undefined ? (this.st.nextExpiry.get() as number | null) : this.rowLeaseDue,
      this.retryDue === undefined ? (this.st.nextRetry.get() as number | null) : this.retryDue,
      this.held?.nextExpiry() ?? null,
    ];
    const known = times.filter((t): t is number => t !== null);
    return known.length === 0 ? null : Math.min(...known);
  }

  private maxPages(): number {
    // Held, the store is this process's: the budget is the one it wrote when it opened.
    if (this.held !== null) return this.settings.maxPages;
    const v = this.st.getMeta.get('max_pages') as string | undefined;
    return v === undefined ? Number.POSITIVE_INFINITY : Number(v);
  }

  private totals(): Delta {
    return this.st.totals.get() as Delta;
  }

  private totalsWith(d: Delta): Delta {
    const t = this.totals();
    return {
      queued: t.queued + d.queued,
      leased: t.leased + d.leased,
      retrying: t.retrying + d.retrying,
      done: t.done + d.done,
      failed: t.failed + d.failed,
      rejected: t.rejected + d.rejected,
      stale: t.stale + d.stale,
      expired: t.expired + d.expired,
    };
  }
}

interface LeaseRow {
  seq: number;
  released: number;
  host: string;
  depth: number;
  /** Set for a lease held in memory (no lease row in the file). */
  held?: HeldLease;
}

/** The row insertQueued wrote, as headOfHost would read it. */
function newRow(seq: number, l: NewLink, redirects: number, kind: number): QueuedRow {
  return {
    seq,
    url: l.url,
    depth: l.depth,
    via: l.via,
    redirects,
    kind,
    attempts: 0,
    fetched_at: null,
    etag: null,
    last_modified: null,
    captured_at: null,
  };
}

/** Whether something of the file's may be due by `at`: yes when the time is not known (undefined). */
function isDue(due: number | null | undefined, at: number): boolean {
  return due === undefined || (due !== null && due <= at);
}

/** A held lease as the code that handles lease rows sees it. */
function heldRow(held: HeldLease): LeaseRow {
  return { seq: held.seq, released: held.released ? 1 : 0, host: held.host, depth: held.depth, held };
}

/**
 * A lease id is the URL's row key and how many times the row has been leased: it names
 * one hand-out, so a completion of an earlier one (expired, handed on) matches nothing.
 */
const GENERATIONS = 2 ** 20;

/** The queue's counts from its rows: each host's queued URLs and shallowest depth, the totals. */
const RECOUNT_QUEUE = `
  UPDATE hosts SET
    queued = (SELECT count(*) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}),
    min_depth = coalesce(
      (SELECT min(depth) FROM urls u WHERE u.host = hosts.host AND u.state = ${URL_STATE.queued}), min_depth);
  UPDATE totals SET
    queued = (SELECT count(*) FROM urls WHERE state = ${URL_STATE.queued}),
    leased = (SELECT count(*) FROM urls WHERE state = ${URL_STATE.leased});
`;

/** The recent-URL cache's generation: twice a page analyzer's (two generations are kept). */
const RECENT_URLS_PER_GENERATION = 32_768;

function leaseIdOf(seq: number, gen: number): LeaseId {
  return seq * GENERATIONS + (gen % GENERATIONS);
}

function splitLeaseId(id: LeaseId): { seq: number; gen: number } {
  return { seq: Math.floor(id / GENERATIONS), gen: id % GENERATIONS };
}

function countsOf(t: Delta): CrawlCounts {
  return { queued: t.queued, leased: t.leased, retrying: t.retrying, final: t.done + t.failed };
}

/** The figures of a seen set that stats() reports (SeenStats): the kind, the size, and bloom's rates. */
function seenBlock(s: { kind: string; size: number; [k: string]: unknown }): SeenStats {
  const block: SeenStats = { kind: s.kind, size: s.size };
  for (const key of ['capacity', 'fpRate', 'bits', 'hashes', 'estimatedFpRate'] as const) {
    const v = s[key];
    if (typeof v === 'number') block[key] = v;
  }
  return block;
}

/** A connection to the store file, its schema created or checked (openSchema). */
function schemaConnection(file: string): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    openSchema(db, file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
