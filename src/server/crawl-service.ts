import { type LinkRules, refusal, routeLinks } from '../bunny/links.js';
import { givenBack } from '../bunny/page-processor.js';
import { clientVisitRecord, refusedRecord } from '../bunny/page-record.js';
import type { ModuleDataFiles } from '../data-dir/module-data.js';
import {
  completionFromWire,
  idFromWire,
  idOnWire,
  leaseToWire,
  linkFromWire,
  readyAtToWire,
  recordToWire,
  reportFromWire,
  robotsAnswerToWire,
  robotsEntryFromWire,
} from '../frontier/remote/wire.js';
import type { Completion, CrawlerId, Lease, LocalFrontier, PendingRecord } from '../frontier/types.js';
import { MODULE_NAME, type ModuleSite } from '../modules/api.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { EventLog } from '../output/crawl-log.js';
import { ModuleRecordsLog } from '../output/module-records-log.js';
import type { PageRecord, PagesLog } from '../output/pages-log.js';
import {
  type Bodies,
  type CompleteMessage,
  DEFAULT_CRAWL,
  type JsonObject,
  type WireCookie,
  type WireRejected,
} from '../protocol/index.js';
import { canonicalize } from '../url/canonicalize.js';
import type { ProbabilityBackoff } from './backoff.js';
import { CapturedRecords, type Written } from './captured-records.js';
import { LeaseWatch } from './lease-watch.js';
import type { SiteBook, SiteVisit } from './site-book.js';

/** One record a bunny's module emitted, as a completion carries it. */
type ModuleRecord = NonNullable<Completion['moduleRecords']>[number];

export interface ServiceParts {
  /** The crawl's name (--crawl), as the log names it. */
  name: string;
  store: LocalFrontier;
  /** pages.jsonl (and whoever listens to the lines written). */
  pages: Pick<PagesLog, 'append'>;
  /** `<data>/data`: the modules' records, one file per module, each claimed before its first line. */
  moduleData: ModuleDataFiles;
  sites: SiteBook;
  /** The server's modules: site hooks, and the ones loadmod adds. */
  modules: ModuleHost;
  /** What ENQUEUE checks a URL against (scope, filters with --skip-substring, traps). */
  rules: LinkRules;
  backoff: ProbabilityBackoff;
  /** What WELCOME tells bunnies to use. */
  settings: JsonObject;
  leaseMs: number;
  log: EventLog;
}

/**
 * The crawl a cobweb server holds: its store, its pages.jsonl and module records, its
 * book of sites and its modules. Sessions (one per connection) turn packets into these
 * calls. The server is the one writer of the crawl's outputs: bunnies send their
 * pages.jsonl lines and module records with their completions, and the records of
 * refused URLs are written here, never sent back.
 */
export class CrawlService {
  private held = false;
  private resumed: (() => void)[] = [];
  /** Modules whose records are not written, said once each. */
  private readonly refusedModules = new Set<string>();
  private readonly moduleRecords: ModuleRecordsLog;
  /** Says when leases go back to the queue unfinished. */
  private readonly leases: LeaseWatch;
  /** The crawlers that left (ids are never given twice). */
  private readonly left = new Set<CrawlerId>();
  /** Captured requisites' records handed to the bunnies that hold their bytes, until acknowledged. */
  private readonly captured = new CapturedRecords();

  constructor(private readonly parts: ServiceParts) {
    this.leases = new LeaseWatch(parts.store, parts.name, parts.log);
    this.leases.start();
    this.moduleRecords = new ModuleRecordsLog((module) => parts.moduleData.file(module));
  }

  /** Stops the service's own timers (the crawl is closing). */
  stop(): void {
    this.leases.stop();
    this.moduleRecords.close();
  }

  /** Paused (the console): no URL is leased; bunnies finish what they hold. */
  get paused(): boolean {
    return this.held;
  }

  pause(): void {
    this.held = true;
  }

  resume(): void {
    this.held = false;
    for (const wake of this.resumed.splice(0)) wake();
  }

  get settings(): JsonObject {
    return this.parts.settings;
  }

  get leaseMs(): number {
    return this.parts.leaseMs;
  }

