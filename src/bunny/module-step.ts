import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import { RecentUrls } from '../frontier/recent-urls.js';
import type { SiteFacts } from '../frontier/types.js';
import type { ModulePage, ModuleSite } from '../modules/api.js';
import { lazyPage } from '../modules/lazy-page.js';
import type { EmittedRecord, ModuleHost } from '../modules/module-host.js';
import type { PageBatch, WirePage } from '../modules/protocol.js';
import { partOf } from '../output/packed-exchange.js';
import { originOf } from '../url/host.js';
import { packBuffers } from '../worker.js';
import { type LinkRules, routeLinks } from './links.js';
import type { HookPage } from './page-processor.js';
import type { ModuleAdditions } from './page-result.js';
import type { Visit } from './visit.js';

export interface ModuleStepParts {
  host: ModuleHost | null;
  /** Run site hooks here; false when the store's owner runs them (a cobweb server). */
  siteHooks?: boolean;
  robots: RobotsCache | null;
  rules: LinkRules;
  /** The library's own per-page callback, run on the crawl's thread. */
  onPage?: ((page: ModulePage) => unknown) | undefined;
}

/** What the modules made of a batch: plain data the crawl loop joins to its pages' results. */
export interface ModuleResults {
  /**
   * What the modules added to each visit's page (withModuleAdditions joins it): its
   * page hooks' fields, links and records, and those of the site hooks of the site it
   * found. A visit they added nothing to has none.
   */
  added: Map<Visit, ModuleAdditions>;
  /** Sites whose hooks ran, with what they found, to be recorded. */
  sites: SiteFacts[];
}

/** A batch's pages, got ready for the modules before their bytes move on to the WARC thread. */
export interface PreparedPages {
  /** The visits that fetched a page, in batch order. */
  visits: Visit[];
  /** Those pages as the modules' thread takes them: pages[i] is visits[i]'s. */
  batch: PageBatch;
}

/** Origins kept per generation (two are kept): a crawl's busy hosts stay met. */
const ORIGINS_PER_GENERATION = 16_384;

/**
 * The "modules" step, between parse and write: page hooks on every fetched page, site
 * hooks on each site the crawl loop claimed as new. It returns what the hooks found and
 * changes nothing itself.
 */
export class ModuleStep {
  /**
   * Origins this crawler met lately; only their first page can make a site new. The
   * store's claimSite is what decides, so forgetting one costs a question to it, not a
   * site hook run twice: two generations keep the memory flat over 10^5 sites and more.
   */
  private readonly met = new RecentUrls(ORIGINS_PER_GENERATION);

  constructor(private readonly parts: ModuleStepParts) {}

  /**
   * The batch's pages for the modules, their bodies copied into one buffer: null when no
   * visit fetched a page. Called before the batch's bytes move to the WARC thread.
   */
  prepare(batch: readonly Visit[]): PreparedPages | null {
    const visits = batch.filter((v) => v.page.page !== null);
    if (visits.length === 0) return null;
    const wantBodies = this.parts.onPage !== undefined || this.parts.host?.mayWantBodies === true;
    const bodies: Uint8Array[] = [];
    const owners: number[] = [];
    visits.forEach((v, i) => {
      const body = (v.page.page as HookPage).body;
      if (!wantBodies || body === null) return;
      bodies.push(partOf(body, body.body));
      owners.push(i);
    });
    const { packed, spans } = packBuffers(bodies);
    const pages: WirePage[] = visits.map((v) => ({ ...(v.page.page as HookPage).page, body: null }));
    owners.forEach((i, k) => {
      (pages[i] as WirePage).body = spans[k] ?? null;
    });
    return { visits, batch: { pages, packed } };
  }

  /**
   * Sites first met in this batch, with what this crawler knows of them: the crawl loop
   * asks the store which are new to the crawl (claimSite).
   */
  newSites(prepared: PreparedPages): ModuleSite[] {
    const out: ModuleSite[] = [];
    prepared.visits.forEach((v, i) => {
      const origin = originOf(v.lease.url);
      if (!this.met.add(origin)) return;
      out.push(this.siteOf(origin, v, prepared.batch.pages[i] as WirePage));
    });
    return out;
  }

