import { MemorySeenSet } from '../../seen/memory.js';
import { fingerprints } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { leaseOf } from '../lease-of.js';
import { longPoll, Waiters } from '../long-poll.js';
import { type CrawlCounts, crawlEnd, pagesLeft } from '../policy/crawl-budget.js';
import { hostBudgetRefusal } from '../policy/host-budget.js';
import { settingsForHost } from '../policy/host-rules.js';
import { isExpired, leaseExpiry } from '../policy/lease-expiry.js';
import {
  afterFetch,
  afterLease,
  afterLostLease,
  leasesThisTurn,
  NEVER,
  readyAt,
  startDeadline,
} from '../policy/politeness.js';
import { DUE_LOOK_MS, dueLookNeeded, recrawlCutoff } from '../policy/recrawl.js';
import { RETIRED_REASON, shouldRetire } from '../policy/retirement.js';
import { robotsTimesOf } from '../policy/robots-reads.js';
import type {
  AddResult,
  CompleteResult,
  Completion,
  CrawlerId,
  CrawlSeeds,
  ExtendedLease,
  FetchReport,
  Frontier,
  FrontierSettings,
  FrontierStats,
  Lease,
  LeaseBatch,
  LeaseId,
  LeaseOptions,
  NewLink,
  PendingRecord,
  RecordId,
  RejectedLink,
  Release,
  RobotsAnswer,
  RobotsEntry,
  SiteFacts,
  StoredCookie,
  StoredRobots,
} from '../types.js';
import { MemoryHostDecisions } from './memory-decisions.js';
import { type MemoryHost, MemoryHosts } from './memory-hosts.js';
import { type HeldLease, recordOf, type UrlEntry } from './url-entry.js';

/** Every change is notified here, so a long poll needs no short slices; this is only a safety net. */
const POLL_SLICE_MS = 1000;

/**
 * The reference Frontier: the whole contract in memory, for one process, durable never.
 * It is what the contract says and nothing more (no group commit, no caches, no rows), so
 * it is the store to read to learn the contract, and the one the crawl loop's own tests
 * run on. Politeness, budgets, retirement, lease expiry and recrawling are the shared
 * pieces of ../policy, as in the SQLite and PostgreSQL stores. Each call runs alone, in
 * the order calls came (one chain of promises), as one store transaction would.
 */