  get modules(): ModuleHost {
    return this.parts.modules;
  }

  /** The module data files that are cobweb's (loadmod claims one for the module it loads). */
  get moduleData(): ModuleDataFiles {
    return this.parts.moduleData;
  }

  get sites(): SiteBook {
    return this.parts.sites;
  }

  /** What seeds and ENQUEUE are checked against. */
  get rules(): LinkRules {
    return this.parts.rules;
  }

  get store(): LocalFrontier {
    return this.parts.store;
  }

  /** A bunny says HELLO: it gets its crawler id. `from`: where it connects from, for the log. */
  async register(name: string, from: string): Promise<CrawlerId> {
    const crawler = await this.parts.store.registerCrawler(name);
    this.parts.log(`bunny ${crawler} (${name}) joined${this.onCrawl()} from ${from}`, 'info', {
      event: 'crawler',
      crawler,
      name,
      crawl: this.parts.name,
      from,
    });
    // Registering gives back the leases of crawlers found gone.
    await this.leases.look();
    return crawler;
  }

  /**
   * A bunny runs none of these modules' page hooks (it said so in HELLO, or it loads no
   * pushed module and loadmod loaded one): said as a warning, so that a short
   * data/<module>.jsonl has its reason in the log.
   */
  lacking(crawler: CrawlerId, name: string, modules: readonly string[]): void {
    if (modules.length === 0) return;
    const files = modules.map((m) => `data/${m}.jsonl`).join(', ');
    this.parts.log(
      `bunny ${crawler} (${name}) runs no page hook of ${modules.join(', ')}: its pages get no records from them (${files}) and no fields of theirs in pages.jsonl`,
      'warning',
      { event: 'modules-missing', crawler, name, modules: [...modules], crawl: this.parts.name },
    );
  }

  /** A crawler went away (LEAVE, or its connection closed): its leases go back to the queue at once. */
  async leave(crawler: CrawlerId): Promise<void> {
    await this.parts.store.leave(crawler);
    await this.writeAcknowledged(this.captured.leftBy(crawler));
    // A bunny's LEAVE is followed by its connection closing: said once.
    if (this.left.has(crawler)) return;
    this.left.add(crawler);
    this.parts.log(`crawler ${crawler} left${this.onCrawl()}`, 'info', {
      event: 'crawler-left',
      crawler,
      crawl: this.parts.name,
    });
    await this.leases.look();
  }

  /** ' crawl NAME' for a crawl other than the default one, as lines name it. */
  private onCrawl(): string {
    return this.parts.name === DEFAULT_CRAWL ? '' : ` crawl ${this.parts.name}`;
  }

  /**
   * Leases for a crawler, after the per-server back-off (--backoff): a URL it holds back
   * goes back to the queue at once, deferred, never dropped.
   */
  async lease(crawler: CrawlerId, n: number, waitMs: number): Promise<Bodies['LEASES']> {
    if (this.held) {
      // A long poll while paused waits for the resume (or its time), then answers what it may.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.resumed.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (this.held) return { leases: [], ended: null, nextReadyAt: null };
    }
    const batch = await this.parts.store.lease(n, crawler, { waitMs });
    const given: Lease[] = [];
    const held: Completion[] = [];
    for (const l of batch.leases) {
      // Paused while this call waited (a long poll): what it got goes back, deferred.
      if (!this.held && this.parts.backoff.handOut(l.host)) given.push(l);
      else held.push(givenBack(l.id));
    }
    if (held.length > 0) await this.parts.store.complete(held, crawler);
    return {
      leases: given.map(leaseToWire),
      ended: batch.ended,
      nextReadyAt: readyAtToWire(batch.nextReadyAt),
    };
  }

  async release(body: Bodies['RELEASE']): Promise<void> {
    await this.parts.store.release(
      body.releases.map((r) => ({ leaseId: idFromWire(r.lease), report: reportFromWire(r.report) })),
    );
  }

