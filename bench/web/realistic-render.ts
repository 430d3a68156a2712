import type { PlannedLink } from './links.js';
import { codeText, loremText } from './lorem.js';
import { pageTitle, type ResolvedWebOptions } from './options.js';
import { type Random, randomInt } from './prng.js';
import { planRealisticLinks, type RealisticPlan } from './realistic-links.js';

const MEDIAN_BYTES = 20_000;
// ln-normal spread: about 1 page in 6 is over 40 KB, 1 in 500 reaches the 150 KB cap.
const SIGMA = 0.7;
const MIN_BYTES = 5_000;
const MAX_BYTES = 150_000;

/**
 * The HTML of one realistic page: a documentation page, with a head full of metadata,
 * scripts and styles, a header (a search form on some sites), the site's navigation, the
 * section's sidebar, an article of text, code, lists and tables, and a footer.
 */
export function renderRealisticPage(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
  random: Random,
): string {
  const plan = planRealisticLinks(opts, origins, hostIndex, pageIndex, random);
  const title = pageTitle(hostIndex, pageIndex);
  const target = pageSize(random);
  const parts = [
    headOf(plan, title, random),
    chrome(opts, hostIndex, plan).header,
    sidebarOf(opts, hostIndex, plan),
    `<main class="content">\n<ol class="breadcrumbs">${plan.breadcrumbs.map((l) => `<li>${anchor(l)}</li>`).join('')}</ol>\n`,
    `<article>\n<h1 id="top">${title}</h1>\n`,
    ...(plan.overview.length === 0
      ? []
      : [
          `<h2>In this section</h2>\n<ul class="overview">${plan.overview.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul>\n`,
        ]),
    ...articleOf(plan, random),
  ];
  if (plan.duplicates.length > 0) {
    parts.push(
      `<aside class="see-also"><h2>See also</h2><ul>${plan.duplicates.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul></aside>\n`,
    );
  }
  const tail = `</article>\n</main>\n</div>\n${chrome(opts, hostIndex, plan).footer}${plan.mailto ? `<p class="contact">${anchor(plan.mailto)}</p>\n` : ''}</body>\n</html>\n`;
  let size = parts.reduce((sum, part) => sum + part.length, tail.length);
  for (let block = 0; target - size > 40; block++) {
    const piece = filler(random, block, Math.min(1200, target - size));
    parts.push(piece);
    size += piece.length;
  }
  parts.push(tail);
  return parts.join('');
}

/** 5 to 150 KB, median 20 KB: ln-normal (Box-Muller), clipped. */
function pageSize(random: Random): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.round(Math.min(MAX_BYTES, Math.max(MIN_BYTES, MEDIAN_BYTES * Math.exp(SIGMA * z))));
}

function headOf(plan: RealisticPlan, title: string, random: Random): string {
  const config = JSON.stringify({
    search: plan.layout.search,
    version: `${1 + randomInt(random, 9)}.${randomInt(random, 20)}`,
    strings: loremText(random, 400 + randomInt(random, 1200)).split(' '),
  });
  return [
    `<!DOCTYPE html>\n<html lang="${plan.layout.lang}">\n<head>\n<meta charset="utf-8">\n`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    `<title>${title}</title>\n`,
    `<meta name="description" content="${loremText(random, 140)}">\n`,
    `<meta property="og:title" content="${title}">\n<meta property="og:type" content="article">\n`,
    ...plan.head.map(({ rel, link }) => `<link rel="${rel}" href="${link.href}">\n`),
    '<link rel="stylesheet" href="/assets/site.css">\n<link rel="icon" href="/favicon.ico">\n',
    '<link rel="preload" href="/assets/font.woff2" as="font" crossorigin>\n',
    '<script src="/assets/app.js" defer></script>\n',
    `<script>window.__DOCS__ = ${config};</script>\n`,
    '<style>.sidebar{width:16rem}.content{max-width:48rem}.nav-item>a{padding:.25rem}</style>\n',
    '</head>\n<body class="docs">\n',
  ].join('');
}

interface Chrome {
  header: string;
  footer: string;
  sidebars: Map<number, string>;
}

