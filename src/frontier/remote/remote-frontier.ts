import { type Bodies, LEASE_LIMITS, type WireModuleCounts } from '../../protocol/index.js';
import type {
  AddResult,
  CompleteResult,
  Completion,
  CrawlerId,
  CrawlSeeds,
  ExtendedLease,
  Frontier,
  FrontierStats,
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
import { type ConnectionOptions, ServerConnection, type Welcome } from './connection.js';
import {
  completionToWire,
  idFromWire,
  idOnWire,
  leaseFromWire,
  linkToWire,
  recordFromWire,
  rejectedToWire,
  reportToWire,
  robotsAnswerFromWire,
  robotsEntryToWire,
} from './wire.js';

/**
 * Longest a release waits for others to go with it. A crawl loop with free slots asks
 * for leases within a few milliseconds (and the releases go first): this bounds the
 * wait of a loop whose slots are all taken, when no lease call comes.
 */
const RELEASE_GATHER_MS = 10;
/** How long a crawl loop gathers finished pages into one COMPLETE, and free slots into one LEASE. */
const COMPLETE_GATHER_MS = 25;
const LEASE_GATHER_MS = 5;

interface Settle {
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface GatheredReleases {
  items: Bodies['RELEASE']['releases'];
  /** Settled with the RELEASE that carries them. */
  sent: Promise<void>;
  settle: Settle;
  timer: NodeJS.Timeout;
}

/**
 * The Frontier contract over the packet protocol: a cobweb server holds the store, and
 * this is a bunny's view of it. The connection is the crawler: the server registers it
 * at HELLO and gives its leases back when it goes away. The server writes pages.jsonl
 * and the modules' records from what completions carry, and it writes the records of
 * refused URLs itself: only captured requisites' records come back here, to have their
 * WARC records written, and their lines go back with the ACK.
 */
export class RemoteFrontier implements Frontier {
  readonly keepsOutputs = true;
  /**
   * A bunny at a few hundred pages a second finished one or two pages in the crawl
   * loop's 5 ms: a COMPLETE (and a server transaction, and a write of pages.jsonl) for
   * nearly every page.
   */
  readonly gatherMs = { complete: COMPLETE_GATHER_MS, lease: LEASE_GATHER_MS };
  /** Each crawler is one connection: the server knows a crawler by its connection. */
  private readonly crawlers = new Map<CrawlerId, ServerConnection>();
  private first: ServerConnection | null = null;
  /** The first connection is some crawler's already. */
  private firstTaken = false;
  /** Releases not sent yet (see release). */
  private releases: GatheredReleases | null = null;

  constructor(private readonly options: Omit<ConnectionOptions, 'name'> & { name?: string }) {}

  /** The connection of the first crawler (opened now if none is): WELCOME, and MODULE pushes. */
  get connection(): ServerConnection {
    this.first ??= new ServerConnection({ ...this.options, name: this.options.name ?? 'bunny' });
    return this.first;
  }

  /** A connection for calls that name no crawler: the first crawler's, or any other open one. */
  private anyConnection(): ServerConnection {
    return this.first ?? this.crawlers.values().next().value ?? this.connection;
  }

  /** Connects; what the server said to this process's first crawler. */
  welcome(): Promise<Welcome> {
    return this.connection.open();
  }

  async registerCrawler(name: string): Promise<CrawlerId> {
    // The first crawler takes the connection opened for WELCOME; each other, one of its own.
    const c =
      this.first !== null && !this.firstTaken ? this.first : new ServerConnection({ ...this.options, name });
    this.first ??= c;
    if (c === this.first) this.firstTaken = true;
    const id = idFromWire((await c.open()).crawlerId);
    this.crawlers.set(id, c);
    return id;
  }

  private of(crawler: CrawlerId): ServerConnection {
    return this.crawlers.get(crawler) ?? this.connection;
  }

  async add(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    _crawler: CrawlerId,
  ): Promise<AddResult> {
    const r = await this.connection.request('ADD', {
      links: links.map(linkToWire),
      rejected: rejected.map(rejectedToWire),
    });
    return { added: r.added, records: r.records.map(recordFromWire) };
  }

  async lease(n: number, crawler: CrawlerId, options: LeaseOptions = {}): Promise<LeaseBatch> {
    this.sendReleases();
    // Within what a LEASE may ask: a process fetching more at once asks again for the rest.
    const r = await this.of(crawler).request('LEASE', {
      n: Math.min(n, LEASE_LIMITS.n),
      waitMs: Math.min(Math.round(options.waitMs ?? 0), LEASE_LIMITS.waitMs),
    });
    return { leases: r.leases.map(leaseFromWire), ended: r.ended, nextReadyAt: r.nextReadyAt };
  }

  /**
   * Gathered, then sent in one RELEASE: right before the next LEASE or COMPLETE (so a
   * lease asked for next sees the hosts it freed), or RELEASE_GATHER_MS after the first.
   * A crawl loop releases each fetch as it ends, and a packet each way per page cost
   * both processes more than the release itself. Resolves once the server answered (or
   * the store was closed first).
   */
  release(batch: readonly Release[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    if (this.releases === null) {
      let settle: Settle = { resolve: () => {}, reject: () => {} };
      const sent = new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      });
      this.releases = {
        items: [],
        sent,
        settle,
        timer: setTimeout(() => this.sendReleases(), RELEASE_GATHER_MS),
      };
    }
    for (const r of batch) {
      this.releases.items.push({ lease: idOnWire(r.leaseId), report: reportToWire(r.report) });
    }
    return this.releases.sent;
  }

  /** Sends the releases gathered so far, if any. */
  private sendReleases(): void {
    const gathered = this.releases;
    if (gathered === null) return;
    this.releases = null;
    clearTimeout(gathered.timer);
    this.anyConnection()
      .request('RELEASE', { releases: gathered.items })
      .then(() => gathered.settle.resolve(), gathered.settle.reject);
  }

  async extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]> {
    const r = await this.anyConnection().request('EXTEND', { leases: leaseIds.map(idOnWire) });
    return r.leases.map((l) => ({ id: idFromWire(l.id), expiresAt: l.expiresAt }));
  }

  async complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult> {
    this.sendReleases();
    const r = await this.of(crawler).request('COMPLETE', { completions: batch.map(completionToWire) });
    return { added: r.added, records: r.records.map(recordFromWire), stale: r.stale.map(idFromWire) };
  }

  /**
   * With lines (captured requisites' records, their WARC records written here): answered
   * once the server wrote them, so a bunny that leaves next has them written, not refused.
   */
  async acknowledge(ids: readonly RecordId[], lines: readonly Record<string, unknown>[] = []): Promise<void> {
    if (ids.length === 0) return;
    const wire = ids.map(idOnWire);
    if (lines.length === 0) this.anyConnection().tell('ACK', { ids: wire });
    else await this.anyConnection().request('ACK', { ids: wire, lines: [...lines] });
  }

  /** The server writes the records of its crawlers that went away itself. */
  async reclaimRecords(_crawler: CrawlerId): Promise<PendingRecord[]> {
    return [];
  }

  /** The server runs the site's hooks itself, with `facts`, before it answers. */
  async claimSite(origin: string, crawler: CrawlerId, facts?: Record<string, unknown>): Promise<boolean> {
    const address = typeof facts?.address === 'string' ? facts.address : null;
    const claim = facts === undefined ? { origin, address } : { origin, address, site: facts };
    return (await this.of(crawler).request('CLAIMSITE', claim)).claimed;
  }

  async recordSite(site: SiteFacts): Promise<void> {
    await this.anyConnection().request('RECORDSITE', {
      origin: site.origin,
      address: site.address,
      firstSeen: site.firstSeen,
      info: site.info,
    });
  }

  async stats(): Promise<FrontierStats> {
    const s = await this.anyConnection().request('STATS', {});
    return {
      queued: s.queued,
      leased: s.inFlight,
      retrying: s.retrying ?? 0,
      done: s.done,
      failed: s.failed,
      rejected: s.rejected,
      hosts: s.hosts,
      staleCompletions: s.staleCompletions ?? 0,
      expiredLeases: s.expiredLeases ?? 0,
      budgetLeft: s.budgetLeft ?? null,
      ...(s.seen === undefined ? {} : { seen: s.seen }),
    };
  }

  /** The server's store keeps the jar: its bunnies share it, and one restarted gets it back. */
  async cookies(): Promise<StoredCookie[]> {
    return (await this.anyConnection().request('COOKIES', {})).cookies;
  }

  async saveCookies(changes: readonly StoredCookie[]): Promise<void> {
    if (changes.length > 0) await this.anyConnection().request('SAVECOOKIES', { cookies: [...changes] });
  }

  /** The server's store keeps the crawl's robots.txt entries: one bunny reads a file, all obey it. */
  async robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
    const answer = robotsAnswerFromWire(await this.of(crawler).request('ROBOTS', { origin }));
    // 'none' answers only SAVEROBOTS; to ROBOTS it would be a server's fault: ask later.
    return answer.kind === 'none' ? { kind: 'busy' } : answer;
  }

  async recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
  ): Promise<StoredRobots | null> {
    const body =
      entry === null
        ? { origin, read: false, text: [] }
        : { origin, read: true, ...robotsEntryToWire(entry) };
    const answer = robotsAnswerFromWire(await this.of(crawler).request('SAVEROBOTS', body));
    return answer.kind === 'known' ? answer.robots : null;
  }

  async crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds> {
    return this.anyConnection().request('SEEDS', {
      origins: [...add.origins],
      addresses: [...add.addresses],
    });
  }

  /** MODCOUNTS: this bunny's module calls since its last report, for the server's counts. */
  async reportModules(modules: readonly WireModuleCounts[]): Promise<void> {
    if (modules.length > 0) await this.anyConnection().request('MODCOUNTS', { modules: [...modules] });
  }

  /** Closing its connection is leaving: the server gives the crawler's leases back at once. */
  async leave(crawler: CrawlerId): Promise<void> {
    const c = this.crawlers.get(crawler);
    if (c === undefined) return;
    // Its fetches' reports go before it does.
    this.sendReleases();
    this.crawlers.delete(crawler);
    await c.leave();
    if (c === this.first) this.first = null;
  }

  async close(): Promise<void> {
    // Releases not sent by now are dropped: closing the connection gives the crawler's
    // leases back, which releases their hosts.
    const gathered = this.releases;
    this.releases = null;
    if (gathered !== null) {
      clearTimeout(gathered.timer);
      gathered.settle.resolve();
    }
    for (const c of new Set([...this.crawlers.values(), ...(this.first === null ? [] : [this.first])]))
      c.close();
    this.crawlers.clear();
  }
}