  /** The store says which leases it still held and when each runs out now, by its own clock. */
  async extend(body: Bodies['EXTEND']): Promise<Bodies['EXTENDED']> {
    const ids = body.leases.map(idFromWire);
    const extended = await this.parts.store.extend(ids);
    const held = new Set(extended.map((l) => l.id));
    return {
      leases: extended.map((l) => ({ id: idOnWire(l.id), expiresAt: Math.floor(l.expiresAt) })),
      stale: body.leases.filter((_, i) => !held.has(ids[i] as number)),
    };
  }

  /**
   * Completions, outputs first: the pages.jsonl lines and module records of the leases
   * the crawler still holds are written, then the store completes them in one step. A
   * completion of a lease gone to someone else writes nothing and comes back stale.
   */
  async complete(crawler: CrawlerId, body: CompleteMessage['body']): Promise<Bodies['COMPLETED']> {
    const completions = body.completions.map(completionFromWire);
    const extended = await this.parts.store.extend(completions.map((c) => c.leaseId));
    const held = new Set(extended.map((l) => l.id));
    const lines: PageRecord[] = [];
    const visits: SiteVisit[] = [];
    const moduleRecords: ModuleRecord[] = [];
    for (const c of completions) {
      if (!held.has(c.leaseId)) continue;
      if (c.record !== undefined && c.record !== null) {
        lines.push(sentLine(c.record, crawler));
        if (c.outcome.kind === 'done' && typeof c.record.url === 'string') {
          visits.push({ url: c.record.url, address: addressOf(c) });
        }
      }
      for (const r of c.moduleRecords ?? []) moduleRecords.push(r);
    }
    this.writeModuleRecords(moduleRecords);
    this.parts.pages.append(lines);
    this.parts.sites.visited(visits);
    const done = await this.parts.store.complete(completions, crawler);
    const records = await this.recordOrHandOut(done.records, crawler);
    return { stale: staleAsSent(body.completions, done.stale), records, added: done.added };
  }

  async add(crawler: CrawlerId, body: Bodies['ADD']): Promise<Bodies['ADDED']> {
    const r = await this.parts.store.add(body.links.map(linkFromWire), body.rejected, crawler);
    return { added: r.added, records: await this.recordOrHandOut(r.records, crawler) };
  }

  /**
   * ACK: the lines of the captured requisites a bunny wrote (its WARC records are in its
   * own files), written here, then their records acknowledged in the store.
   */
  async acknowledge(body: Bodies['ACK']): Promise<void> {
    await this.writeAcknowledged(this.captured.acknowledged(body));
  }

  /**
   * A store's records: written here, but for captured requisites new to the crawl, which
   * go back to the bunny that sent them (it holds their bytes), to be written and acknowledged.
   */
  private async recordOrHandOut(records: readonly PendingRecord[], crawler: CrawlerId) {
    const { own, back } = this.captured.handOut(records, crawler);
    await this.record(own, crawler);
    return back.map(recordToWire);
  }

  private async writeAcknowledged(written: Written): Promise<void> {
    if (written.ids.length === 0) return;
    this.parts.pages.append(written.lines);
    await this.parts.store.acknowledge(written.ids);
  }

  /**
   * CLAIMSITE: the first crawler to reach a site claims it; the site hooks run here, on
   * the server's module threads, with what the crawler sent of the site, and the site
   * is recorded before the answer goes. A site is an address and a port: a second host
   * name on it is not a new site (the store's claim is by the book's key, not by origin).
   */
  async claimSite(crawler: CrawlerId, body: Bodies['CLAIMSITE']): Promise<boolean> {
    return this.claimAndRun(siteFrom(body), crawler);
  }

  async recordSite(body: Bodies['RECORDSITE']): Promise<void> {
    await this.parts.store.recordSite(body);
    this.parts.sites.addInfo(body.origin, body.address, body.info);
  }

  /** ROBOTS: the crawl's robots.txt entry for an origin, or the read for this bunny (once per crawl). */
  async robots(crawler: CrawlerId, origin: string): Promise<Bodies['ROBOTSREPLY']> {
    return robotsAnswerToWire(await this.parts.store.robots(origin, crawler));
  }

