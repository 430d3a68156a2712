// The HTML of one scale-web page: a documentation-like page of tens of KB (median about
// 20 KB), its links placed where a site puts them: the navigation in the header, the
// article's links in its paragraphs, the footer's at the bottom.
import { codeText, loremText } from '../web/lorem.js';
import { type Random, randomInt } from '../web/prng.js';
import { hrefOf, type LinkPlan, pageStream, planLinks } from './links.js';
import type { ScaleWeb } from './shape.js';

const SIGMA = 0.6;
/** The smallest and largest page, against the median. */
const MIN_OF_MEDIAN = 0.3;
const MAX_OF_MEDIAN = 5;

export function renderPage(web: ScaleWeb, port: number, host: number, page: number, plan: LinkPlan): string {
  const random = pageStream(web, host, page);
  planLinks(web, host, page, random, plan);
  const target = pageBytes(random, web.o.medianPageBytes);
  const anchor = (k: number): string => {
    const to = plan.hosts[k] as number;
    const text = to === host ? `Topic ${plan.pages[k]}` : `Site ${to}`;
    return `<a href="${hrefOf(web, port, host, page, plan, k)}">${text}</a>`;
  };
  const title = `Site ${host} - Page ${page}`;
  const parts: string[] = [
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n`,
    `<meta name="description" content="${loremText(random, 140)}">\n`,
    '<link rel="stylesheet" href="/assets/site.css">\n<script src="/assets/app.js" defer></script>\n',
    `<script>window.__SITE__ = ${JSON.stringify({ host, words: loremText(random, 600).split(' ') })};</script>\n`,
    '</head>\n<body>\n<header class="site-header">\n<nav class="top-nav"><ul>',
  ];
  for (let k = 0; k < plan.navEnd; k++) parts.push(`<li class="nav-item">${anchor(k)}</li>`);
  parts.push(`</ul></nav>\n</header>\n<main>\n<article>\n<h1>${title}</h1>\n`);
  let size = parts.reduce((sum, part) => sum + part.length, 0);
  // The article's links, three to a paragraph, with filler between so they spread out.
  const links = plan.count - plan.footerEnd;
  const paragraphs = Math.ceil(links / 3);
  const perParagraph = Math.max(200, Math.floor((target - size - 2000) / Math.max(1, paragraphs)));
  for (let k = plan.footerEnd, block = 0; k < plan.count; k += 3, block++) {
    let paragraph = '<p>';
    for (let j = k; j < Math.min(plan.count, k + 3); j++) {
      paragraph += `${loremText(random, 30 + randomInt(random, 80))} ${anchor(j)} `;
    }
    paragraph += `${loremText(random, 60)}.</p>\n`;
    parts.push(paragraph, filler(random, block, perParagraph));
    size += paragraph.length + perParagraph;
  }
  parts.push('</article>\n</main>\n<footer class="site-footer"><ul>');
  for (let k = plan.navEnd; k < plan.footerEnd; k++) parts.push(`<li>${anchor(k)}</li>`);
  parts.push('</ul><p>Copyright &copy; the authors.</p></footer>\n</body>\n</html>\n');
  return parts.join('');
}

/** Log-normal around the median, clipped. */
function pageBytes(random: Random, median: number): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const bytes = median * Math.exp(SIGMA * z);
  return Math.round(Math.min(MAX_OF_MEDIAN * median, Math.max(MIN_OF_MEDIAN * median, bytes)));
}

function filler(random: Random, block: number, room: number): string {
  if (block % 4 === 1 && room > 300) return `<pre><code>${codeText(random, room - 30)}</code></pre>\n`;
  if (block % 4 === 3)
    return `<h2 id="s${block}">${loremText(random, 40)}</h2>\n<p>${loremText(random, room)}</p>\n`;
  return `<p>${loremText(random, room)}</p>\n`;
}
