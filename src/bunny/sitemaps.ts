import type { RobotsSummary } from '../fetch/robots/robots-cache.js';
import { type LinkRules, type RoutedLinks, routeLinks } from './links.js';

/**
 * --sitemaps: the first time this crawler reaches a site, the sitemaps its robots.txt
 * names, or /sitemap.xml when it names none, join the links of that visit. They are
 * fetched like pages (politeness, limits, pages.jsonl) and read for URLs
 * (src/parse/sitemap.ts). Another crawler offering the same sitemaps changes nothing:
 * the seen set takes each URL once.
 */
export class SitemapFinder {
  private readonly met = new Set<string>();

  constructor(private readonly rules: LinkRules) {}

  /** The site's sitemaps, once per origin; null when it was met before. */
  linksFor(origin: string, robots: RobotsSummary | undefined): RoutedLinks | null {
    if (this.met.has(origin)) return null;
    this.met.add(origin);
    const named = robots?.sitemaps ?? [];
    const sitemaps = named.length > 0 ? named : [`${origin}/sitemap.xml`];
    // Sitemaps sit at depth 0 like seeds, so the pages they list are one hop away.
    const from = { url: `${origin}/robots.txt`, depth: -1 };
    return routeLinks(sitemaps, origin, from, this.rules, 'sitemap');
  }
}
