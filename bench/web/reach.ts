import { allLinks, type PlannedLink, planLinks } from './links.js';
import { isDocsProfile, pageUrl, type ResolvedWebOptions } from './options.js';
import { pageRandom } from './prng.js';
import { allRealisticLinks, planRealisticLinks } from './realistic-links.js';

/** Every link a page of either profile carries, in document order, as its HTML has them. */
export function linksOf(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  host: number,
  page: number,
): PlannedLink[] {
  const random = pageRandom(opts.seed, host, page);
  return isDocsProfile(opts.profile)
    ? allRealisticLinks(planRealisticLinks(opts, origins, host, page, random))
    : allLinks(planLinks(opts, origins, host, page, random));
}

/** Every page URL of the web, site by site, in canonical form. */
export function allPageUrls(opts: ResolvedWebOptions, origins: readonly string[]): string[] {
  const urls: string[] = [];
  for (const origin of origins) {
    for (let page = 0; page < opts.pagesPerHost; page++) urls.push(pageUrl(origin, page));
  }
  return urls;
}

/**
 * The pages a crawler seeded with every site's '/' must end up with: a BFS over the same
 * link plans the server renders. Returned in BFS visit order, canonical form.
 */
export function computeReachable(opts: ResolvedWebOptions, origins: readonly string[]): string[] {
  const pagesPerHost = opts.pagesPerHost;
  // One flat id per page (host * pagesPerHost + page): 20k pages fit in a few typed arrays.
  const visited = new Uint8Array(origins.length * pagesPerHost);
  const queue = new Int32Array(origins.length * pagesPerHost);
  let tail = 0;
  for (let host = 0; host < origins.length; host++) {
    const id = host * pagesPerHost;
    visited[id] = 1;
    queue[tail++] = id;
  }
  const urls: string[] = [];
  for (let head = 0; head < tail; head++) {
    const id = queue[head] ?? 0;
    const host = Math.floor(id / pagesPerHost);
    const page = id % pagesPerHost;
    urls.push(pageUrl(origins[host] ?? '', page));
    for (const link of linksOf(opts, origins, host, page)) {
      if (!link.target) continue;
      const targetId = link.target.hostIndex * pagesPerHost + link.target.pageIndex;
      if (visited[targetId] === 1) continue;
      visited[targetId] = 1;
      queue[tail++] = targetId;
    }
  }
  return urls;
}
