import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import type { AddResult, Frontier } from '../frontier/types.js';
import { originOf } from '../url/host.js';
import { type LinkRules, routeLinks } from './links.js';

/**
 * --sitemaps: the first time the crawl reaches a site, queue the sitemaps its
 * robots.txt names, or /sitemap.xml when it names none. They are fetched like pages
 * (politeness, limits, pages.jsonl) and read for URLs (src/parse/sitemap.ts).
 */
export class SitemapDiscovery {
  private readonly seen = new Set<string>();

  constructor(
    private readonly frontier: Pick<Frontier, 'add'>,
    private readonly robots: RobotsCache | null,
    private readonly rules: LinkRules,
    private readonly record: (result: AddResult) => void,
  ) {}

  async onSite(url: string): Promise<void> {
    const origin = originOf(url);
    if (this.seen.has(origin)) return;
    this.seen.add(origin);
    const named = this.robots?.summaryOf(origin)?.sitemaps ?? [];
    const sitemaps = named.length > 0 ? named : [`${origin}/sitemap.xml`];
    // Sitemaps sit at depth 0 like seeds, so the pages they list are one hop away.
    const from = { url: `${origin}/robots.txt`, depth: -1 };
    const routed = routeLinks(sitemaps, origin, from, this.rules, 'sitemap');
    this.record(await this.frontier.add(routed.accepted, routed.rejected));
  }
}
