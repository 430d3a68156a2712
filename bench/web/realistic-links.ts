import { type PageRef, type PlannedLink, relativeHref } from './links.js';
import { pagePath, pageUrl, type ResolvedWebOptions } from './options.js';
import { type Random, randomInt } from './prng.js';
import { type SiteLayout, sectionOf, sectionPages, siteLayout } from './realistic-site.js';

/** The links of one realistic page, grouped by where the renderer places them. */
export interface RealisticPlan {
  layout: SiteLayout;
  section: number;
  /** `<link rel="canonical|prev|next">` in the head: pages a crawler follows too. */
  head: { rel: string; link: PlannedLink }[];
  /** The site's top navigation: the same on every page of the site. */
  nav: PlannedLink[];
  /**
   * The section's pages: the same on every page of the section (the home page lists
   * sections). On the link-heavy web, the site's contents: the same on every page.
   */
  sidebar: PlannedLink[];
  breadcrumbs: PlannedLink[];
  /** A section's first page lists the section's pages again ("in this section"). */
  overview: PlannedLink[];
  content: PlannedLink[];
  /** Exact repeats of content hrefs ("see also"). */
  duplicates: PlannedLink[];
  /** The site's footer: the same on every page, links that leave the web included. */
  footer: PlannedLink[];
  mailto: PlannedLink | undefined;
}

const MIN_RANDOM_LINKS = 3;
const MAX_RANDOM_LINKS = 25;
const MAX_HOME_SECTIONS = 120;
// With the top navigation (21) and the footer (12): about 100 links every page of a site shares.
const SHARED_CONTENTS = 70;
const MAILTO_CHANCE = 0.2;
// Out of the crawl's scope (and never resolvable): a crawler must refuse them, not fetch them.
const EXTERNAL = [
  'https://github.invalid/cobweb-bench/docs',
  'https://social.invalid/@cobweb',
  'https://status.invalid/',
  'https://cdn.invalid/assets/manual.html',
];

/**
 * Decides every link of a realistic page. The renderer and reachable() both use it, as
 * planLinks for the small web; it consumes the page's random stream in a fixed order.
 */
export function planRealisticLinks(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
  random: Random,
): RealisticPlan {
  const layout = siteLayout(opts, hostIndex);
  const section = sectionOf(layout, pageIndex);
  const here = (page: number, text: string): PlannedLink => ({
    href: pagePath(page),
    text,
    target: { hostIndex, pageIndex: page },
  });
  const pages = opts.pagesPerHost;

  const head = [{ rel: 'canonical', link: here(pageIndex, '') }];
  if (pageIndex > 0) head.push({ rel: 'prev', link: here(pageIndex - 1, '') });
  if (pageIndex + 1 < pages) head.push({ rel: 'next', link: here(pageIndex + 1, '') });

  const nav = layout.nav.map((page, i) => here(page, i === 0 ? 'Home' : `Section ${i - 1}`));
  const linkHeavy = opts.profile === 'link-heavy';
  const sidebar = linkHeavy
    ? sharedContents(layout, pages).map((page) => ({
        href: relativeHref(pageIndex, page),
        text: topicOf(page),
        target: { hostIndex, pageIndex: page },
      }))
    : section === -1
      ? layout.sectionStarts.slice(0, MAX_HOME_SECTIONS).map((page, s) => here(page, `Section ${s}`))
      : sectionPages(layout, section, pages).map((page) => here(page, topicOf(page)));
  const breadcrumbs = [here(0, 'Docs')];
  const first = layout.sectionStarts[section];
  if (first !== undefined) breadcrumbs.push(here(first, `Section ${section}`));

  // The link-heavy site's contents already list every section on every page.
  const overview =
    first === pageIndex && !linkHeavy
      ? sectionPages(layout, section, pages).map((page) => here(page, topicOf(page)))
      : [];
  const content = contentLinks(opts, origins, hostIndex, pageIndex, random);
  const duplicates: PlannedLink[] = [];
  const duplicateCount = 1 + randomInt(random, 2);
  for (let i = 0; i < duplicateCount && content.length > 0; i++) {
    const original = content[randomInt(random, content.length)];
    if (original) duplicates.push({ ...original, text: `See also: ${original.text}` });
  }
  const footer = [
    ...layout.footer.map((page) => here(page, topicOf(page))),
    ...EXTERNAL.map((href) => ({ href, text: new URL(href).hostname, target: undefined })),
  ];
  const mailto =
    random() < MAILTO_CHANCE
      ? { href: `mailto:docs@site${hostIndex}.invalid`, text: 'Write to us', target: undefined }
      : undefined;
  return { layout, section, head, nav, sidebar, breadcrumbs, overview, content, duplicates, footer, mailto };
}