  /** SAVEROBOTS: what a bunny read becomes the crawl's entry; or its read is given back. */
  async saveRobots(crawler: CrawlerId, body: Bodies['SAVEROBOTS']): Promise<Bodies['ROBOTSREPLY']> {
    const entry = body.read ? robotsEntryFromWire(body) : null;
    const kept = await this.parts.store.recordRobots(body.origin, entry, crawler);
    return robotsAnswerToWire(kept === null ? { kind: 'none' } : { kind: 'known', robots: kept });
  }

  /** SEEDS: the crawl's seeds' origins and addresses, wherever the seeds were given. */
  async crawlSeeds(add: Bodies['SEEDS']): Promise<Bodies['SEEDLIST']> {
    const all = await this.parts.store.crawlSeeds(add);
    return { origins: [...all.origins], addresses: [...all.addresses] };
  }

  /** COOKIES: the crawl's cookie jar, which the store keeps for all the bunnies. */
  async cookies(): Promise<WireCookie[]> {
    return this.parts.store.cookies();
  }

  /** SAVECOOKIES: what a bunny's responses changed in the jar. */
  async saveCookies(changes: readonly WireCookie[]): Promise<void> {
    await this.parts.store.saveCookies(changes);
  }

  async stats(bunnies: number): Promise<Bodies['STATSREPLY']> {
    const s = await this.parts.store.stats();
    return {
      queued: s.queued,
      inFlight: s.leased,
      done: s.done,
      failed: s.failed,
      rejected: s.rejected,
      hosts: s.hosts,
      bunnies,
      retrying: s.retrying,
      staleCompletions: s.staleCompletions,
      expiredLeases: s.expiredLeases,
      budgetLeft: s.budgetLeft,
      ...(s.seen === undefined ? {} : { seen: s.seen }),
    };
  }

  /**
   * ENQUEUE: URLs handed in by an original client (a run of ENQUEUEs, stored in one
   * add) take a seed's checks (the substring test, scope, filters, traps; "already seen"
   * is the store's), as links of the page the connection holds, or as seeds when it
   * holds none.
   */
  async enqueue(crawler: CrawlerId, urls: readonly string[], from: Lease | null): Promise<void> {
    const rejected: WireRejected[] = [];
    const kept: string[] = [];
    for (const url of urls) {
      const c = canonicalize(url);
      if (c.ok) kept.push(c.url);
    }
    let links = [] as ReturnType<typeof routeLinks>['accepted'];
    if (from === null) {
      for (const url of kept) {
        const reason = refusal(url, 0, 0, 'page', this.parts.rules);
        if (reason === null) links.push({ url, depth: 0, via: null });
        else rejected.push({ url, depth: 0, via: null, reason });
      }
    } else if (kept.length > 0) {
      const routed = routeLinks(kept, from.url, from, this.parts.rules);
      links = routed.accepted;
      rejected.push(...routed.rejected);
    }
    if (links.length === 0 && rejected.length === 0) return;
    const r = await this.parts.store.add(links, rejected, crawler);
    await this.record(r.records, crawler);
  }

  /** STOREURL: the URL an original client held is visited. Its site is recorded, and a new one gets its hooks. */
  async storeUrl(crawler: CrawlerId, lease: Lease, address: string | null): Promise<void> {
    this.parts.pages.append([clientVisitRecord(lease, new Date(), crawler)]);
    this.parts.sites.visited([{ url: lease.url, address }]);
    await this.parts.store.complete(
      [{ leaseId: lease.id, outcome: { kind: 'done' }, report: { fetchMs: 0 }, outlinks: [], rejected: [] }],
      crawler,
    );
    // An original client tells nothing of the site but where it is.
    const origin = new URL(lease.url).origin;
    await this.claimAndRun({ origin, address, headers: {}, robots: null }, crawler);
  }

  /** READDATA: the sites of a log count as visited; their hooks do not run again. */
  async readLog(text: string): Promise<number> {
    const read = this.parts.sites.read(text);
    for (const site of read) {
      await this.parts.store.recordSite({
        origin: site.key,
        address: site.address,
        firstSeen: Date.now(),
        info: site.info,
      });
    }
    return read.length;
  }

