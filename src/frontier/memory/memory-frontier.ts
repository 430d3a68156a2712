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
  FrontierAdmin,
  FrontierHosts,
  FrontierSettings,
  FrontierStats,
  HostOverview,
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
  StoredLink,
  StoredQuery,
  StoredRobots,
} from '../types.js';
import type {
  CrawlerEntry,
  KeptState,
  SiteClaim,
  StoreChanges,
  StoreCounters,
  UrlsOnDisk,
} from './changes.js';
import { MemoryHostDecisions } from './memory-decisions.js';
import { type MemoryHost, MemoryHosts } from './memory-hosts.js';
import { MinHeap } from './min-heap.js';
import { type HeldLease, idOfKey, isFinal, keyOf, rankOf, recordOf, type UrlEntry } from './url-entry.js';

/** Every change is notified here, so a long poll needs no short slices; this is only a safety net. */
const POLL_SLICE_MS = 1000;

/**
 * A host's queued URLs that stay in memory when the store keeps the rest on disk: none.
 * Each URL that went to disk is read back once, whether ahead of its lease or at it (a
 * line from the page cache and its JSON, some µs), and the heads of 10^5 hosts would be
 * the most of the engine's memory.
 */
export const HEAD_IN_MEMORY = 0;

/** A lease in the expiry index; stale once the lease ended or was extended. */
interface ExpirySlot {
  lease: HeldLease;
  expiresAt: number;
}

/** A URL in the retry index; stale once it left the retrying state or got another time. */
interface RetrySlot {
  entry: UrlEntry;
  retryAt: number;
}

/**
 * The in-memory Frontier: the whole contract in the memory of one process. Alone it is
 * the reference store, durable never: what the contract says and nothing more (no
 * group commit, no rows), the store to read to learn the contract and the one the crawl
 * loop's own tests run on. Given a StoreChanges it tells every change it makes, and the
 * workbench store (../workbench) journals them: the same engine, durable. What it must
 * find the least of on each lease call (the next ready host, lease to run out, retry
 * due) sits in heaps, so a call costs what it hands out, not the size of the crawl.
 * Politeness, budgets, retirement, lease expiry and recrawling are the shared pieces of
 * ../policy, as in the SQLite and PostgreSQL stores. Each call runs alone, in the order
 * calls came (one chain of promises), as one store transaction would.
 */