/** Every link of a plan a crawler may follow or must skip, in document order. */
export function allRealisticLinks(plan: RealisticPlan): PlannedLink[] {
  const links = [
    ...plan.head.map((h) => h.link),
    ...plan.nav,
    ...plan.sidebar,
    ...plan.breadcrumbs,
    ...plan.overview,
    ...plan.content,
    ...plan.duplicates,
    ...plan.footer,
  ];
  if (plan.mailto) links.push(plan.mailto);
  return links;
}

/**
 * The link-heavy site's table of contents, on every page: each section's first two pages,
 * in order, SHARED_CONTENTS of them at most.
 */
export function sharedContents(layout: SiteLayout, pagesPerHost: number): number[] {
  const pages: number[] = [];
  const starts = layout.sectionStarts;
  for (let s = 0; s < starts.length && pages.length < SHARED_CONTENTS; s++) {
    const first = starts[s] ?? pagesPerHost;
    const end = starts[s + 1] ?? pagesPerHost;
    for (let page = first; page < Math.min(end, first + 2) && pages.length < SHARED_CONTENTS; page++) {
      pages.push(page);
    }
  }
  return pages;
}

export function topicOf(page: number): string {
  return `Topic ${page}`;
}

/**
 * The article's own links: the page's tree children (so every page hangs off its site's
 * home whatever the rest does), previous and next, an anchor on the page itself, and a
 * few random pages, some on other sites; spelled relative, root-relative, absolute and
 * with fragments, as pages spell them.
 */
function contentLinks(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
  random: Random,
): PlannedLink[] {
  const pages = opts.pagesPerHost;
  const targets: PageRef[] = [];
  for (const page of [2 * pageIndex + 1, 2 * pageIndex + 2, pageIndex - 1, pageIndex + 1]) {
    if (page >= 0 && page < pages && page !== pageIndex) targets.push({ hostIndex, pageIndex: page });
  }
  const wanted = MIN_RANDOM_LINKS + randomInt(random, MAX_RANDOM_LINKS - MIN_RANDOM_LINKS + 1);
  for (let i = 0; i < wanted; i++) {
    const hosts = opts.hosts.length;
    const other = hosts > 1 && random() < opts.crossHostRatio;
    const target = other ? (hostIndex + 1 + randomInt(random, hosts - 1)) % hosts : hostIndex;
    targets.push({ hostIndex: target, pageIndex: randomInt(random, pages) });
  }
  const links = targets.map((target, position): PlannedLink => {
    const text = target.hostIndex === hostIndex ? topicOf(target.pageIndex) : `Site ${target.hostIndex} docs`;
    let href: string;
    if (target.hostIndex !== hostIndex) href = pageUrl(origins[target.hostIndex] ?? '', target.pageIndex);
    else if (position === 0) href = relativeHref(pageIndex, target.pageIndex);
    else if (position === targets.length - 1) href = `${pagePath(target.pageIndex)}#usage`;
    else href = pagePath(target.pageIndex);
    return { href, text, target };
  });
  links.push({ href: '#top', text: 'Back to top', target: { hostIndex, pageIndex } });
  return links;
}
