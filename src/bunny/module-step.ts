import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import type { Frontier, NewLink, RejectedLink } from '../frontier/types.js';
import type { ModulePage, ModuleSite } from '../modules/api.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { PageRecord } from '../output/pages-log.js';
import { originOf } from '../url/host.js';
import { type LinkRules, routeLinks } from './links.js';
import type { Visit } from './visit.js';

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
]);

export interface ModuleStepParts {
  host: ModuleHost | null;
  frontier: Pick<Frontier, 'knownSite' | 'recordSite'>;
  robots: RobotsCache | null;
  rules: LinkRules;
  /** The library's own per-page callback, run on the crawl's thread. */
  onPage?: ((page: ModulePage) => unknown) | undefined;
}

/**
 * DESIGN.md's "modules" step, between parse and write: page hooks on every fetched
 * page, site hooks on each new site. Their results join the batch before it is
 * written: fields into the pages.jsonl lines, enqueued URLs into the completions.
 */
export class ModuleStep {
  /** Origins met this run (whether new to the crawl is the store's to say). */
  private readonly met = new Set<string>();

  constructor(private readonly parts: ModuleStepParts) {}

  /** Runs the hooks for a batch; resolves once the batch's records and completions carry their results. */
  async run(batch: readonly Visit[]): Promise<void> {
    const visits = batch.filter((v) => v.page.page !== null);
    if (visits.length === 0) return;
    await Promise.all([this.pageHooks(visits), this.siteHooks(visits), this.callback(visits)]);
  }

  private async pageHooks(visits: readonly Visit[]): Promise<void> {
    const host = this.parts.host;
    if (host === null || !host.active) return;
    const verdicts = await host.onPages(visits.map((v) => v.page.page as ModulePage));
    verdicts.forEach((verdict, i) => {
      const visit = visits[i] as Visit;
      if (visit.page.record !== null) addFields(visit.page.record, verdict.fields);
      this.enqueue(visit, verdict.enqueue);
    });
  }

  private async siteHooks(visits: readonly Visit[]): Promise<void> {
    const firsts: Visit[] = [];
    for (const v of visits) {
      const origin = originOf(v.page.completion.url);
      if (this.met.has(origin)) continue;
      this.met.add(origin);
      firsts.push(v);
    }
    await Promise.all(firsts.map((v) => this.newSite(v)));
  }

  /**
   * A site's hooks run once across the whole crawl: the store remembers sites, and
   * records one only after its hooks ran, so a crash in between runs them again
   * rather than never.
   */
  private async newSite(visit: Visit): Promise<void> {
    const page = visit.page.page as ModulePage;
    const origin = originOf(page.url);
    if (await this.parts.frontier.knownSite(origin)) return;
    const summary = this.parts.robots?.summaryOf(origin);
    const site: ModuleSite = {
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
    const host = this.parts.host;
    const verdict = host?.active ? await host.onSite(site) : { info: {}, enqueue: [] };
    this.enqueue(visit, verdict.enqueue);
    await this.parts.frontier.recordSite({
      origin,
      address: site.address,
      firstSeen: Date.now(),
      info: verdict.info,
    });
  }

  private async callback(visits: readonly Visit[]): Promise<void> {
    const onPage = this.parts.onPage;
    if (onPage === undefined) return;
    for (const v of visits) await onPage(v.page.page as ModulePage);
  }

  /** URLs a module asked for take the link path, as links of the page it was given. */
  private enqueue(visit: Visit, urls: readonly string[]): void {
    if (urls.length === 0) return;
    const completion = visit.page.completion;
    const from = { url: completion.url, depth: (visit.page.page as ModulePage).depth };
    const routed = routeLinks(urls, completion.url, from, this.parts.rules);
    completion.outlinks = [...completion.outlinks, ...routed.accepted] as NewLink[];
    completion.rejected = [...completion.rejected, ...routed.rejected] as RejectedLink[];
  }
}

function addFields(record: PageRecord, fields: Record<string, unknown>): void {
  const target = record as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (!OBSERVED.has(key)) target[key] = value;
  }
}
