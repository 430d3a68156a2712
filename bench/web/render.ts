import { type LinkPlan, type PlannedLink, planLinks } from './links.js';
import { loremText } from './lorem.js';
import {
  isDocsProfile,
  pageTitle,
  type ResolvedWebOptions,
  resolveOptions,
  type SyntheticWebOptions,
} from './options.js';
import { pageRandom, type Random, randomInt } from './prng.js';
import { renderRealisticPage } from './realistic-render.js';

const LINKS_PER_PARAGRAPH = 3;
const FILLER_PARAGRAPH_CHARS = 400;

/** The HTML of one page; the same options, origins and indexes always give the same string. */
export function renderPage(
  opts: SyntheticWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
): string {
  return renderResolvedPage(resolveOptions(opts), origins, hostIndex, pageIndex);
}

/** renderPage without re-validating options: the server calls this once per request. */
export function renderResolvedPage(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  pageIndex: number,
): string {
  const random = pageRandom(opts.seed, hostIndex, pageIndex);
  if (isDocsProfile(opts.profile)) return renderRealisticPage(opts, origins, hostIndex, pageIndex, random);
  const plan = planLinks(opts, origins, hostIndex, pageIndex, random);
  const title = pageTitle(hostIndex, pageIndex);

  const parts: string[] = [
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    `<title>${title}</title>\n</head>\n<body>\n`,
    // An anchor without href: link extractors must skip it, not crash on it.
    `<a id="top"></a>\n<nav>${plan.nav.map(anchor).join(' | ')}</nav>\n<h1>${title}</h1>\n`,
    ...contentParagraphs(plan, random),
  ];
  if (plan.duplicates.length > 0) {
    parts.push(`<ul class="related">${plan.duplicates.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul>\n`);
  }
  const footer = `<footer>Terms &amp; conditions.${plan.mailto ? ` ${anchor(plan.mailto)}` : ''}</footer>\n</body>\n</html>\n`;

  let size = parts.reduce((sum, part) => sum + part.length, footer.length);
  // Pad with text so the byte count (and so parse and I/O cost) looks like a small real page.
  while (opts.pageBytes - size > 20) {
    const text = loremText(random, Math.min(FILLER_PARAGRAPH_CHARS, opts.pageBytes - size - 8));
    const paragraph = `<p>${text}</p>\n`;
    parts.push(paragraph);
    size += paragraph.length;
  }
  parts.push(footer);
  return parts.join('');
}

function contentParagraphs(plan: LinkPlan, random: Random): string[] {
  const paragraphs: string[] = [];
  for (let start = 0; start < plan.content.length; start += LINKS_PER_PARAGRAPH) {
    let paragraph = '<p>';
    for (const link of plan.content.slice(start, start + LINKS_PER_PARAGRAPH)) {
      paragraph += `${loremText(random, 30 + randomInt(random, 60))} ${anchor(link)} `;
    }
    paragraph += `${loremText(random, 30)}.</p>\n`;
    paragraphs.push(paragraph);
  }
  return paragraphs;
}

// hrefs and texts come from the generator (digits, ASCII paths, origins), so no escaping is needed.
function anchor(link: PlannedLink): string {
  return `<a href="${link.href}">${link.text}</a>`;
}
