/**
 * 'small': pages of about pageBytes with minLinks to maxLinks links each, all of them
 * content links (the first benchmark web). 'realistic': pages shaped like a documentation
 * site's (web/realistic-*.ts): 5 to 150 KB, median about 20 KB, 50 to 300 links, most of
 * them the same navigation on every page of a site; pageBytes, minLinks and maxLinks do
 * not apply. 'link-heavy': the realistic pages with one table of contents the whole site
 * shares, written with relative hrefs as documentation generators write them (`12.html`),
 * instead of a sidebar per section: 115 to 150 links on every page, about 100 of them the
 * same on every page of the site.
 */
export type WebProfile = 'small' | 'realistic' | 'link-heavy';

export const WEB_PROFILES: readonly WebProfile[] = ['small', 'realistic', 'link-heavy'];

/** The profiles rendered by web/realistic-*.ts: documentation-like pages. */
export function isDocsProfile(profile: WebProfile): boolean {
  return profile === 'realistic' || profile === 'link-heavy';
}

export interface SyntheticWebOptions {
  /** Loopback addresses to listen on, one site each, e.g. ['127.0.0.2', '127.0.0.3']. */
  hosts: readonly string[];
  pagesPerHost: number;
  /** Default 'small'. */
  profile?: WebProfile;
  /** Approximate HTML size in bytes; default 3000. */
  pageBytes?: number;
  /** Fewest distinct link targets per page; default 10. */
  minLinks?: number;
  /** Most distinct link targets per page; default 20. */
  maxLinks?: number;
  /** Share of the random links that point to another host; default 0.1. */
  crossHostRatio?: number;
  /** PRNG seed; default 1. */
  seed?: number;
}

export type ResolvedWebOptions = Required<SyntheticWebOptions>;

export function resolveOptions(opts: SyntheticWebOptions): ResolvedWebOptions {
  const resolved: ResolvedWebOptions = {
    hosts: opts.hosts,
    pagesPerHost: opts.pagesPerHost,
    profile: opts.profile ?? 'small',
    pageBytes: opts.pageBytes ?? 3000,
    minLinks: opts.minLinks ?? 10,
    maxLinks: opts.maxLinks ?? 20,
    crossHostRatio: opts.crossHostRatio ?? 0.1,
    seed: opts.seed ?? 1,
  };
  if (!WEB_PROFILES.includes(resolved.profile)) {
    throw new RangeError(
      `synthetic web: profile must be one of ${WEB_PROFILES.join(', ')}, got '${resolved.profile}'`,
    );
  }
  if (resolved.hosts.length === 0) throw new RangeError('synthetic web: at least one host is needed');
  if (!Number.isInteger(resolved.pagesPerHost) || resolved.pagesPerHost < 1) {
    throw new RangeError('synthetic web: pagesPerHost must be an integer >= 1');
  }
  if (!Number.isInteger(resolved.minLinks) || !Number.isInteger(resolved.maxLinks)) {
    throw new RangeError('synthetic web: minLinks and maxLinks must be integers');
  }
  if (resolved.minLinks < 0 || resolved.maxLinks < resolved.minLinks) {
    throw new RangeError('synthetic web: need 0 <= minLinks <= maxLinks');
  }
  if (!(resolved.crossHostRatio >= 0 && resolved.crossHostRatio <= 1)) {
    throw new RangeError('synthetic web: crossHostRatio must be within [0, 1]');
  }
  return resolved;
}

/** Page 0 is the site root; the others live under /p/. */
export function pagePath(pageIndex: number): string {
  return pageIndex === 0 ? '/' : `/p/${pageIndex}.html`;
}

/** The inverse of pagePath, or undefined for any path that is not a page of a site that size. */
export function pageIndexOfPath(path: string, pagesPerHost: number): number | undefined {
  if (path === '/') return 0;
  // No leading zeros and no query: exactly one spelling per page, so the URL set stays exact.
  const match = /^\/p\/([1-9][0-9]{0,8})\.html$/.exec(path);
  if (!match?.[1]) return undefined;
  const index = Number(match[1]);
  return index < pagesPerHost ? index : undefined;
}

/** The canonical URL of a page: origin + path, the form `new URL(...).href` produces. */
export function pageUrl(origin: string, pageIndex: number): string {
  return origin + pagePath(pageIndex);
}

export function pageTitle(hostIndex: number, pageIndex: number): string {
  return `Site ${hostIndex} - Page ${pageIndex}`;
}
