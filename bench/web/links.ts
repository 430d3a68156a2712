import { pagePath, pageUrl, type ResolvedWebOptions } from './options.js';
import { type Random, randomInt } from './prng.js';

export interface PageRef {
  hostIndex: number;
  pageIndex: number;
}

/** One `<a href>` of a page: what the HTML says and which page it leads to. */
export interface PlannedLink {
  href: string;
  text: string;
  /** The page the href resolves to (fragment dropped), or undefined when it leaves the web (mailto:). */
  target: PageRef | undefined;
}

/** The anchors of one page, grouped by where the renderer places them. */
export interface LinkPlan {
  nav: PlannedLink[];
  content: PlannedLink[];
  /** Exact repeats of content hrefs: real pages repeat links, and a crawler must not fetch twice. */
  duplicates: PlannedLink[];
  /** An address that is not http(s), which a crawler must skip. */
  mailto: PlannedLink | undefined;
}

const MAILTO_CHANCE = 0.2;

/**
 * Decides every link of a page. Both the renderer and reachable() use this one function,
 * so the HTML that is served and the expected crawl can never drift apart.
 * It must be called with a fresh pageRandom stream and consumes it in a fixed order.
 */
export function planLinks(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
  random: Random,
): LinkPlan {
  const targets = pickTargets(opts, hostIndex, pageIndex, random);
  const self: PageRef = { hostIndex, pageIndex };
  const firstSameHost = targets.findIndex((t) => t.hostIndex === hostIndex);
  const lastSameHost = targets.findLastIndex((t) => t.hostIndex === hostIndex);

  const content = targets.map((target, position): PlannedLink => {
    const text =
      target.hostIndex === hostIndex
        ? `Page ${target.pageIndex}`
        : `Site ${target.hostIndex} page ${target.pageIndex}`;
    let href: string;
    if (target.hostIndex !== hostIndex) {
      href = pageUrl(originAt(origins, target.hostIndex), target.pageIndex);
    } else if (position === firstSameHost) {
      href = relativeHref(pageIndex, target.pageIndex);
    } else if (position === lastSameHost) {
      href = `${pagePath(target.pageIndex)}#section-${1 + randomInt(random, 5)}`;
    } else {
      href = pagePath(target.pageIndex);
    }
    return { href, text, target };
  });

  const duplicateCount = content.length === 0 ? 0 : 1 + randomInt(random, 2);
  const duplicates: PlannedLink[] = [];
  for (let i = 0; i < duplicateCount; i++) {
    const original = content[randomInt(random, content.length)];
    if (original) duplicates.push({ ...original, text: `More: ${original.text}` });
  }

  const mailto =
    random() < MAILTO_CHANCE
      ? { href: `mailto:webmaster@site${hostIndex}.invalid`, text: 'Write to us', target: undefined }
      : undefined;

  const nav: PlannedLink[] = [
    { href: '/', text: 'Home', target: { hostIndex, pageIndex: 0 } },
    { href: '#top', text: 'Top', target: self },
  ];
  return { nav, content, duplicates, mailto };
}

/** Every anchor of a plan, in document order. */
export function allLinks(plan: LinkPlan): PlannedLink[] {
  const links = [...plan.nav, ...plan.content, ...plan.duplicates];
  if (plan.mailto) links.push(plan.mailto);
  return links;
}

/**
 * Tree links first (page i -> 2i+1, 2i+2) so every page hangs off its site root whatever
 * the random links do; then random links, some of them to other hosts.
 */
function pickTargets(
  opts: ResolvedWebOptions,
  hostIndex: number,
  pageIndex: number,
  random: Random,
): PageRef[] {
  const hostCount = opts.hosts.length;
  const wanted = opts.minLinks + randomInt(random, opts.maxLinks - opts.minLinks + 1);
  const targets: PageRef[] = [];
  for (const child of [2 * pageIndex + 1, 2 * pageIndex + 2]) {
    if (child < opts.pagesPerHost) targets.push({ hostIndex, pageIndex: child });
  }
  while (targets.length < wanted) {
    if (hostCount > 1 && random() < opts.crossHostRatio) {
      const other = (hostIndex + 1 + randomInt(random, hostCount - 1)) % hostCount;
      targets.push({ hostIndex: other, pageIndex: randomInt(random, opts.pagesPerHost) });
    } else {
      targets.push({ hostIndex, pageIndex: randomInt(random, opts.pagesPerHost) });
    }
  }
  return targets;
}

/** A document-relative href from one page of a site to another (pages live at '/' or '/p/<i>.html'). */
export function relativeHref(fromPage: number, toPage: number): string {
  if (fromPage === 0) return toPage === 0 ? './' : `p/${toPage}.html`;
  return toPage === 0 ? '../' : `${toPage}.html`;
}

function originAt(origins: readonly string[], hostIndex: number): string {
  const origin = origins[hostIndex];
  if (origin === undefined) throw new RangeError(`synthetic web: no origin for host ${hostIndex}`);
  return origin;
}
