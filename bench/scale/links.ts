// Every link of one page of the scale web, decided from the page's own random stream. The
// renderer (page.ts) and the reachable set (reach.ts) both call planLinks, so the links a
// crawler sees and the links the BFS follows are the same; hrefs are spelled only when
// rendering. A plan is written into reusable typed arrays: the BFS plans 10^6 pages.
import { pageRandom, type Random, randomInt } from '../web/prng.js';
import { pagePath, type ScaleWeb } from './shape.js';

/**
 * How an href is written: all of them canonicalize to the target's one URL.
 * Path `/p/7.html`; DotRelative `./7.html` (a `./` segment); Fragment `/p/7.html#s2`;
 * Absolute `http://h3.scale.test/p/7.html`; UpperHost `http://H3.SCALE.TEST/...`;
 * DefaultPort `http://h3.scale.test:80/...` (when the web is on port 80).
 */
export const Spelling = {
  Path: 0,
  DotRelative: 1,
  Fragment: 2,
  Absolute: 3,
  UpperHost: 4,
  DefaultPort: 5,
} as const;

const MIN_LINKS = 50;
const MAX_LINKS = 150;
const NAV_PAGES = 12;
const FOOTER_LOCAL = 4;
const FOOTER_PARTNERS = 3;

export class LinkPlan {
  readonly hosts = new Int32Array(MAX_LINKS);
  readonly pages = new Int32Array(MAX_LINKS);
  readonly spellings = new Uint8Array(MAX_LINKS);
  count = 0;
  /** Links [0, navEnd) are the site's navigation, [navEnd, footerEnd) its footer, the rest the article's. */
  navEnd = 0;
  footerEnd = 0;

  push(host: number, page: number, spelling: number): void {
    if (this.count === MAX_LINKS) return;
    this.hosts[this.count] = host;
    this.pages[this.count] = page;
    this.spellings[this.count] = spelling;
    this.count++;
  }
}

/** The page's stream: the renderer goes on drawing from it after the plan, for its text. */
export function pageStream(web: ScaleWeb, host: number, page: number): Random {
  return pageRandom(web.o.seed, host, page);
}

/**
 * 50 to 150 links: the site's navigation and footer (the same on every page of the host,
 * a few partner sites in the footer), the page's tree children (so every page hangs off
 * its home), previous and next, then random pages, a host-dependent share of them on
 * other hosts picked by a Zipf law (half their home pages).
 */
export function planLinks(web: ScaleWeb, host: number, page: number, random: Random, plan: LinkPlan): void {
  plan.count = 0;
  const size = web.size(host);
  const wanted = MIN_LINKS + randomInt(random, MAX_LINKS - MIN_LINKS + 1);
  for (let k = 0; k < NAV_PAGES; k++) {
    const target = Math.floor((k * size) / NAV_PAGES);
    if (k === 0 || target > Math.floor(((k - 1) * size) / NAV_PAGES)) plan.push(host, target, Spelling.Path);
  }
  plan.navEnd = plan.count;
  // The footer comes from the host's stream: the same on every page.
  const site = pageRandom(web.o.seed, host, -3);
  for (let k = 0; k < FOOTER_LOCAL; k++) plan.push(host, randomInt(site, size), Spelling.Path);
  for (let k = 0; k < FOOTER_PARTNERS; k++) plan.push(otherHost(web, host, site), 0, Spelling.Absolute);
  plan.footerEnd = plan.count;
  for (const child of [2 * page + 1, 2 * page + 2, page - 1, page + 1]) {
    if (child >= 0 && child < size && child !== page) plan.push(host, child, spellingOf(random));
  }
  const crossShare = (web.crossShare[host] as number) / 256;
  while (plan.count < wanted) {
    if (random() < crossShare) {
      const other = otherHost(web, host, random);
      plan.push(other, random() < 0.5 ? 0 : randomInt(random, web.size(other)), spellingOf(random));
    } else {
      plan.push(host, randomInt(random, size), spellingOf(random));
    }
  }
}

function otherHost(web: ScaleWeb, host: number, random: Random): number {
  const picked = web.zipfHost(random);
  return picked === host ? (host + 1) % web.o.hosts : picked;
}

/** Mostly root-relative paths, as pages write them; the rest in the other spellings. */
function spellingOf(random: Random): number {
  const draw = random();
  if (draw < 0.7) return Spelling.Path;
  if (draw < 0.8) return Spelling.DotRelative;
  if (draw < 0.88) return Spelling.Fragment;
  if (draw < 0.93) return Spelling.Absolute;
  if (draw < 0.97) return Spelling.UpperHost;
  return Spelling.DefaultPort;
}

/** The href of link `k` of a plan for page `from` of `host`, as the page writes it. */
export function hrefOf(
  web: ScaleWeb,
  port: number,
  host: number,
  from: number,
  plan: LinkPlan,
  k: number,
): string {
  const target = plan.hosts[k] as number;
  const page = plan.pages[k] as number;
  const spelling = plan.spellings[k] as number;
  const path = pagePath(page);
  const name = web.hostName(target);
  const portPart = port === 80 ? '' : `:${port}`;
  if (spelling === Spelling.UpperHost) return `http://${name.toUpperCase()}${portPart}${path}`;
  if (spelling === Spelling.DefaultPort) return `http://${name}:${port}${path}`;
  if (target !== host || spelling === Spelling.Absolute) {
    return `http://${name}${portPart}${path}${spelling === Spelling.Fragment ? `#s${k}` : ''}`;
  }
  if (spelling === Spelling.Fragment) return `${path}#s${k}`;
  if (spelling === Spelling.DotRelative) {
    if (from === 0) return page === 0 ? './' : `./p/${page}.html`;
    return page === 0 ? '../' : `./${page}.html`;
  }
  return path;
}
