import type { ResolvedWebOptions } from './options.js';
import { pageRandom, randomInt } from './prng.js';

/**
 * The fixed shape of one site of the realistic web, as a documentation site has it:
 * pages 1.. in sections, a top navigation with the first page of each of the first
 * sections, a footer of fixed pages. Every page of the site repeats the navigation and
 * the footer, and every page of a section repeats the section's sidebar.
 */
export interface SiteLayout {
  /** First page of each section, ascending; section s holds pages sectionStarts[s] .. next - 1. */
  sectionStarts: number[];
  /** Pages the top navigation links to, in order. */
  nav: number[];
  /** Pages the footer links to, in order. */
  footer: number[];
  /** The site has a search form in its header (on every page). */
  search: boolean;
  /** The language its pages say they are in. */
  lang: string;
}

// Section sizes are skewed, as real sites' are: many small sections, a few long ones.
const MIN_SECTION = 5;
const MAX_SECTION = 120;
const NAV_SECTIONS = 20;
const FOOTER_PAGES = 8;
const LANGS = ['en', 'en-US', 'de', 'fr'];

// Rendering asks for the layout on every request: it is built once per site and options.
const layouts = new WeakMap<ResolvedWebOptions, Map<number, SiteLayout>>();

export function siteLayout(opts: ResolvedWebOptions, hostIndex: number): SiteLayout {
  let bySite = layouts.get(opts);
  if (bySite === undefined) {
    bySite = new Map();
    layouts.set(opts, bySite);
  }
  let layout = bySite.get(hostIndex);
  if (layout === undefined) {
    layout = buildLayout(opts, hostIndex);
    bySite.set(hostIndex, layout);
  }
  return layout;
}

/** The section a page (>= 1) belongs to; the home page (0) belongs to none (-1). */
export function sectionOf(layout: SiteLayout, page: number): number {
  if (page === 0) return -1;
  const starts = layout.sectionStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] ?? 0) <= page) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The pages of a section, first to last. */
export function sectionPages(layout: SiteLayout, section: number, pagesPerHost: number): number[] {
  const first = layout.sectionStarts[section] ?? pagesPerHost;
  const end = layout.sectionStarts[section + 1] ?? pagesPerHost;
  return Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
}

function buildLayout(opts: ResolvedWebOptions, hostIndex: number): SiteLayout {
  // A stream no page uses: page indexes are never negative.
  const random = pageRandom(opts.seed, hostIndex, -1);
  const sectionStarts: number[] = [];
  for (let start = 1; start < opts.pagesPerHost; ) {
    sectionStarts.push(start);
    start += MIN_SECTION + Math.floor((MAX_SECTION - MIN_SECTION + 1) * random() ** 2);
  }
  const nav = [0, ...sectionStarts.slice(0, NAV_SECTIONS)];
  const footer: number[] = [];
  for (let i = 0; i < FOOTER_PAGES && opts.pagesPerHost > 1; i++) {
    footer.push(1 + randomInt(random, opts.pagesPerHost - 1));
  }
  return {
    sectionStarts,
    nav,
    footer,
    search: random() < 0.5,
    lang: LANGS[randomInt(random, LANGS.length)] ?? 'en',
  };
}
