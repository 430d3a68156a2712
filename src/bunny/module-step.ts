import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import type { SiteFacts } from '../frontier/types.js';
import type { ModulePage, ModuleSite, PageFields } from '../modules/api.js';
import { lazyPage } from '../modules/lazy-page.js';
import type { EmittedRecord, ModuleHost } from '../modules/module-host.js';
import type { PageBatch, WirePage } from '../modules/protocol.js';
import { partOf } from '../output/packed-exchange.js';
import { originOf } from '../url/host.js';
import { packBuffers } from '../worker.js';
import { type LinkRules, type RoutedLinks, routeLinks } from './links.js';
import type { HookPage } from './page-processor.js';
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

/** What the modules made of a batch: plain data the crawl loop joins to its records and completions. */
export interface ModuleResults {
  /** Fields for the pages.jsonl lines, by the visit they belong to. */
  fields: Map<Visit, PageFields>;
  /** URLs the modules asked for, routed like links of the visit's page. */
  links: Map<Visit, RoutedLinks>;
  /** Sites whose hooks ran, with what they found, to be recorded. */
  sites: SiteFacts[];
  /**
   * What the modules emitted, when they have no data folder of their own (a bunny), by
   * the visit they belong to: a site's records go with the visit that found the site.
   */
  emitted: Map<Visit, EmittedRecord[]>;
}

/** A batch's pages, got ready for the modules before their bytes move on to the WARC thread. */
export interface PreparedPages {
  /** The visits that fetched a page, in batch order. */
  visits: Visit[];
  /** Those pages as the modules' thread takes them: pages[i] is visits[i]'s. */
  batch: PageBatch;
}

/**
 * The "modules" step, between parse and write: page hooks on every fetched page, site
 * hooks on each site the crawl loop claimed as new. It returns what the hooks found and
 * changes nothing itself.
 */
export class ModuleStep {
  /** Origins this crawler has met; only their first page can make a site new. */
  private readonly met = new Set<string>();

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
      if (this.met.has(origin)) return;
      this.met.add(origin);
      out.push(this.siteOf(origin, v, prepared.batch.pages[i] as WirePage));
    });
    return out;
  }

  /** Runs the hooks for a batch; `claimed` are the sites whose hooks this crawler runs. */
  async run(prepared: PreparedPages, claimed: readonly ModuleSite[]): Promise<ModuleResults> {
    const results: ModuleResults = { fields: new Map(), links: new Map(), sites: [], emitted: new Map() };
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
      results.fields.set(visit, verdict.fields);
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
    const before = results.links.get(visit);
    results.links.set(
      visit,
      before === undefined
        ? routed
        : {
            accepted: [...before.accepted, ...routed.accepted],
            rejected: [...before.rejected, ...routed.rejected],
            urls: [...before.urls, ...routed.urls],
          },
    );
  }
}

function emittedFor(visit: Visit, records: readonly EmittedRecord[], results: ModuleResults): void {
  if (records.length === 0) return;
  results.emitted.set(visit, [...(results.emitted.get(visit) ?? []), ...records]);
}

/** A module may add fields to a page's line, not rewrite what the crawl observed. */
const OBSERVED = new Set([
  'url',
  'status',
  'contentType',
  'bytes',
  'depth',
  'fetchedAt',
  'durationMs',
  'via',
  'error',
  'detail',
  'attempts',
  'crawler',
]);

/** Adds the modules' fields to a pages.jsonl line, leaving what the crawl observed as it was. */
export function joinFields(record: Record<string, unknown>, fields: PageFields): void {
  for (const [key, value] of Object.entries(fields)) {
    if (!OBSERVED.has(key)) record[key] = value;
  }
}