  /** Writes refused URLs' lines and tells the store they are written. */
  writeRecords(records: readonly PendingRecord[], crawler: CrawlerId): Promise<void> {
    return this.record(records, crawler);
  }

  private async record(records: readonly PendingRecord[], crawler: CrawlerId): Promise<void> {
    if (records.length === 0) return;
    this.parts.pages.append(records.map((r) => refusedRecord(r, crawler)));
    await this.parts.store.acknowledge(records.map((r) => r.id));
  }

  /** Claims the site in the store by its key; the one caller that gets it runs the hooks. */
  private async claimAndRun(site: ModuleSite, crawler: CrawlerId): Promise<boolean> {
    const key = this.parts.sites.claimKey(site.origin, site.address);
    if (!(await this.parts.store.claimSite(key, crawler))) return false;
    await this.runSiteHooks(site, key, crawler);
    return true;
  }

  private async runSiteHooks(site: ModuleSite, key: string, crawler: CrawlerId): Promise<void> {
    const verdict = await this.parts.modules.onSite(site);
    await this.parts.store.recordSite({
      origin: key,
      address: site.address,
      firstSeen: Date.now(),
      info: verdict.info,
    });
    this.parts.sites.addInfo(site.origin, site.address, verdict.info);
    if (verdict.enqueue.length > 0) {
      const routed = routeLinks(
        verdict.enqueue,
        site.origin,
        { url: `${site.origin}/`, depth: 0 },
        this.parts.rules,
      );
      const r = await this.parts.store.add(routed.accepted, routed.rejected, crawler);
      await this.record(r.records, crawler);
    }
  }

  /** A batch's module records, one append per module. */
  private writeModuleRecords(records: readonly ModuleRecord[]): void {
    if (records.length === 0) return;
    const byModule = new Map<string, string[]>();
    for (const { module, record } of records) {
      if (!this.mayWrite(module)) continue;
      const lines = byModule.get(module);
      if (lines === undefined) byModule.set(module, [JSON.stringify(record)]);
      else lines.push(JSON.stringify(record));
    }
    for (const [module, lines] of byModule) this.moduleRecords.append(module, lines);
  }

  /** A bunny's module names a file of its own in data/; one that is someone else's is said once, and left alone. */
  private mayWrite(module: string): boolean {
    if (this.parts.moduleData.claim(module)) return true;
    if (!this.refusedModules.has(module)) {
      this.refusedModules.add(module);
      this.parts.log(
        `the records of module ${module} are not written: ${MODULE_NAME.test(module) ? `${this.parts.moduleData.file(module)} is not cobweb's` : 'its name is not a plain file name'}`,
        'error',
      );
    }
    return false;
  }
}

/**
 * A bunny's pages.jsonl line as its server writes it: as it came, under the id of the
 * crawler whose session sent it. The protocol checked it is a JSON object; the bunny
 * built it as a PageRecord.
 */
function sentLine(line: Readonly<Record<string, unknown>>, crawler: CrawlerId): PageRecord {
  return { ...line, crawler } as PageRecord;
}

/**
 * The lease ids of the stale completions, as the bunny spelled them: an id that is none of
 * ours (`"bogus"`, `" 17"`) matches no lease and comes back as it was sent, never as the
 * number it failed to be.
 */
function staleAsSent(sent: CompleteMessage['body']['completions'], stale: readonly number[]): string[] {
  const refused = new Set(stale);
  const out: string[] = [];
  for (const c of sent) {
    const id = idFromWire(c.lease);
    if (Number.isNaN(id) || refused.has(id)) out.push(c.lease);
  }
  return out;
}

function addressOf(c: Completion): string | null {
  return c.report?.address ?? null;
}

/** What CLAIMSITE carried of the site, as the module API's ModuleSite. */
function siteFrom(body: Bodies['CLAIMSITE']): ModuleSite {
  const s = body.site ?? {};
  const headers =
    typeof s.headers === 'object' && s.headers !== null ? (s.headers as Record<string, string>) : {};
  const robots =
    typeof s.robots === 'object' && s.robots !== null ? (s.robots as ModuleSite['robots']) : null;
  return { origin: body.origin, address: body.address, headers, robots };
}
