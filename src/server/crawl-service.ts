import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type LinkRules, refusal, routeLinks } from '../bunny/links.js';
import { refusedRecord } from '../bunny/page-processor.js';
import {
  completionFromWire,
  idFromWire,
  idOnWire,
  leaseToWire,
  linkFromWire,
  readyAtToWire,
  reportFromWire,
} from '../frontier/remote/wire.js';
import type { Completion, CrawlerId, Lease, LocalFrontier, PendingRecord } from '../frontier/types.js';
import type { ModuleSite } from '../modules/api.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { PageRecord, PagesLog } from '../output/pages-log.js';
import type { Bodies, JsonObject, WireRejected } from '../protocol/index.js';
import { canonicalize } from '../url/canonicalize.js';
import type { ProbabilityBackoff } from './backoff.js';
import type { SiteBook } from './site-book.js';

export interface ServiceParts {
  store: LocalFrontier;
  pages: PagesLog;
  /** `<data>/data`: the modules' records, one file per module. */
  moduleData: string;
  sites: SiteBook;
  /** The server's modules: site hooks, and the ones loadmod adds. */
  modules: ModuleHost;
  /** What ENQUEUE checks a URL against (scope, filters, traps). */
  rules: LinkRules;
  /** --skip-substring: the original's substring test (cgi-bin, /~). */
  skipSubstrings: readonly string[];
  backoff: ProbabilityBackoff;
  /** What WELCOME tells bunnies to use. */
  settings: JsonObject;
  leaseMs: number;
  log: (line: string) => void;
}

const MODULE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The crawl a cobweb server holds: its store, its pages.jsonl and module records, its
 * book of sites and its modules. Sessions (one per connection) turn packets into these
 * calls. The server is the one writer of the crawl's outputs: bunnies send their
 * pages.jsonl lines and module records with their completions, and the records of
 * refused URLs are written here, never sent back.
 */
export class CrawlService {
  constructor(private readonly parts: ServiceParts) {}

  get settings(): JsonObject {
    return this.parts.settings;
  }

  get leaseMs(): number {
    return this.parts.leaseMs;
  }

  get modules(): ModuleHost {
    return this.parts.modules;
  }

  get sites(): SiteBook {
    return this.parts.sites;
  }

  get store(): LocalFrontier {
    return this.parts.store;
  }

  register(name: string): Promise<CrawlerId> {
    return this.parts.store.registerCrawler(name);
  }

  leave(crawler: CrawlerId): Promise<void> {
    return this.parts.store.leave(crawler);
  }

