// What a polite crawler seeded with the web's seeds must fetch: a BFS over the same link
// plans the server renders, honouring what the crawler's default rules honour. Dead hosts
// and robots.txt 5xx hosts give nothing; a disallowed page is not fetched and its links
// are not seen; a moved host's page is a redirect (the target keeps the depth, as cobweb
// counts redirects apart from hops); slow and flaky pages are fetched in the end.
import { LinkPlan, pageStream, planLinks } from './links.js';
import { DEAD, MOVED, type ScaleWeb } from './shape.js';

export interface Reach {
  /** 1 for each page (flat id) that must be answered 200 once. */
  pages: Uint8Array;
  count: number;
  /** Redirects (moved hosts' pages) the crawler meets on the way. */
  redirects: number;
  /** The deepest hop count a reachable page needs from a seed. */
  maxDepth: number;
}

/** cobweb's default --max-depth. */
export const DEFAULT_MAX_DEPTH = 50;

export function computeReach(web: ScaleWeb, maxDepth = DEFAULT_MAX_DEPTH): Reach {
  const total = web.totalPages;
  const visited = new Uint8Array(total);
  const pages = new Uint8Array(total);
  const depth = new Uint8Array(total);
  const queue = new Int32Array(total);
  const hostOfId = (id: number): number => {
    // The host whose range holds id: a binary search over the offsets.
    let low = 0;
    let high = web.o.hosts - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((web.offsets[middle] as number) <= id) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  let tail = 0;
  const visit = (host: number, page: number, d: number): void => {
    const id = (web.offsets[host] as number) + page;
    if (visited[id] === 1 || d > maxDepth) return;
    visited[id] = 1;
    depth[id] = d;
    queue[tail++] = id;
  };
  for (let s = 0; s < web.o.seedHosts; s++) visit(s, 0, 0);
  const plan = new LinkPlan();
  let count = 0;
  let redirects = 0;
  let deepest = 0;
  for (let head = 0; head < tail; head++) {
    const id = queue[head] as number;
    const host = hostOfId(id);
    const page = id - (web.offsets[host] as number);
    const d = depth[id] as number;
    if (web.has(host, DEAD) || !web.allowed(host, page)) continue;
    if (web.has(host, MOVED)) {
      redirects++;
      const target = web.movedTo(host, page);
      visit(target.host, target.page, d);
      continue;
    }
    pages[id] = 1;
    count++;
    deepest = Math.max(deepest, d);
    planLinks(web, host, page, pageStream(web, host, page), plan);
    for (let k = 0; k < plan.count; k++) visit(plan.hosts[k] as number, plan.pages[k] as number, d + 1);
  }
  return { pages, count, redirects, maxDepth: deepest };
}