export class MemoryFrontier implements Frontier, FrontierAdmin, FrontierHosts {
  private readonly seen = MemorySeenSet.open();
  private readonly hosts: MemoryHosts;
  /** The URLs it holds, by id: all of them, but those a store keeps on disk (UrlsOnDisk). */
  private live = new Map<RecordId, UrlEntry>();
  /** The highest URL id given. */
  private lastId = 0;
  private readonly leases = new Map<LeaseId, HeldLease>();
  private readonly expiries = new MinHeap<ExpirySlot>((a, b) => a.expiresAt < b.expiresAt);
  private readonly retrying = new Set<UrlEntry>();
  private readonly retries = new MinHeap<RetrySlot>((a, b) => a.retryAt < b.retryAt);
  /** Records handed out and not acknowledged yet, by id. */
  private readonly unlogged = new Map<RecordId, UrlEntry>();
  /** Crawler ids and whether each has left. */
  private readonly crawlers = new Map<CrawlerId, CrawlerEntry>();
  private readonly siteClaims = new Map<string, SiteClaim>();
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
    /** Told of every change (the workbench store's journal); none: nothing is kept. */
    private readonly changes: StoreChanges | null = null,
    /** Where the store keeps URLs out of memory (the workbench store's URL files). */
    private readonly disk: UrlsOnDisk | null = null,
  ) {
    this.hosts = new MemoryHosts(settings, changes === null ? undefined : (k, b) => changes.budget(k, b));
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    return this.serial(() => {
      const id = this.crawlers.size + 1;
      const c = { name, left: false };
      this.crawlers.set(id, c);
      this.changes?.crawler(id, c);
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
        this.changes?.lease(lease);
      }
    });
    if (batch.length > 0) this.waiters.notify();
  }

  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    return this.serial(() => {
      const expiresAt = leaseExpiry(this.now(), this.settings);
      const held = leaseIds.filter((id) => this.leases.has(id));
      for (const id of held) {
        const lease = this.leases.get(id) as HeldLease;
        lease.expiresAt = expiresAt;
        this.expiries.push({ lease, expiresAt });
        this.changes?.lease(lease);
      }
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
        this.changes?.entry(e);
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
        this.changes?.entry(e);
      }
    });
  }

  async reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]> {
    return this.serial(() => {
      const mine = [...this.unlogged.values()]
        .filter((e) => e.holder === null || e.holder === crawler || !this.isLive(e.holder))
        .sort((a, b) => a.id - b.id);
      for (const e of mine) {
        e.holder = crawler;
        this.changes?.entry(e);
      }
      return mine.map(recordOf);
    });
  }

  async claimSite(origin: string, crawler: CrawlerId): Promise<boolean> {
    return this.serial(() => {
      const site = this.siteClaims.get(origin);
      if (site === undefined) {
        this.setSite(origin, { claimedBy: crawler, recorded: false, facts: null });
        return true;
      }
      if (site.recorded || site.claimedBy === crawler) return false;
      // Claimed by a crawler that left before its hooks finished: run them again, not never.
      if (site.claimedBy !== null && this.isLive(site.claimedBy)) return false;
      this.setSite(origin, { ...site, claimedBy: crawler });
      return true;
    });
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.serial(() => {
      const claimedBy = this.siteClaims.get(site.origin)?.claimedBy ?? null;
      this.setSite(site.origin, { claimedBy, recorded: true, facts: site });
    });
  }

  async sites(): Promise<SiteFacts[]> {
    return this.serial(() => {
      const out: SiteFacts[] = [];
      for (const s of this.siteClaims.values()) if (s.facts !== null) out.push(s.facts);
      return out;
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

  async findStored(query: StoredQuery, after: RecordId, limit: number): Promise<StoredLink[]> {
    return this.serial(() => {
      const among = query.among === undefined ? null : new Set(query.among);
      if (among?.size === 0) return [];
      const reasons = new Set(query.refusedFor ?? []);
      const stateWanted = (state: UrlEntry['state']) =>
        (state === 'refused' && (query.refused === true || reasons.size > 0)) ||
        (state === 'failed' && query.failed === true) ||
        (state === 'done' && query.done === true);
      const wanted = (e: UrlEntry) =>
        stateWanted(e.state) &&
        (e.state !== 'refused' || query.refused === true || reasons.has(e.reason ?? '')) &&
        (among === null || among.has(e.url));
      const found: UrlEntry[] = [];
      if (among !== null && this.disk !== null) {
        // By URL: the files are read through once, not a URL at a time.
        for (const e of this.live.values()) if (e.id > after && wanted(e)) found.push(e);
        this.disk.each((e) => {
          if (e.id > after && wanted(e)) found.push(e);
        });
        found.sort((a, b) => a.id - b.id);
      } else {
        for (let id = Math.max(0, after) + 1; id <= this.lastId && found.length < limit; id++) {
          let e = this.live.get(id);
          if (e === undefined) {
            const state = this.disk?.stateOf(id) ?? null;
            if (state === null || !stateWanted(state)) continue;
            e = (this.disk as UrlsOnDisk).read(id);
          }
          if (wanted(e)) found.push(e);
        }
      }
      return found.slice(0, limit).map((e) => ({
        id: e.id,
        url: e.url,
        depth: e.depth,
        via: e.via,
        state: e.state as StoredLink['state'],
        reason: e.reason,
      }));
    });
  }

  async requeue(ids: readonly RecordId[], options: { asSeeds?: boolean } = {}): Promise<number> {
    const n = await this.serial(() => {
      let queued = 0;
      for (const id of ids) {
        const kept = this.disk?.stateOf(id) ?? null;
        const e = kept === 'failed' || kept === 'refused' ? this.backFromFinals(id) : this.live.get(id);
        if (e === undefined || (e.state !== 'failed' && e.state !== 'refused')) continue;
        if (e.state === 'failed') this.counts.failed--;
        else this.counts.rejected--;
        if (e.unlogged) this.unlogged.delete(e.id);
        const h = this.hosts.host(e.host);
        if (h.retired) {
          // Asked for again on purpose: the host gets a fresh start.
          h.retired = false;
          this.changes?.host(h);
          this.hosts.setBudget(h.budget, { ...this.hosts.budget(h.budget), failures: 0 });
        }
        if (options.asSeeds === true) {
          e.depth = 0;
          e.via = null;
        }
        e.attempts = 0;
        e.reason = null;
        e.unlogged = false;
        e.holder = null;
        this.backToQueue(e, 0, null, []);
        queued++;
      }
      return queued;
    });
    if (n > 0) this.waiters.notify();
    return n;
  }

  async hostQueues(limit: number): Promise<{ host: string; queued: number }[]> {
    return this.serial(() =>
      [...this.hosts.all()]
        .filter((h) => h.queued > 0)
        .sort((a, b) => b.queued - a.queued || (a.host < b.host ? -1 : 1))
        .slice(0, limit)
        .map((h) => ({ host: h.host, queued: h.queued })),
    );
  }

  async hostOverview(limit: number): Promise<HostOverview> {
    return this.serial(() => {
      let active = 0;
      let waiting = 0;
      let retired = 0;
      const views = [];
      for (const h of this.hosts.all()) {
        const b = this.hosts.budget(h.budget);
        if (h.retired) retired++;
        else if (b.inFlight > 0) active++;
        else if (h.queued > 0) waiting++;
        if (h.retired || (b.inFlight === 0 && h.queued === 0)) continue;
        const at = this.hosts.readyAt(h);
        views.push({
          host: h.host,
          queued: h.queued,
          inFlight: b.inFlight,
          readyAt: at === NEVER ? null : at,
          gapMs: b.gapMs,
        });
      }
      views.sort((a, b) => b.inFlight - a.inFlight || b.queued - a.queued);
      return { active, waiting, retired, busiest: views.slice(0, limit) };
    });
  }

  async requeueDue(afterMs: number): Promise<number> {
    const n = await this.serial(() => this.queueDue(recrawlCutoff(this.now(), afterMs)));
    if (n > 0) this.waiters.notify();
    return n;
  }

  async leave(crawler: CrawlerId): Promise<void> {
    await this.serial(() => {
      for (const lease of [...this.leases.values()]) if (lease.crawler === crawler) this.giveBack(lease);
      const c = this.crawlers.get(crawler);
      if (c !== undefined) {
        c.left = true;
        this.changes?.crawler(crawler, c);
      }
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
        this.changes?.cookie(c.key, c.value);
      }
    });
  }

  async robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
    return this.serial(() => {
      const answer = this.decisions.robots(origin, crawler, this.now(), this.settings.leaseMs, (c) =>
        this.isLive(c),
      );
      this.robotsChanged(origin);
      return answer;
    });
  }

  async recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
  ): Promise<StoredRobots | null> {
    const times = robotsTimesOf(this.settings);
    return this.serial(() => {
      const kept = this.decisions.recordRobots(origin, entry, crawler, this.now(), times);
      this.robotsChanged(origin);
      return kept;
    });
  }

  async crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds> {
    return this.serial(() => {
      const all = this.decisions.crawlSeeds(add);
      if (add.origins.length > 0 || add.addresses.length > 0) this.changes?.seeds(all);
      return all;
    });
  }

  /** Everything is forgotten, unless a StoreChanges kept it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiters.notify();
    // Calls made before close() finish first; later ones are refused (serial()).
    await this.tail.catch(() => {});
    await this.seen.close();
  }

  /**
   * Starts from what a store kept (the workbench store's snapshot and journal), before
   * any call: the URLs, hosts, budgets, leases and decisions, and the seen set and
   * indexes made again from them.
   */
  async restore(kept: KeptState): Promise<void> {
    await this.serial(async () => {
      for (const e of kept.entries) this.live.set(e.id, e);
      this.lastId = kept.lastId;
      for (const h of kept.hosts) {
        const host = this.hosts.host(h.host);
        host.taken = h.taken;
        host.retired = h.retired;
        this.hosts.assignBudget(host, h.budget);
      }
      for (const [key, b] of kept.budgets) this.hosts.restoreBudget(key, b);
      for (const [id, c] of kept.crawlers) this.crawlers.set(id, c);
      for (const [origin, s] of kept.sites) this.siteClaims.set(origin, s);
      for (const [k, v] of kept.cookies) this.jar.set(k, v);
      for (const [origin, row] of kept.robots) this.decisions.restoreRobots(origin, row);
      this.decisions.crawlSeeds(kept.seeds);
      const c = kept.counters;
      this.nextLeaseId = c.nextLeaseId;
      this.staleCompletions = c.staleCompletions;
      this.expiredLeases = c.expiredLeases;
      this.nextDueLook = c.nextDueLook;
      const leased = new Map(kept.leases.map((l) => [l.entryId, l]));
      const shelved = this.disk?.counts() ?? { done: 0, failed: 0, refused: 0, queued: 0 };
      this.counts.done += shelved.done;
      this.counts.failed += shelved.failed;
      this.counts.rejected += shelved.refused;
      this.counts.queued += shelved.queued;
      // The queued URLs on disk: their places, in their hosts' queues.
      const places = new Map<MemoryHost, number[]>();
      for (const q of this.disk?.takeQueuedRead() ?? []) {
        const h = this.hosts.host(q.host);
        const keys = places.get(h);
        if (keys === undefined) places.set(h, [q.key]);
        else keys.push(q.key);
      }
      for (const [h, keys] of places) h.addRest(keys);
      for (const e of kept.entries) {
        if (e.unlogged) this.unlogged.set(e.id, e);
        switch (e.state) {
          case 'queued':
            this.hosts.host(e.host).queue.push(e);
            this.counts.queued++;
            break;
          case 'leased': {
            const l = leased.get(e.id);
            if (l === undefined) throw new Error(`the journal has URL ${e.id} leased, and no lease of it`);
            const lease: HeldLease = { ...l, entry: e };
            this.leases.set(l.id, lease);
            this.expiries.push({ lease, expiresAt: lease.expiresAt });
            this.counts.leased++;
            break;
          }
          case 'retrying':
            this.retrying.add(e);
            this.retries.push({ entry: e, retryAt: e.retryAt });
            this.counts.retrying++;
            break;
          case 'done':
            this.counts.done++;
            break;
          case 'failed':
            this.counts.failed++;
            break;
          case 'refused':
            this.counts.rejected++;
            break;
        }
      }
      for (const h of this.hosts.all()) {
        h.queue.sort((a, b) => rankOf(a) - rankOf(b) || a.id - b.id);
        this.hosts.place(h);
      }
      const batch = 65_536;
      for (let i = 0; i < kept.entries.length; i += batch)
        await this.seen.insertNew(fingerprints(kept.entries.slice(i, i + batch).map((e) => e.url)));
      for (let i = 0; i < kept.finalFingerprints.length; i += batch)
        await this.seen.insertNew(kept.finalFingerprints.subarray(i, i + batch));
    });
  }

  /** Everything the store holds, as a store that keeps it writes a snapshot of it. */
  keptState(): KeptState {
    return {
      entries: [...this.live.values()],
      lastId: this.lastId,
      finalFingerprints: new BigUint64Array(0),
      hosts: [...this.hosts.all()]
        .filter((h) => h.taken > 0 || h.retired || h.budget !== h.host)
        .map((h) => ({ host: h.host, taken: h.taken, retired: h.retired, budget: h.budget })),
      budgets: [...this.hosts.allBudgets()],
      leases: [...this.leases.values()].map((l) => ({
        id: l.id,
        entryId: l.entry.id,
        crawler: l.crawler,
        expiresAt: l.expiresAt,
        released: l.released,
      })),
      crawlers: [...this.crawlers],
      sites: [...this.siteClaims],
      cookies: [...this.jar],
      robots: [...this.decisions.allRobots()],
      seeds: this.decisions.seeds(),
      counters: this.counters(),
    };
  }

  /**
   * Runs `work` after every call made before it, alone: the store's transaction. With a
   * StoreChanges the call answers once its changes are kept; the next call does not wait
   * for that, so one write keeps the changes of every call that ran meanwhile.
   */
  protected serial<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the frontier is closed'));
    const changes = this.changes;
    let kept: Promise<void> | null = null;
    const run = this.tail.then(async () => {
      const result = await work();
      kept = changes === null ? null : changes.commit(this.counters());
      return result;
    });
    this.tail = run.catch(() => {});
    if (changes === null) return run;
    return run.then(async (result) => {
      if (kept !== null) await kept;
      return result;
    });
  }

  private counters(): StoreCounters {
    return {
      nextLeaseId: this.nextLeaseId,
      staleCompletions: this.staleCompletions,
      expiredLeases: this.expiredLeases,
      nextDueLook: this.nextDueLook,
    };
  }

  private setSite(origin: string, claim: SiteClaim): void {
    this.siteClaims.set(origin, claim);
    this.changes?.site(origin, claim);
  }

  private robotsChanged(origin: string): void {
    const row = this.decisions.robotsRow(origin);
    if (row !== undefined) this.changes?.robots(origin, row);
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
    this.giveBackExpired(now);
    this.requeueRetries(now);
    this.requeueComeDue(now);
    const want = Math.min(n, pagesLeft(this.settings.maxPages, this.crawlCounts()));
    const leases: Lease[] = [];
    // Breadth-first: each rank in turn (policy/queue-rank.ts: depth, requisites after
    // every page), its ready hosts in the order they became ready; each host once a
    // rank (those that stay at it go back to the index after the call).
    const later: MemoryHost[] = [];
    for (let rank = this.hosts.rankAfter(-1); rank !== undefined; rank = this.hosts.rankAfter(rank)) {
      if (leases.length >= want) break;
      const served = new Set<MemoryHost>();
      for (let h = this.hosts.nextReady(rank, now); h !== undefined; h = this.hosts.nextReady(rank, now)) {
        if (served.has(h)) {
          later.push(h);
          continue;
        }
        served.add(h);
        this.claimFromHost(h, rank, want - leases.length, crawler, now, leases);
        if (h.minRank === rank) later.push(h);
        else this.hosts.place(h);
        if (leases.length >= want) break;
      }
    }
    for (const h of later) this.hosts.place(h);
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
      const entry = this.headOf(h) as UrlEntry;
      h.queue.shift();
      entry.state = 'leased';
      const id = this.nextLeaseId++;
      const lease: HeldLease = { id, entry, crawler, expiresAt, released: false };
      this.leases.set(id, lease);
      this.expiries.push({ lease, expiresAt });
      this.changes?.entry(entry);
      this.changes?.lease(lease);
      this.counts.queued--;
      this.counts.leased++;
      b = afterLease(b, settings, now, placed);
      out.push(leaseOf(id, entry, h.host, expiresAt, { startBy, placed }));
    }
    this.hosts.setBudget(h.budget, b);
  }

  /** An expiry entry of a lease that ended or was extended since. */
  private readonly expiryStale = (s: ExpirySlot): boolean =>
    this.leases.get(s.lease.id) !== s.lease || s.lease.expiresAt !== s.expiresAt;

  /** A retry entry of a URL no longer retrying, or retrying at another time. */
  private readonly retryStale = (s: RetrySlot): boolean =>
    !this.retrying.has(s.entry) || s.entry.retryAt !== s.retryAt;

  /** Leases run out by `now` go back to the queue. */
  private giveBackExpired(now: number): void {
    for (;;) {
      const top = this.expiries.top(this.expiryStale);
      if (top === undefined || !isExpired(top.expiresAt, now)) return;
      this.expiries.pop();
      this.giveBack(top.lease);
    }
  }

  /** Retries whose time has come go back to the queue. */
  private requeueRetries(now: number): void {
    for (;;) {
      const top = this.retries.top(this.retryStale);
      if (top === undefined || top.retryAt > now) return;
      this.retries.pop();
      this.retrying.delete(top.entry);
      this.counts.retrying--;
      this.backToQueue(top.entry, 0, null, []);
    }
  }

  /** When some host may be leased, or a lease runs out, or a retry comes due. */
  private nextReadyAt(): number | null {
    const host = this.hosts.nextReadyAt();
    const other = this.nextExpiryOrRetry();
    if (host === null) return other;
    return other === null ? host : Math.min(host, other);
  }

  /** The only news a store with nothing ready can have: a lease running out, a retry due. */
  private nextExpiryOrRetry(): number | null {
    const lease = this.expiries.top(this.expiryStale);
    const retry = this.retries.top(this.retryStale);
    if (lease === undefined) return retry === undefined ? null : retry.retryAt;
    return retry === undefined ? lease.expiresAt : Math.min(lease.expiresAt, retry.retryAt);
  }

  private crawlCounts(): CrawlCounts {
    const c = this.counts;
    return { queued: c.queued, leased: c.leased, retrying: c.retrying, final: c.done + c.failed };
  }

  /** One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot. */
  private applyReport(host: string, report: FetchReport): void {
    const h = this.hosts.host(host);
    if (report.address != null && this.settings.key === 'ip') {
      // Still counted in flight here: the fetches move along, and the report frees one there.
      let inFlight = 0;
      for (const l of this.leases.values()) if (l.entry.host === host && !l.released) inFlight++;
      const before = h.budget;
      this.hosts.moveToAddress(h, report.address, inFlight);
      if (h.budget !== before) this.changes?.host(h);
    }
    const settings = settingsForHost(this.settings, host);
    this.hosts.setBudget(h.budget, afterFetch(this.hosts.budget(h.budget), report, settings, this.now()));
  }

  private endLease(lease: HeldLease): void {
    this.leases.delete(lease.id);
    this.changes?.leaseEnded(lease.id);
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
    this.changes?.entry(e);
    this.hosts.enqueue(h, e);
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
        this.changes?.entry(e);
        return;
      }
      case 'failed':
        e.state = 'failed';
        e.attempts++;
        e.reason = o.error;
        this.counts.failed++;
        this.changes?.entry(e);
        return;
      case 'refused':
        e.state = 'refused';
        e.reason = o.reason;
        this.counts.rejected++;
        this.changes?.entry(e);
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
        this.retries.push({ entry: e, retryAt: e.retryAt });
        this.counts.retrying++;
        this.changes?.entry(e);
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
      this.changes?.host(m);
      const waiting = [
        ...m.queue.splice(0),
        ...this.restOf(m),
        ...[...this.retrying].filter((e) => e.host === m.host),
      ];
      this.hosts.place(m);
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
    // A page's links arrive each with its own copy of the page's URL (a packet's JSON):
    // its URLs then hold one string, not one each (some 70 bytes a queued URL).
    const vias = new Map<string, string>();
    const via = (v: string | null) => {
      if (v === null) return null;
      const known = vias.get(v);
      if (known !== undefined) return known;
      vias.set(v, v);
      return v;
    };
    links.forEach((l, i) => {
      if (fresh[i] !== true) return;
      const h = this.hosts.host(hostKey(l.url));
      const refusal = h.retired
        ? RETIRED_REASON
        : hostBudgetRefusal(h.taken, settingsForHost(this.settings, h.host));
      const e = this.entryOf(l, h.host, via(l.via));
      if (refusal !== null) {
        this.toRecord(e, refusal === RETIRED_REASON ? 'failed' : 'refused', refusal, crawler);
        records.push(recordOf(e));
        return;
      }
      h.taken++;
      this.changes?.entry(e);
      this.changes?.host(h);
      this.hosts.enqueue(h, e);
      this.counts.queued++;
      added++;
    });
    rejected.forEach((r, i) => {
      if (fresh[links.length + i] !== true) return;
      const e = this.entryOf(r, hostKey(r.url), via(r.via));
      this.toRecord(e, 'refused', r.reason, crawler);
      records.push(recordOf(e));
    });
    return added;
  }

  private entryOf(l: NewLink | RejectedLink, host: string, via: string | null): UrlEntry {
    const link = l as NewLink;
    const e: UrlEntry = {
      id: ++this.lastId,
      url: l.url,
      host,
      depth: l.depth,
      via,
      redirects: link.redirects ?? 0,
      kind: link.kind ?? 'page',
      state: 'queued',
      attempts: 0,
      reason: null,
      unlogged: false,
      holder: null,
      retryAt: 0,
    };
    this.live.set(e.id, e);
    return e;
  }

  /**
   * The final URLs it holds (done, or failed or refused with their record written),
   * let go of: a store that keeps them out of memory (UrlsOnDisk) has them now.
   */
  takeFinal(): UrlEntry[] {
    const out: UrlEntry[] = [];
    for (const e of this.live.values()) {
      if (!isFinal(e)) continue;
      out.push(e);
      this.live.delete(e.id);
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /**
   * The queued URLs of each host past its first HEAD_IN_MEMORY, let go of: a store that
   * keeps them on disk (UrlsOnDisk) has them now, and their hosts hold their places (the
   * first among them is the host's first: its place in the ready index stays).
   */
  takeQueueTails(): UrlEntry[] {
    const out: UrlEntry[] = [];
    for (const h of this.hosts.all()) {
      if (h.queue.length <= HEAD_IN_MEMORY) continue;
      const tail = h.queue.splice(HEAD_IN_MEMORY);
      const keys: number[] = [];
      for (const e of tail) {
        this.live.delete(e.id);
        keys.push(keyOf(e));
        out.push(e);
      }
      h.addRest(keys);
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /** The host's first queued URL, in memory: read back from the disk if its first place is there. */
  private headOf(h: MemoryHost): UrlEntry | undefined {
    for (;;) {
      const first = h.queue[0];
      const disk = h.firstOnDisk;
      if (disk === undefined || (first !== undefined && keyOf(first) < disk)) return first;
      h.shiftRest();
      h.enqueue(this.fromDisk(idOfKey(disk)));
    }
  }

  /** Every queued URL of the host on disk, read back (the host is given up on). */
  private restOf(h: MemoryHost): UrlEntry[] {
    const out: UrlEntry[] = [];
    for (let key = h.shiftRest(); key !== undefined; key = h.shiftRest())
      out.push(this.fromDisk(idOfKey(key)));
    return out;
  }

  /**
   * URL `id` (`e`, if read already), read back from the disk: the engine's again. A queued
   * one is not journaled: its state is as its line says, and a change of it in the
   * journal reads the line (KeptReader).
   */
  private fromDisk(id: RecordId, e: UrlEntry = (this.disk as UrlsOnDisk).read(id)): UrlEntry {
    (this.disk as UrlsOnDisk).takeBack(id);
    this.live.set(id, e);
    return e;
  }

  /** URL `id`, read back from the final URLs on disk to be queued again: kept whole by the store. */
  private backFromFinals(id: RecordId, e?: UrlEntry): UrlEntry {
    const back = this.fromDisk(id, e);
    this.changes?.returned(back);
    return back;
  }

  /** A URL that will not be fetched: final, with a record to write for `holder`. */
  private toRecord(e: UrlEntry, state: 'failed' | 'refused', reason: string, holder: CrawlerId | null): void {
    e.state = state;
    e.reason = reason;
    e.unlogged = true;
    e.holder = holder;
    this.unlogged.set(e.id, e);
    this.changes?.entry(e);
    if (state === 'failed') this.counts.failed++;
    else this.counts.rejected++;
  }

  /** --recrawl-after while the crawl runs: a lease call queues the URLs come due (policy/recrawl.ts). */
  private requeueComeDue(now: number): void {
    const afterMs = this.settings.recrawlAfterMs;
    if (!dueLookNeeded(afterMs, now, this.nextDueLook, this.settings.maxPages, this.crawlCounts())) return;
    this.nextDueLook = now + DUE_LOOK_MS;
    this.queueDue(recrawlCutoff(now, afterMs as number));
  }

  /** Done URLs fetched at or before `cutoff` are queued again; how many. */
  private queueDue(cutoff: number | null): number {
    if (cutoff === null) return 0;
    let n = 0;
    const queueIfDue = (e: UrlEntry) => {
      const h = this.hosts.host(e.host);
      if (e.state !== 'done' || h.retired || (e.previous?.fetchedAt ?? Number.POSITIVE_INFINITY) > cutoff)
        return;
      e.state = 'queued';
      e.attempts = 0;
      this.changes?.entry(e);
      this.hosts.enqueue(h, e);
      this.counts.done--;
      this.counts.queued++;
      n++;
    };
    for (const e of this.live.values()) queueIfDue(e);
    // Those on disk due (by the fetch times kept in memory) come back first.
    for (const id of this.disk?.doneBy(cutoff) ?? []) {
      const e = (this.disk as UrlsOnDisk).read(id);
      if (!this.hosts.host(e.host).retired) queueIfDue(this.backFromFinals(id, e));
    }
    return n;
  }
}