  /**
   * Leases for a crawler, after the per-server back-off (--backoff): a URL it holds back
   * goes back to the queue at once, deferred, never dropped.
   */
  async lease(crawler: CrawlerId, n: number, waitMs: number): Promise<Bodies['LEASES']> {
    const batch = await this.parts.store.lease(n, crawler, { waitMs });
    const given: Lease[] = [];
    const held: Completion[] = [];
    for (const l of batch.leases) {
      if (this.parts.backoff.handOut(l.host)) given.push(l);
      else
        held.push({
          leaseId: l.id,
          outcome: { kind: 'deferred' },
          report: { fetchMs: 0, noRequest: true },
          outlinks: [],
          rejected: [],
        });
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

  async extend(body: Bodies['EXTEND']): Promise<Bodies['EXTENDED']> {
    const ids = body.leases.map(idFromWire);
    const held = new Set(await this.parts.store.extend(ids));
    const expiresAt = Date.now() + this.parts.leaseMs;
    return {
      leases: ids.filter((id) => held.has(id)).map((id) => ({ id: idOnWire(id), expiresAt })),
      stale: body.leases.filter((_, i) => !held.has(ids[i] as number)),
    };
  }

  /**
   * Completions, outputs first: the pages.jsonl lines and module records of the leases
   * the crawler still holds are written, then the store completes them in one step. A
   * completion of a lease gone to someone else writes nothing and comes back stale.
   */
  async complete(crawler: CrawlerId, body: Bodies['COMPLETE']): Promise<Bodies['COMPLETED']> {
    const completions = (body.completions as Parameters<typeof completionFromWire>[0][]).map(
      completionFromWire,
    );
    const held = new Set(await this.parts.store.extend(completions.map((c) => c.leaseId)));
    const lines: Record<string, unknown>[] = [];
    for (const c of completions) {
      if (!held.has(c.leaseId)) continue;
      if (c.record !== undefined && c.record !== null) {
        lines.push({ ...c.record, crawler });
        if (c.outcome.kind === 'done' && typeof c.record.url === 'string') {
          this.parts.sites.visited(c.record.url, addressOf(c));
        }
      }
      this.writeModuleRecords(c.moduleRecords ?? []);
    }
    this.parts.pages.append(lines as unknown as PageRecord[]);
    const done = await this.parts.store.complete(completions, crawler);
    await this.record(done.records, crawler);
    return { stale: done.stale.map(idOnWire), records: [], added: done.added };
  }

  async add(crawler: CrawlerId, body: Bodies['ADD']): Promise<Bodies['ADDED']> {
    const r = await this.parts.store.add(body.links.map(linkFromWire), body.rejected, crawler);
    await this.record(r.records, crawler);
    return { added: r.added, records: [] };
  }

  /**
   * CLAIMSITE: the first crawler to reach a site claims it; the site hooks run here, on
   * the server's module threads, with what the crawler sent of the site, and the site
   * is recorded before the answer goes.
   */
  async claimSite(crawler: CrawlerId, body: Bodies['CLAIMSITE']): Promise<boolean> {
    if (!(await this.parts.store.claimSite(body.origin, crawler))) return false;
    await this.runSiteHooks(siteFrom(body), crawler);
    return true;
  }

  async recordSite(body: Bodies['RECORDSITE']): Promise<void> {
    await this.parts.store.recordSite(body);
    this.parts.sites.addInfo(body.origin, body.address, body.info);
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
    const depth = from === null ? 0 : from.depth + 1;
    const via = from?.url ?? null;
    const rejected: WireRejected[] = [];
    const kept: string[] = [];
    for (const url of urls) {
      const c = canonicalize(url);
      if (!c.ok) continue;
      if (this.parts.skipSubstrings.some((s) => c.url.includes(s))) {
        rejected.push({ url: c.url, depth, via, reason: 'substring' });
      } else kept.push(c.url);
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
    const line = {
      url: lease.url,
      status: null,
      contentType: null,
      bytes: null,
      depth: lease.depth,
      title: null,
      outlinks: 0,
      hasForm: false,
      fetchedAt: new Date().toISOString(),
      durationMs: null,
      via: lease.via,
      crawler,
    };
    this.parts.pages.append([line]);
    this.parts.sites.visited(lease.url, address);
    await this.parts.store.complete(
      [{ leaseId: lease.id, outcome: { kind: 'done' }, report: { fetchMs: 0 }, outlinks: [], rejected: [] }],
      crawler,
    );
    const origin = new URL(lease.url).origin;
    if (await this.parts.store.claimSite(origin, crawler)) {
      // An original client tells nothing of the site but where it is.
      await this.runSiteHooks({ origin, address, headers: {}, robots: null }, crawler);
    }
  }

  /** READDATA: the sites of a log count as visited; their hooks do not run again. */
  async readLog(text: string): Promise<number> {
    const read = this.parts.sites.read(text);
    for (const site of read) {
      for (const origin of site.origins) {
        await this.parts.store.recordSite({
          origin,
          address: site.address,
          firstSeen: Date.now(),
          info: site.info,
        });
      }
    }
    return read.length;
  }

  /** Writes refused URLs' lines and tells the store they are written. */
  writeRecords(records: readonly PendingRecord[], crawler: CrawlerId): Promise<void> {
    return this.record(records, crawler);
  }

  private async record(records: readonly PendingRecord[], crawler: CrawlerId): Promise<void> {
    if (records.length === 0) return;
    this.parts.pages.append(records.map((r) => ({ ...refusedRecord(r), crawler })));
    await this.parts.store.acknowledge(records.map((r) => r.id));
  }

  private async runSiteHooks(site: ModuleSite, crawler: CrawlerId): Promise<void> {
    const verdict = await this.parts.modules.onSite(site);
    await this.parts.store.recordSite({
      origin: site.origin,
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

  private writeModuleRecords(records: readonly { module: string; record: Record<string, unknown> }[]): void {
    const byModule = new Map<string, string[]>();
    for (const { module, record } of records) {
      if (!MODULE_NAME.test(module)) continue;
      byModule.set(module, [...(byModule.get(module) ?? []), JSON.stringify(record)]);
    }
    if (byModule.size === 0) return;
    mkdirSync(this.parts.moduleData, { recursive: true });
    for (const [module, lines] of byModule) {
      appendFileSync(join(this.parts.moduleData, `${module}.jsonl`), `${lines.join('\n')}\n`);
    }
  }
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
