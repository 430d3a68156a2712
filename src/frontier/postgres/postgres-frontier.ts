import type { JsonObject } from '../../protocol/index.js';
import { longPoll, Waiters } from '../long-poll.js';
import { PendingReleases } from '../pending-releases.js';
import { crawlEnd, pagesLeft } from '../policy/crawl-budget.js';
import { leaseExpiry } from '../policy/lease-expiry.js';
import { NEVER } from '../policy/politeness.js';
import { DUE_LOOK_MS, dueLookNeeded, RECRAWL_BATCH } from '../policy/recrawl.js';
import { RecentUrls } from '../recent-urls.js';
import { crawlCountsOf, noCounts, plusCounts, statsOfCounts } from '../store-counts.js';
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
  HostView,
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
import { URL_STATE } from '../url-state.js';
import { claimLeases } from './claim.js';
import { applyReleases, completeBatch } from './completion.js';
import { cookiesOf, saveCookies } from './cookies.js';
import { addCounts, readCounts } from './counts.js';
import { openCrawl } from './crawl-row.js';
import { leaveCrawl, liveCrawlers, registerCrawler, touchCrawler } from './crawlers.js';
import { Database } from './database.js';
import { askRobotsOf, crawlSeedsOf, recordRobotsOf } from './host-decisions.js';
import { HostRows } from './host-rows.js';
import { LEASE_ID, rowIdsOf } from './lease-ids.js';
import { lookForLeases, nextExpiryOrRetry, nextReadyAt, readyHosts } from './lease-look.js';
import { candidatesOf, firstOfEach, queueHosts, stageLinks, unseen } from './link-inserts.js';
import { migrate } from './migrations.js';
import { Params } from './params.js';
import { sweepPending } from './pending-links.js';
import { requeueDueBatch } from './recrawl.js';
import { reclaimExpired, requeueDueRetries } from './requeue.js';
import { SharedRead } from './shared-read.js';
import { claimSite, recordSite, sitesOf } from './sites.js';
import { findStored, requeueStored } from './stored.js';
import type { Tx } from './tx.js';
import { writeInOneStatement } from './writes.js';

const S = URL_STATE;

/** How long a crawl loop gathers finished pages into one complete() call, and free slots into one lease(). */
const COMPLETE_GATHER_MS = 25;
const LEASE_GATHER_MS = 10;

/** Other processes' changes are not notified: a long poll looks again at least this often. */
const POLL_SLICE_MS = 200;

export interface PostgresOpenOptions {
  /** The crawl's name (--crawl): crawls in one database do not see each other. Default 'default'. */
  crawl?: string;
  now?: () => number;
  /** Take the settings the crawl already has (a bunny joining it); else this process's become the crawl's. */
  join?: boolean;
  /** The crawl's link rules and seeds, kept for processes that join it. */
  rules?: JsonObject;
  /** How long to wait at start for a server that is not up yet. Default 30 s. */
  connectWaitMs?: number;
  /** Said once when the server cannot be reached at start: that it is tried again, and how long. */
  onWait?: (line: string) => void;
  /** How long a call waits for a server that went away before it fails. Default 10 minutes. */
  outageMs?: number;
  poolSize?: number;
}

/**
 * The PostgreSQL frontier: many crawling processes on many machines share one
 * database, and each crawl (--crawl) is kept apart in it. Every call is one
 * transaction; a host's row lock is what keeps its politeness across processes, and
 * lease calls skip the hosts others hold (FOR UPDATE SKIP LOCKED). The policies are the
 * shared pieces in ../policy, as in the embedded store. docs/postgres.md has the schema
 * and the statements.
 */