// The parts every page of a site (or section) repeats are rendered once, as a site's
// templates would be: what a request costs the server is mostly the article.
const chromes = new WeakMap<ResolvedWebOptions, Map<number, Chrome>>();

function chrome(opts: ResolvedWebOptions, hostIndex: number, plan: RealisticPlan): Chrome {
  let bySite = chromes.get(opts);
  if (bySite === undefined) {
    bySite = new Map();
    chromes.set(opts, bySite);
  }
  let found = bySite.get(hostIndex);
  if (found === undefined) {
    const search = plan.layout.search
      ? '<form class="search" action="/search" method="get" role="search"><input type="search" name="q" placeholder="Search the docs"><input type="hidden" name="v" value="latest"><button type="submit">Search</button></form>\n'
      : '';
    found = {
      header: `<header class="site-header">\n<a class="logo" href="/">${ICON}Site ${hostIndex}</a>\n${search}<nav class="top-nav" aria-label="Main"><ul>${plan.nav.map(navItem).join('')}</ul></nav>\n</header>\n<div class="layout">\n`,
      footer: `<footer class="site-footer">\n<ul class="footer-links">${plan.footer.map(navItem).join('')}</ul>\n<p>Copyright &copy; the authors. Built with care &amp; coffee.</p>\n</footer>\n`,
      sidebars: new Map(),
    };
    bySite.set(hostIndex, found);
  }
  return found;
}

function sidebarOf(opts: ResolvedWebOptions, hostIndex: number, plan: RealisticPlan): string {
  const { sidebars } = chrome(opts, hostIndex, plan);
  // The link-heavy contents are the same on every page but the home page, whose relative
  // hrefs start one folder higher.
  const key = opts.profile === 'link-heavy' ? (plan.section === -1 ? -1 : 0) : plan.section;
  let html = sidebars.get(key);
  if (html === undefined) {
    html = `<aside class="sidebar">\n<nav aria-label="Section"><ul class="toc">${plan.sidebar.map(navItem).join('')}</ul></nav>\n</aside>\n`;
    sidebars.set(key, html);
  }
  return html;
}

/** The article's opening paragraphs, carrying its content links, three to a paragraph. */
function articleOf(plan: RealisticPlan, random: Random): string[] {
  const paragraphs: string[] = [];
  for (let start = 0; start < plan.content.length; start += 3) {
    let paragraph = '<p>';
    for (const link of plan.content.slice(start, start + 3)) {
      paragraph += `${loremText(random, 40 + randomInt(random, 120))} ${anchor(link)} `;
    }
    paragraphs.push(`${paragraph}${loremText(random, 60)}.</p>\n`);
  }
  return paragraphs;
}

/** One block of the article's body, about `room` characters or fewer. */
function filler(random: Random, block: number, room: number): string {
  const kind = block % 6;
  if (kind === 0) return `<h2 id="section-${block}">${loremText(random, 30)}</h2>\n`;
  if (kind === 2 && room > 300) {
    return `<pre><code class="language-js">${codeText(random, room - 60)}</code></pre>\n`;
  }
  if (kind === 4 && room > 300) {
    const items = Array.from({ length: 3 + randomInt(random, 4) }, () => `<li>${loremText(random, 50)}</li>`);
    return `<ul class="list">${items.join('')}</ul>\n`;
  }
  const text = loremText(random, Math.max(20, room - 80));
  const cut = text.indexOf(' ', text.length >> 1);
  return cut === -1
    ? `<p>${text}</p>\n`
    : `<p>${text.slice(0, cut)} <code>${text.slice(cut + 1, cut + 12).trim()}</code> <strong>${text.slice(cut + 12)}</strong></p>\n`;
}

const ICON =
  '<svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><title>logo</title><path d="M12 2L2 7l10 5 10-5-10-5zm0 7.5L4.5 6 12 2.5 19.5 6 12 9.5z"/></svg>';

function navItem(link: PlannedLink): string {
  return `<li class="nav-item">${anchor(link, 'nav-link')}</li>`;
}

// hrefs and texts come from the generator (digits, ASCII paths, origins), so no escaping is needed.
function anchor(link: PlannedLink, className?: string): string {
  return className === undefined
    ? `<a href="${link.href}">${link.text}</a>`
    : `<a class="${className}" href="${link.href}">${link.text}</a>`;
}