  /** Runs the hooks for a batch; `claimed` are the sites whose hooks this crawler runs. */
  async run(prepared: PreparedPages, claimed: readonly ModuleSite[]): Promise<ModuleResults> {
    const results: ModuleResults = { added: new Map(), sites: [] };
    await Promise.all([
      this.pageHooks(prepared, results),
      this.parts.siteHooks === false ? null : this.siteHooks(prepared.visits, claimed, results),
      this.callback(prepared),
    ]);
    return results;
  }

  private async pageHooks(prepared: PreparedPages, results: ModuleResults): Promise<void> {
    const host = this.parts.host;
    if (host === null || !host.active) return;
    const verdicts = await host.onPages(prepared.batch);
    verdicts.forEach((verdict, i) => {
      const visit = prepared.visits[i] as Visit;
      additionsOf(visit, results).fields = verdict.fields;
      this.enqueue(visit, verdict.enqueue, results);
      emittedFor(visit, verdict.emitted, results);
    });
  }

  private async siteHooks(
    visits: readonly Visit[],
    claimed: readonly ModuleSite[],
    results: ModuleResults,
  ): Promise<void> {
    await Promise.all(
      claimed.map((site) => {
        const visit = visits.find((v) => originOf(v.lease.url) === site.origin);
        return visit === undefined ? null : this.newSite(site, visit, results);
      }),
    );
  }

  private siteOf(origin: string, visit: Visit, page: WirePage): ModuleSite {
    const summary = this.parts.robots?.summaryOf(origin);
    return {
      origin,
      address: visit.page.report.address ?? null,
      headers: page.headers,
      robots:
        summary === undefined
          ? null
          : {
              state: summary.state,
              status: summary.status,
              crawlDelayMs: summary.crawlDelayMs,
              sitemaps: summary.sitemaps,
            },
    };
  }

  private async newSite(site: ModuleSite, visit: Visit, results: ModuleResults): Promise<void> {
    const host = this.parts.host;
    const verdict = host?.active ? await host.onSite(site) : { info: {}, enqueue: [], emitted: [] };
    this.enqueue(visit, verdict.enqueue, results);
    emittedFor(visit, verdict.emitted, results);
    results.sites.push({
      origin: site.origin,
      address: site.address,
      firstSeen: Date.now(),
      info: verdict.info,
    });
  }

  private async callback(prepared: PreparedPages): Promise<void> {
    const onPage = this.parts.onPage;
    if (onPage === undefined) return;
    for (const wire of prepared.batch.pages) await onPage(lazyPage(wire, prepared.batch.packed));
  }

  /** URLs a module asked for take the link path, as links of the page it was given. */
  private enqueue(visit: Visit, urls: readonly string[], results: ModuleResults): void {
    if (urls.length === 0) return;
    const from = { url: visit.lease.url, depth: visit.lease.depth };
    const routed = routeLinks(urls, visit.lease.url, from, this.parts.rules);
    const added = additionsOf(visit, results);
    const before = added.links;
    added.links =
      before === undefined
        ? routed
        : {
            accepted: [...before.accepted, ...routed.accepted],
            rejected: [...before.rejected, ...routed.rejected],
          };
  }
}

/** What the modules added to the visit's page so far. */
function additionsOf(visit: Visit, results: ModuleResults): ModuleAdditions {
  let added = results.added.get(visit);
  if (added === undefined) {
    added = {};
    results.added.set(visit, added);
  }
  return added;
}

/** A site's records go with the visit that found the site, after the page's own. */
function emittedFor(visit: Visit, records: readonly EmittedRecord[], results: ModuleResults): void {
  if (records.length === 0) return;
  const added = additionsOf(visit, results);
  added.records = [...(added.records ?? []), ...records];
}