export class PostgresFrontier implements LocalFrontier, FrontierHosts, FrontierCookies {
  /**
   * Every call is a transaction and its commit a WAL flush, the database's dearest work:
   * a crawl loop gathers finished pages a little longer than its own 5 ms, and free slots
   * a little longer than its 2 ms, so that a call carries more than one or two.
   */
  readonly gatherMs = { complete: COMPLETE_GATHER_MS, lease: LEASE_GATHER_MS };
  private readonly recent = new RecentUrls();
  private readonly waiters = new Waiters();
  // write() rejects the waiting releases with any error
  private readonly releasing = new PendingReleases(() => {
    if (!this.closed) this.write(async () => {}).catch(() => {});
  });
  private readonly lastTouched = new Map<CrawlerId, number>();
  private closed = false;
  private lastAdopted = 0;
  /** --recrawl-after: when this handle's lease calls next look for URLs come due (store clock). */
  private nextDueLook = 0;
  /** The consoles' host overviews, by how many busiest hosts they name. */
  private readonly overviews = new Map<number, SharedRead<HostOverview>>();

  private constructor(
    private readonly db: Database,
    /** crawls.id */
    readonly crawlId: number,
    readonly crawlName: string,
    readonly settings: FrontierSettings,
    /** The crawl's link rules and seeds as stored (null: none were given). */
    readonly rules: JsonObject | null,
    /** True when this process took the crawl's settings from the database. */
    readonly joined: boolean,
    private readonly now: () => number,
  ) {
    this.hostCount = new SharedRead(db, crawlId, 'host-count', async () => {
      const [h] = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM hosts WHERE crawl = $1 AND NOT shared',
        [crawlId],
      );
      return h?.n ?? 0;
    });
  }

  static async open(
    url: string,
    settings: FrontierSettings,
    options: PostgresOpenOptions = {},
  ): Promise<PostgresFrontier> {
    const db = new Database(url, {
      ...(options.outageMs === undefined ? {} : { outageMs: options.outageMs }),
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    });
    try {
      await db.check(options.connectWaitMs ?? 30_000, options.onWait);
      await migrate(db.raw);
      const now = options.now ?? Date.now;
      const name = options.crawl ?? 'default';
      const crawl = await openCrawl(db, name, settings, options.rules ?? null, options.join === true, now());
      return new PostgresFrontier(db, crawl.id, name, crawl.settings, crawl.rules, crawl.joined, now);
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    return this.write((tx) => registerCrawler(tx, name));
  }

  async add(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    crawler: CrawlerId,
  ): Promise<AddResult> {
    const fresh = links.filter((l) => !this.recent.has(l.url));
    const refused = rejected.filter((r) => !this.recent.has(r.url));
    const candidates = firstOfEach([candidatesOf(fresh, refused)]);
    const result = await this.write(async (tx) => {
      // Known ones dropped first: only the hosts of links that may be new are locked.
      const maybe = await unseen(tx, candidates);
      await tx.hosts.lock(queueHosts(maybe));
      const p = new Params();
      const staged = stageLinks(tx, await unseen(tx, maybe), crawler, p);
      await writeInOneStatement(tx, p, {}, staged);
      return { added: staged.added, records: tx.records };
    });
    this.remember([...fresh, ...refused]);
    if (result.added > 0) this.waiters.notify();
    return result;
  }

  async lease(n: number, crawler: CrawlerId, options: LeaseOptions = {}): Promise<LeaseBatch> {
    const attempt = () => this.write((tx) => this.claim(n, crawler, tx));
    const waitMs = options.waitMs ?? 0;
    return waitMs > 0 ? longPoll(attempt, waitMs, this.waiters, this.now, POLL_SLICE_MS) : attempt();
  }

  /** Releases ride on this process's next transaction, or on their own after 5 ms. */
  release(batch: readonly Release[]): Promise<void> {
    return this.releasing.add(batch);
  }

  /** Each lease still held runs out a lease time from now, by this store's clock. */
  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    if (leaseIds.length === 0) return [];
    const expiresAt = leaseExpiry(this.now(), this.settings);
    const rows = await this.db.query<{ lease_id: number }>(
      `UPDATE crawler_links SET lease_expires = $2
       WHERE id = ANY($1::int8[]) AND status = ${S.leased} AND ${LEASE_ID} = ANY($3::int8[])
       RETURNING ${LEASE_ID} AS lease_id`,
      [rowIdsOf(leaseIds), expiresAt, leaseIds],
    );
    const held = new Set(rows.map((r) => r.lease_id));
    return leaseIds.filter((id) => held.has(id)).map((id) => ({ id, expiresAt }));
  }

  async complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    // Links this process knows the store holds are not sent again.
    const trimmed = batch.map((c) => ({
      ...c,
      outlinks: c.outlinks.filter((l) => !this.recent.has(l.url)),
      rejected: c.rejected.filter((r) => !this.recent.has(r.url)),
    }));
    // Records nobody was given are rare (a lease of a retired host ran out): looked for once a second.
    const adopt = Date.now() - this.lastAdopted >= 1000;
    if (adopt) this.lastAdopted = Date.now();
    const links = trimmed.map((c) => candidatesOf(c.outlinks, c.rejected));
    const result = await this.write((tx) => completeBatch(tx, trimmed, links, crawler, adopt));
    const stale = new Set(result.stale);
    this.remember(
      trimmed.filter((c) => !stale.has(c.leaseId)).flatMap((c) => [...c.outlinks, ...c.rejected]),
    );
    this.waiters.notify();
    return result;
  }

  async acknowledge(ids: readonly RecordId[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE crawler_links SET status = CASE status WHEN ${S.failedUnlogged} THEN ${S.failed} ELSE ${S.rejected} END,
         holder = NULL WHERE crawl = $1 AND id = ANY($2::int8[]) AND status IN (${S.rejectedUnlogged}, ${S.failedUnlogged})`,
      [this.crawlId, ids],
    );
  }

  async reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]> {
    return this.write(async (tx) => {
      const live = await liveCrawlers(tx);
      const rows = await tx.q<PendingRecord & { holder: number | null }>(
        `SELECT id, url, depth, via, error AS reason, holder FROM crawler_links
         WHERE crawl = $1 AND status IN (${S.rejectedUnlogged}, ${S.failedUnlogged}) ORDER BY id FOR UPDATE`,
        [tx.crawl],
      );
      const mine: PendingRecord[] = [];
      for (const { holder, ...r } of rows) {
        if (holder !== null && holder !== crawler && live.has(holder)) continue;
        mine.push(r);
      }
      if (mine.length > 0) {
        await tx.q(`UPDATE crawler_links SET holder = $1 WHERE id = ANY($2::int8[])`, [
          crawler,
          mine.map((r) => r.id),
        ]);
      }
      return mine;
    });
  }

  async claimSite(origin: string, crawler: CrawlerId): Promise<boolean> {
    return this.write((tx) => claimSite(tx, origin, crawler));
  }

  async robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
    return this.write((tx) => askRobotsOf(tx, origin, crawler));
  }

  async recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
  ): Promise<StoredRobots | null> {
    return this.write((tx) => recordRobotsOf(tx, origin, entry, crawler));
  }

  async crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds> {
    return this.write((tx) => crawlSeedsOf(tx, add));
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.write((tx) => recordSite(tx, site));
  }

  async sites(): Promise<SiteFacts[]> {
    return sitesOf(this.db, this.crawlId);
  }

  async findStored(query: StoredQuery, after: RecordId, limit: number): Promise<StoredLink[]> {
    return findStored(this.db.query.bind(this.db) as Tx['q'], this.crawlId, query, after, limit);
  }

  async requeue(ids: readonly RecordId[], options: { asSeeds?: boolean } = {}): Promise<number> {
    const queued = await this.write((tx) => requeueStored(tx, ids, options));
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async requeueDue(afterMs: number): Promise<number> {
    let queued = 0;
    for (;;) {
      const n = await this.write((tx) => requeueDueBatch(tx, afterMs));
      queued += n;
      if (n < RECRAWL_BATCH) break;
    }
    if (queued > 0) this.waiters.notify();
    return queued;
  }

  async cookies(): Promise<StoredCookie[]> {
    return cookiesOf(this.db.query.bind(this.db) as Tx['q'], this.crawlId);
  }

  async saveCookies(changes: readonly StoredCookie[]): Promise<void> {
    if (changes.length > 0) await this.write((tx) => saveCookies(tx, changes));
  }

  async hostQueues(limit: number): Promise<{ host: string; queued: number }[]> {
    return this.db.query(
      `SELECT host, queued FROM hosts WHERE crawl = $1 AND queued > 0 ORDER BY queued DESC, host LIMIT $2`,
      [this.crawlId, limit],
    );
  }

  /** Hosts by state and the busiest ones (for the console), one read for all the crawl's processes (SharedRead). */
  hostOverview(limit: number): Promise<HostOverview> {
    let read = this.overviews.get(limit);
    if (read === undefined) {
      read = new SharedRead(this.db, this.crawlId, `hosts:${limit}`, () => this.readHostOverview(limit));
      this.overviews.set(limit, read);
    }
    return read.get();
  }

  /** A host's politeness state is on its budget's row. */
  private async readHostOverview(limit: number): Promise<HostOverview> {
    const join = `FROM hosts h JOIN hosts b ON b.crawl = h.crawl AND b.host = h.budget WHERE h.crawl = $1 AND NOT h.shared`;
    const [counts] = await this.db.query<{ active: number; waiting: number; retired: number }>(
      `SELECT count(*) FILTER (WHERE h.retired)::int AS retired,
              count(*) FILTER (WHERE NOT h.retired AND b.in_flight > 0)::int AS active,
              count(*) FILTER (WHERE NOT h.retired AND b.in_flight = 0 AND h.queued > 0)::int AS waiting
       ${join}`,
      [this.crawlId],
    );
    const rows = await this.db.query<{
      host: string;
      queued: number;
      ready_at: string;
      in_flight: number;
      gap_ms: number;
    }>(
      `SELECT h.host, h.queued, b.ready_at, b.in_flight, b.gap_ms
       ${join} AND NOT h.retired AND (h.queued > 0 OR b.in_flight > 0)
       ORDER BY b.in_flight DESC, h.queued DESC, h.host LIMIT $2`,
      [this.crawlId, limit],
    );
    const busiest: HostView[] = rows.map((r) => {
      const readyAt = Number(r.ready_at);
      return {
        host: r.host,
        queued: r.queued,
        inFlight: r.in_flight,
        readyAt: readyAt >= NEVER ? null : readyAt,
        gapMs: r.gap_ms,
      };
    });
    return {
      active: counts?.active ?? 0,
      waiting: counts?.waiting ?? 0,
      retired: counts?.retired ?? 0,
      busiest,
    };
  }

  async stats(): Promise<FrontierStats> {
    const q = this.db.query.bind(this.db) as Tx['q'];
    const [t, hosts, [crawl]] = await Promise.all([
      readCounts(q, this.crawlId),
      this.hostCount.get(),
      q<{ max_pages: number | null }>('SELECT max_pages FROM crawls WHERE id = $1', [this.crawlId]),
    ]);
    return statsOfCounts(t, hosts, crawl?.max_pages ?? Number.POSITIVE_INFINITY);
  }

  /**
   * The crawl's hosts, a count of every host row: 15 ms of the database at 10^5 hosts,
   * and stats() is asked every second by the console and by every scrape, in every
   * process. Counted again only once twenty times the last count's time has passed, by
   * one process for all (SharedRead).
   */
  private readonly hostCount: SharedRead<number>;

  async leave(crawler: CrawlerId): Promise<void> {
    await this.write((tx) => leaveCrawl(tx, crawler));
    this.waiters.notify();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.releasing.stop();
    if (this.releasing.size > 0) await this.write(async () => {}).catch(() => {});
    this.closed = true;
    this.waiters.notify();
    await this.db.close();
  }

  /**
   * lease(): up to n URLs from ready hosts, lowest rank first, within the crawl's budget.
   * Usually two statements: what to look at (lookForLeases: the backlog, the budget, the
   * ready hosts) and the claim with all it writes (claimLeases).
   */
  private async claim(n: number, crawler: CrawlerId, tx: Tx): Promise<LeaseBatch> {
    // Heard from: at most once a second, a row write each lease would be waste.
    if (tx.now - (this.lastTouched.get(crawler) ?? 0) >= 1000) {
      await touchCrawler(tx, crawler);
      this.lastTouched.set(crawler, tx.now);
    }
    // Links left pending for hosts nobody holds now are queued first, so their hosts can be leased.
    await sweepPending(tx);
    // The ready hosts are read from the table: releases this transaction applied go there first.
    await tx.hosts.flush();
    // With a page budget, lease calls take turns on the crawl's row, so two crawlers cannot
    // both spend the last pages; the counts are read after the lock (next statement), so
    // they include what the call before committed.
    if (Number.isFinite(this.settings.maxPages))
      await tx.q('SELECT 1 FROM crawls WHERE id = $1 FOR UPDATE', [tx.crawl]);
    const look = await lookForLeases(tx, n);
    let ready = look.ready;
    let requeued = false;
    if (look.backlog) {
      await reclaimExpired(tx);
      await requeueDueRetries(tx);
      requeued = true;
    }
    // --recrawl-after while the crawl runs: the URLs come due go back to the queue.
    const afterMs = this.settings.recrawlAfterMs;
    if (
      dueLookNeeded(
        afterMs,
        tx.now,
        this.nextDueLook,
        look.maxPages,
        crawlCountsOf(plusCounts(look.counts, tx.delta)),
      )
    ) {
      this.nextDueLook = tx.now + DUE_LOOK_MS;
      if ((await requeueDueBatch(tx, afterMs as number)) > 0) requeued = true;
    }
    if (requeued) {
      await tx.hosts.flush();
      ready = await readyHosts(tx, n);
    }
    const before = plusCounts(look.counts, tx.delta);
    const want = Math.min(n, pagesLeft(look.maxPages, crawlCountsOf(before)));
    const leases = want > 0 ? await claimLeases(tx, want, crawler, ready) : [];
    const after = {
      ...before,
      queued: before.queued - leases.length,
      leased: before.leased + leases.length,
    };
    const ended = crawlEnd(look.maxPages, crawlCountsOf(after));
    let next: number | null = null;
    if (ended !== null || want === 0) next = await nextExpiryOrRetry(tx);
    else if (leases.length < want) next = await nextReadyAt(tx);
    return { leases, ended, nextReadyAt: next };
  }

  private remember(links: readonly { url: string }[]): void {
    for (const l of links) this.recent.remember(l.url);
  }

  /** Runs `work` in one transaction with the releases waiting so far, then writes what it changed. */
  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the frontier is closed');
    const releasing = this.releasing.take();
    let result: T;
    try {
      result = await this.db.transaction(async (q) => {
        const tx: Tx = {
          q,
          crawl: this.crawlId,
          now: this.now(),
          settings: this.settings,
          hosts: new HostRows(q, this.crawlId, this.settings),
          delta: noCounts(),
          records: [],
        };
        await applyReleases(tx, releasing.releases);
        const out = await work(tx);
        await tx.hosts.flush();
        await addCounts(q, this.crawlId, tx.delta);
        return out;
      });
    } catch (err) {
      releasing.failed(err);
      throw err;
    }
    releasing.done();
    if (releasing.releases.length > 0) this.waiters.notify();
    return result;
  }
}
