import type { NewLink, RejectedLink, UrlKind } from '../frontier/types.js';
import { canonicalize } from '../url/canonicalize.js';
import { createUrlFilter, type FilterReason, type UrlFilterOptions } from '../url/filter.js';
import { type TrapLimits, trapOf } from '../url/traps.js';

export interface LinkRules {
  /** Scope, include/exclude and extension filter over canonical URLs (src/url/filter.ts). */
  filter: (canonicalUrl: string) => FilterReason | null;
  traps: TrapLimits;
  maxDepth: number;
  maxRedirects: number;
  /** What the rules were made from (plain data): a parse worker makes the same rules from it. */
  spec?: LinkRulesSpec;
}

/** Link rules as plain data, which can cross to another thread. */
export interface LinkRulesSpec {
  filter: UrlFilterOptions;
  traps: TrapLimits;
  maxDepth: number;
  maxRedirects: number;
}

export function linkRulesFrom(spec: LinkRulesSpec): LinkRules {
  return {
    filter: createUrlFilter(spec.filter),
    traps: spec.traps,
    maxDepth: spec.maxDepth,
    maxRedirects: spec.maxRedirects,
    spec,
  };
}

/** Links found on one page (or by a module), sorted into what to queue and what to record as refused. */
export interface RoutedLinks {
  accepted: NewLink[];
  rejected: RejectedLink[];
  /** Distinct http(s) URLs among the input, accepted or not (canonical): the page's outlinks. */
  urls: string[];
}

/**
 * canonicalize -> filter, the first two steps every discovered URL takes (docs/architecture.md,
 * "The data flow"); the frontier does the seen check. Unsupported schemes
 * (mailto:, javascript:, ...) and unparseable hrefs are dropped silently; a URL that
 * is too long is refused and recorded.
 */
export function routeLinks(
  hrefs: Iterable<string>,
  base: string,
  from: { url: string; depth: number; redirects?: number; kind?: UrlKind },
  rules: LinkRules,
  how: 'link' | 'redirect' | 'sitemap' | 'requisite' = 'link',
): RoutedLinks {
  const seen = new Set<string>();
  const accepted: NewLink[] = [];
  const rejected: RejectedLink[] = [];
  // A redirect is not a hop away from the page: its target keeps the depth and counts
  // redirects instead, so `--max-depth` and the redirect limit each bound their own thing.
  const depth = how === 'redirect' ? from.depth : from.depth + 1;
  const redirects = how === 'redirect' ? (from.redirects ?? 0) + 1 : 0;
  // A redirected sitemap is still a sitemap, a redirected requisite still a requisite.
  const kind: UrlKind =
    how === 'sitemap' || how === 'requisite' ? how : how === 'redirect' ? (from.kind ?? 'page') : 'page';
  for (const href of hrefs) {
    const c = canonicalize(href, base);
    if (!c.ok) {
      if (c.reason === 'too-long' && !seen.has(c.input)) {
        seen.add(c.input);
        const { url, reason } = tooLong(c.input, base, rules);
        rejected.push({ url: url.slice(0, 4096), depth, via: from.url, reason });
      }
      continue;
    }
    const url = c.url;
    if (seen.has(url)) continue;
    seen.add(url);
    const reason = refusal(url, depth, redirects, kind, rules);
    if (reason === null) accepted.push({ url, depth, via: from.url, redirects, kind });
    else rejected.push({ url, depth, via: from.url, reason });
  }
  return { accepted, rejected, urls: [...seen] };
}

/**
 * A URL over the length limit, as its refusal is recorded: absolute (the href resolved
 * against the page), and out of scope when its host is (an off-site link is the other
 * site's business, whatever its length), else too long.
 */
export function tooLong(
  raw: string,
  base: string,
  rules: Pick<LinkRules, 'filter'>,
): { url: string; reason: string } {
  const url = URL.parse(raw, base);
  if (url === null) return { url: raw, reason: 'too-long' };
  return { url: url.href, reason: rules.filter(url.href) === 'scope' ? 'scope' : 'too-long' };
}

/** Why the rules refuse a canonical URL found at this depth, or null: the filter every link passes. */
export function refusal(
  url: string,
  depth: number,
  redirects: number,
  kind: UrlKind,
  rules: LinkRules,
): string | null {
  const filtered = rules.filter(url);
  // A sitemap is often `sitemap.xml.gz`, a requisite `.css` or `.png`: the extension
  // filter is about pages, not them.
  if (filtered !== null && !(kind !== 'page' && filtered === 'extension')) return filtered;
  const trap = trapOf(url, rules.traps);
  if (trap !== null) return trap;
  // A page at the last depth is still shown whole (wget -p does the same).
  if (depth > rules.maxDepth && kind !== 'requisite') return 'depth';
  if (redirects > rules.maxRedirects) return 'redirects';
  return null;
}

/** The distinct http(s) URLs the hrefs name: a page's outlinks, followed or not. */
export function distinctUrls(hrefs: Iterable<string>, base: string): string[] {
  const seen = new Set<string>();
  for (const href of hrefs) {
    const c = canonicalize(href, base);
    seen.add(c.ok ? c.url : c.reason === 'too-long' ? c.input : '');
  }
  seen.delete('');
  return [...seen];
}