export class MemoryFrontier implements Frontier {
  private readonly seen = MemorySeenSet.open();
  private readonly hosts: MemoryHosts;
  private readonly urls: UrlEntry[] = [];
  private readonly leases = new Map<LeaseId, HeldLease>();
  private readonly retrying = new Set<UrlEntry>();
  /** Records handed out and not acknowledged yet, by id. */
  private readonly unlogged = new Map<RecordId, UrlEntry>();
  /** Crawler ids and whether each has left. */
  private readonly crawlers = new Map<CrawlerId, { name: string; left: boolean }>();
  private readonly siteClaims = new Map<string, { claimedBy: CrawlerId | null; recorded: boolean }>();
  private readonly jar = new Map<string, string>();
  private readonly decisions = new MemoryHostDecisions();
  private readonly counts = { queued: 0, leased: 0, retrying: 0, done: 0, failed: 0, rejected: 0 };
  private staleCompletions = 0;
  private expiredLeases = 0;
  private nextLeaseId = 1;
  private nextDueLook = 0;
  private readonly waiters = new Waiters();
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly settings: FrontierSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.hosts = new MemoryHosts(settings);
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    return this.serial(() => {
      const id = this.crawlers.size + 1;
      this.crawlers.set(id, { name, left: false });
      return id;
    });
  }

  async add(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    crawler: CrawlerId,
  ): Promise<AddResult> {
    const result = await this.serial(async () => {
      const fresh = await this.freshOf([...links, ...rejected]);
      const records: PendingRecord[] = [];
      const added = this.insertLinks(links, rejected, fresh, crawler, records);
      return { added, records };
    });
    if (result.added > 0) this.waiters.notify();
    return result;
  }

  lease(n: number, crawler: CrawlerId, options: LeaseOptions = {}): Promise<LeaseBatch> {
    const attempt = () => this.serial(() => this.claim(n, crawler));
    const waitMs = options.waitMs ?? 0;
    return waitMs > 0 ? longPoll(attempt, waitMs, this.waiters, this.now, POLL_SLICE_MS) : attempt();
  }

  async release(batch: readonly Release[]): Promise<void> {
    await this.serial(() => {
      for (const r of batch) {
        const lease = this.leases.get(r.leaseId);
        if (lease === undefined || lease.released) continue;
        this.applyReport(lease.entry.host, r.report);
        lease.released = true;
      }
    });
    if (batch.length > 0) this.waiters.notify();
  }

  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    return this.serial(() => {
      const expiresAt = leaseExpiry(this.now(), this.settings);
      const held = leaseIds.filter((id) => this.leases.has(id));
      for (const id of held) (this.leases.get(id) as HeldLease).expiresAt = expiresAt;
      return held.map((id) => ({ id, expiresAt }));
    });
  }

  async complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    const result = await this.serial(async () => {
      // The seen set is asked for the links of completions that hold their lease: a
      // stale one's links are not taken (the caller adds them again if it wants them).
      const live = batch.filter((c) => this.leases.has(c.leaseId));
      const fresh = await this.freshOf(live.flatMap((c) => [...c.outlinks, ...c.rejected]));
      const answers = new Map<Completion, boolean[]>();
      let at = 0;
      for (const c of live) {
        const n = c.outlinks.length + c.rejected.length;
        answers.set(c, fresh.slice(at, at + n));
        at += n;
      }
      const records: PendingRecord[] = [];
      const stale: LeaseId[] = [];
      let added = 0;
      for (const c of batch) {
        const lease = this.leases.get(c.leaseId);
        const answered = answers.get(c);
        if (lease === undefined) {
          stale.push(c.leaseId);
          this.staleCompletions++;
          // The same lease twice in one batch: what the set marked must still be queued.
          if (answered !== undefined)
            added += this.insertLinks(c.outlinks, c.rejected, answered, crawler, records);
          continue;
        }
        const host = lease.entry.host;
        if (!lease.released) this.applyReport(host, c.report ?? { fetchMs: 0 });
        this.endLease(lease);
        this.settle(lease.entry, c, crawler, records);
        added += this.insertLinks(c.outlinks, c.rejected, answered ?? [], crawler, records);
        this.retireIfDead(this.hosts.host(host), crawler, records);
      }
      // Records nobody was given (a lease of a retired host ran out) go to this completer.
      for (const e of this.unlogged.values()) {
        if (e.holder !== null) continue;
        e.holder = crawler;
        records.push(recordOf(e));
      }
      return { added, records, stale };
    });
    this.waiters.notify();
    return result;
  }

  async acknowledge(ids: readonly RecordId[]): Promise<void> {
    await this.serial(() => {
      for (const id of ids) {
        const e = this.unlogged.get(id);
        if (e === undefined) continue;
        e.unlogged = false;
        e.holder = null;
        this.unlogged.delete(id);
      }
    });
  }

  async reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]> {
    return this.serial(() => {
      const mine = [...this.unlogged.values()]
        .filter((e) => e.holder === null || e.holder === crawler || !this.isLive(e.holder))
        .sort((a, b) => a.id - b.id);
      for (const e of mine) e.holder = crawler;
      return mine.map(recordOf);
    });
  }

  async claimSite(origin: string, crawler: CrawlerId): Promise<boolean> {
    return this.serial(() => {
      const site = this.siteClaims.get(origin);
      if (site === undefined) {
        this.siteClaims.set(origin, { claimedBy: crawler, recorded: false });
        return true;
      }
      if (site.recorded || site.claimedBy === crawler) return false;
      // Claimed by a crawler that left before its hooks finished: run them again, not never.
      if (site.claimedBy !== null && this.isLive(site.claimedBy)) return false;
      site.claimedBy = crawler;
      return true;
    });
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.serial(() => {
      const claimedBy = this.siteClaims.get(site.origin)?.claimedBy ?? null;
      this.siteClaims.set(site.origin, { claimedBy, recorded: true });
    });
  }

  async stats(): Promise<FrontierStats> {
    const c = this.counts;
    const max = this.settings.maxPages;
    return {
      ...c,
      hosts: this.hosts.size,
      staleCompletions: this.staleCompletions,
      expiredLeases: this.expiredLeases,
      budgetLeft: Number.isFinite(max) ? pagesLeft(max, this.crawlCounts()) : null,
      seen: { kind: 'memory', size: this.seen.size },
    };
  }

  async leave(crawler: CrawlerId): Promise<void> {
    await this.serial(() => {
      for (const lease of [...this.leases.values()]) if (lease.crawler === crawler) this.giveBack(lease);
      const c = this.crawlers.get(crawler);
      if (c !== undefined) c.left = true;
    });
    this.waiters.notify();
  }

  async cookies(): Promise<StoredCookie[]> {
    return this.serial(() => [...this.jar].map(([key, value]) => ({ key, value })));
  }

  async saveCookies(changes: readonly StoredCookie[]): Promise<void> {
    await this.serial(() => {
      for (const c of changes) {
        if (c.value === null) this.jar.delete(c.key);
        else this.jar.set(c.key, c.value);
      }
    });
  }

  async robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
    return this.serial(() =>
      this.decisions.robots(origin, crawler, this.now(), this.settings.leaseMs, (c) => this.isLive(c)),
    );
  }

  async recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
  ): Promise<StoredRobots | null> {
    const times = robotsTimesOf(this.settings);
    return this.serial(() => this.decisions.recordRobots(origin, entry, crawler, this.now(), times));
  }

  async crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds> {
    return this.serial(() => this.decisions.crawlSeeds(add));
  }

  /** Everything is forgotten: nothing of a memory store outlives it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiters.notify();
    // Calls made before close() finish first; later ones are refused (serial()).
    await this.tail;
    await this.seen.close();
  }

  /** Runs `work` after every call made before it, alone: the store's transaction. */
  private serial<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the frontier is closed'));
    const run = this.tail.then(work);
    this.tail = run.catch(() => {});
    return run;
  }

  private isLive(crawler: CrawlerId): boolean {
    return this.crawlers.get(crawler)?.left === false;
  }

  /** Which of the links are new to the crawl; the seen set marks them as it answers. */
  private async freshOf(links: readonly { url: string }[]): Promise<boolean[]> {
    if (links.length === 0) return [];
    return this.seen.insertNew(fingerprints(links.map((l) => l.url)));
  }

  /** lease(): up to n URLs from ready hosts, shallowest first, within the crawl's budget. */
  private claim(n: number, crawler: CrawlerId): LeaseBatch {
    const now = this.now();
    for (const lease of [...this.leases.values()]) if (isExpired(lease.expiresAt, now)) this.giveBack(lease);
    for (const e of [...this.retrying]) {
      if (e.retryAt > now) continue;
      this.retrying.delete(e);
      this.counts.retrying--;
      this.backToQueue(e, 0, null, []);
    }
    this.requeueComeDue(now);
    const want = Math.min(n, pagesLeft(this.settings.maxPages, this.crawlCounts()));
    const leases: Lease[] = [];
    // Breadth-first: each rank in turn (policy/queue-rank.ts: depth, requisites after
    // every page), its ready hosts in the order they became ready.
    for (let rank = this.nextRank(-1); rank !== undefined && leases.length < want; ) {
      const atRank = [...this.hosts.all()].filter((h) => !h.retired && h.minRank === rank);
      const ready = atRank.filter((h) => this.hosts.readyAt(h) <= now);
      ready.sort((a, b) => this.hosts.readyAt(a) - this.hosts.readyAt(b));
      for (const h of ready) {
        if (leases.length >= want) break;
        this.claimFromHost(h, rank, want - leases.length, crawler, now, leases);
      }
      rank = this.nextRank(rank);
    }
    const ended = crawlEnd(this.settings.maxPages, this.crawlCounts());
    const nextReadyAt = ended !== null || want === 0 ? this.nextExpiryOrRetry() : this.nextReadyAt();
    return { leases, ended, nextReadyAt };
  }

  /** Leases up to `room` URLs of one host at `rank`, as its budget allows this turn. */
  private claimFromHost(
    h: MemoryHost,
    rank: number,
    room: number,
    crawler: CrawlerId,
    now: number,
    out: Lease[],
  ) {
    const settings = settingsForHost(this.settings, h.host);
    const placed = this.hosts.placed(h);
    let b = this.hosts.budget(h.budget);
    // Read again: an earlier host of this turn may share the budget (--politeness-key ip).
    if (readyAt(b, settings, placed) > now) return;
    const k = leasesThisTurn(b, settings, room, placed);
    const startBy = startDeadline(b, settings, now, placed);
    const expiresAt = leaseExpiry(now, this.settings);
    for (let taken = 0; taken < k && (h.minRank ?? Number.POSITIVE_INFINITY) <= rank; taken++) {
      const entry = h.queue.shift() as UrlEntry;
      entry.state = 'leased';
      const id = this.nextLeaseId++;
      this.leases.set(id, { id, entry, crawler, expiresAt, released: false });
      this.counts.queued--;
      this.counts.leased++;
      b = afterLease(b, settings, now, placed);
      out.push(leaseOf(id, entry, h.host, expiresAt, { startBy, placed }));
    }
    this.hosts.setBudget(h.budget, b);
  }

  /** The lowest rank above `than` that some host's queue starts with. */
  private nextRank(than: number): number | undefined {
    let next: number | undefined;
    for (const h of this.hosts.all()) {
      const d = h.minRank;
      if (!h.retired && d !== undefined && d > than && (next === undefined || d < next)) next = d;
    }
    return next;
  }

  /** When some host may be leased, or a lease runs out, or a retry comes due. */
  private nextReadyAt(): number | null {
    const times = [...this.hosts.all()]
      .filter((h) => !h.retired && h.queue.length > 0)
      .map((h) => this.hosts.readyAt(h))
      .filter((t) => t < NEVER);
    const other = this.nextExpiryOrRetry();
    if (other !== null) times.push(other);
    return times.length === 0 ? null : Math.min(...times);
  }

  /** The only news a store with nothing ready can have: a lease running out, a retry due. */
  private nextExpiryOrRetry(): number | null {
    const times = [...this.leases.values()].map((l) => l.expiresAt);
    for (const e of this.retrying) times.push(e.retryAt);
    return times.length === 0 ? null : Math.min(...times);
  }

  private crawlCounts(): CrawlCounts {
    const c = this.counts;
    return { queued: c.queued, leased: c.leased, retrying: c.retrying, final: c.done + c.failed };
  }

  /** One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot. */
  private applyReport(host: string, report: FetchReport): void {
    const h = this.hosts.host(host);
    if (report.address != null) {
      // Still counted in flight here: the fetches move along, and the report frees one there.
      let inFlight = 0;
      for (const l of this.leases.values()) if (l.entry.host === host && !l.released) inFlight++;
      this.hosts.moveToAddress(h, report.address, inFlight);
    }
    const settings = settingsForHost(this.settings, host);
    this.hosts.setBudget(h.budget, afterFetch(this.hosts.budget(h.budget), report, settings, this.now()));
  }

  private endLease(lease: HeldLease): void {
    this.leases.delete(lease.id);
    this.counts.leased--;
  }

  /** A lease ran out, or its crawler left: its slot back, its URL queued with one try counted. */
  private giveBack(lease: HeldLease): void {
    const h = this.hosts.host(lease.entry.host);
    if (!lease.released) this.hosts.setBudget(h.budget, afterLostLease(this.hosts.budget(h.budget)));
    this.endLease(lease);
    this.expiredLeases++;
    // Nobody in particular will write the record of a URL failed here: the next completer adopts it.
    this.backToQueue(lease.entry, 1, null, []);
  }

  /**
   * A URL goes back to the queue with `tries` more attempts counted; a host given up on
   * takes none back: the URL fails as 'host-unreachable', its record for `holder`.
   */
  private backToQueue(e: UrlEntry, tries: number, holder: CrawlerId | null, records: PendingRecord[]): void {
    const h = this.hosts.host(e.host);
    if (h.retired) {
      this.toRecord(e, 'failed', RETIRED_REASON, holder);
      if (holder !== null) records.push(recordOf(e));
      return;
    }
    e.attempts += tries;
    e.state = 'queued';
    h.enqueue(e);
    this.counts.queued++;
  }

  /** A completed lease's outcome. */
  private settle(e: UrlEntry, c: Completion, crawler: CrawlerId, records: PendingRecord[]): void {
    const o = c.outcome;
    const now = this.now();
    switch (o.kind) {
      case 'done': {
        const v = o.validators;
        e.state = 'done';
        e.attempts++;
        e.reason = null;
        e.previous = {
          fetchedAt: now,
          ...(v?.etag === undefined ? {} : { etag: v.etag }),
          ...(v?.lastModified === undefined ? {} : { lastModified: v.lastModified }),
          ...(v?.capturedAt === undefined ? {} : { capturedAt: v.capturedAt }),
        };
        this.counts.done++;
        return;
      }
      case 'failed':
        e.state = 'failed';
        e.attempts++;
        e.reason = o.error;
        this.counts.failed++;
        return;
      case 'refused':
        e.state = 'refused';
        e.reason = o.reason;
        this.counts.rejected++;
        return;
      case 'retry':
        if (this.hosts.host(e.host).retired) {
          this.backToQueue(e, 1, crawler, records);
          return;
        }
        e.state = 'retrying';
        e.attempts++;
        e.reason = o.error;
        e.retryAt = now + o.afterMs;
        this.retrying.add(e);
        this.counts.retrying++;
        return;
      case 'deferred':
        this.backToQueue(e, 0, crawler, records);
        return;
    }
  }

  /**
   * A budget that failed to connect --retire-after times in a row is given up on: its
   * hosts' queued and retrying URLs fail as 'host-unreachable', handed back to be recorded.
   */
  private retireIfDead(h: MemoryHost, crawler: CrawlerId, records: PendingRecord[]): void {
    if (h.retired || !shouldRetire(this.hosts.budget(h.budget).failures, this.settings)) return;
    for (const m of this.hosts.sharing(h)) {
      if (m.retired) continue;
      m.retired = true;
      const waiting = [...m.queue.splice(0), ...[...this.retrying].filter((e) => e.host === m.host)];
      for (const e of waiting.sort((a, b) => a.id - b.id)) {
        if (e.state === 'retrying') {
          this.retrying.delete(e);
          this.counts.retrying--;
        } else this.counts.queued--;
        this.toRecord(e, 'failed', RETIRED_REASON, crawler);
        records.push(recordOf(e));
      }
    }
  }

  /**
   * The links the seen set answered new are queued, unless the store's own rules refuse
   * them (a retired host, --max-pages-per-host); new rejections are kept to be recorded.
   */
  private insertLinks(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    fresh: readonly boolean[],
    crawler: CrawlerId,
    records: PendingRecord[],
  ): number {
    let added = 0;
    links.forEach((l, i) => {
      if (fresh[i] !== true) return;
      const h = this.hosts.host(hostKey(l.url));
      const refusal = h.retired
        ? RETIRED_REASON
        : hostBudgetRefusal(h.taken, settingsForHost(this.settings, h.host));
      const e = this.entryOf(l, h.host);
      if (refusal !== null) {
        this.toRecord(e, refusal === RETIRED_REASON ? 'failed' : 'refused', refusal, crawler);
        records.push(recordOf(e));
        return;
      }
      h.taken++;
      h.enqueue(e);
      this.counts.queued++;
      added++;
    });
    rejected.forEach((r, i) => {
      if (fresh[links.length + i] !== true) return;
      const e = this.entryOf(r, hostKey(r.url));
      this.toRecord(e, 'refused', r.reason, crawler);
      records.push(recordOf(e));
    });
    return added;
  }

  private entryOf(l: NewLink | RejectedLink, host: string): UrlEntry {
    const link = l as NewLink;
    const e: UrlEntry = {
      id: this.urls.length + 1,
      url: l.url,
      host,
      depth: l.depth,
      via: l.via,
      redirects: link.redirects ?? 0,
      kind: link.kind ?? 'page',
      state: 'queued',
      attempts: 0,
      reason: null,
      unlogged: false,
      holder: null,
      retryAt: 0,
    };
    this.urls.push(e);
    return e;
  }

  /** A URL that will not be fetched: final, with a record to write for `holder`. */
  private toRecord(e: UrlEntry, state: 'failed' | 'refused', reason: string, holder: CrawlerId | null): void {
    e.state = state;
    e.reason = reason;
    e.unlogged = true;
    e.holder = holder;
    this.unlogged.set(e.id, e);
    if (state === 'failed') this.counts.failed++;
    else this.counts.rejected++;
  }

  /** --recrawl-after while the crawl runs: a lease call queues the URLs come due (policy/recrawl.ts). */
  private requeueComeDue(now: number): void {
    const afterMs = this.settings.recrawlAfterMs;
    if (!dueLookNeeded(afterMs, now, this.nextDueLook, this.settings.maxPages, this.crawlCounts())) return;
    this.nextDueLook = now + DUE_LOOK_MS;
    const cutoff = recrawlCutoff(now, afterMs as number);
    if (cutoff === null) return;
    for (const e of this.urls) {
      const h = this.hosts.host(e.host);
      if (e.state !== 'done' || h.retired || (e.previous?.fetchedAt ?? Number.POSITIVE_INFINITY) > cutoff)
        continue;
      e.state = 'queued';
      e.attempts = 0;
      h.enqueue(e);
      this.counts.done--;
      this.counts.queued++;
    }
  }
}
