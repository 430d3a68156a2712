import { loremText } from '../web/lorem.js';
import { pageRandom, type Random, randomInt } from '../web/prng.js';

/**
 * The fixture site of `npm run bench:render`: pages as a client-side app sends them (an
 * empty mount point, the page's content as JSON, a script that builds the header, the
 * article and every link) and, on the mixed site, pages a server writes whole from the
 * same content (with the same script, which then has nothing to build). About 20 KB a
 * page, 40 to 60 links, most of them the site's navigation.
 *
 * `script`: every page is script-built. `mixed`: even pages are, odd pages are plain. A
 * page's path says its kind (/s/ script-built, /p/ plain), so a crawl's record tells
 * which kind it rendered.
 */
export type SiteMode = 'script' | 'mixed';

export interface PageContent {
  title: string;
  paragraphs: string[];
  nav: Link[];
  links: Link[];
}

interface Link {
  href: string;
  text: string;
}

const NAV_LINKS = 24;
const MIN_CONTENT_LINKS = 16;
const MAX_CONTENT_LINKS = 36;
const PARAGRAPHS = 24;

export function isScriptBuilt(mode: SiteMode, index: number): boolean {
  return mode === 'script' || index % 2 === 0;
}

export function pathOf(mode: SiteMode, index: number): string {
  if (index === 0) return '/';
  return `${isScriptBuilt(mode, index) ? '/s' : '/p'}/${index}.html`;
}

/** The page index a path names, or undefined (a 404). */
export function indexOfPath(mode: SiteMode, pages: number, path: string): number | undefined {
  if (path === '/') return 0;
  const m = /^\/([sp])\/([1-9][0-9]*)\.html$/.exec(path);
  if (!m) return undefined;
  const index = Number(m[2]);
  if (index >= pages || pathOf(mode, index) !== path) return undefined;
  return index;
}

/** Every page is reachable from the root: page i links to i+1, and to others drawn at random. */
function contentOf(mode: SiteMode, pages: number, index: number): PageContent {
  const random: Random = pageRandom(7, 0, index);
  const link = (i: number): Link => ({ href: pathOf(mode, i), text: `Page ${i}: ${loremText(random, 24)}` });
  const nav = Array.from({ length: Math.min(NAV_LINKS, pages) }, (_, i) => link(i));
  const count = MIN_CONTENT_LINKS + randomInt(random, MAX_CONTENT_LINKS - MIN_CONTENT_LINKS + 1);
  const links = [link((index + 1) % pages)];
  for (let n = 1; n < count; n++) links.push(link(randomInt(random, pages)));
  const paragraphs = Array.from({ length: PARAGRAPHS }, () =>
    loremText(random, 300 + randomInt(random, 500)),
  );
  return { title: `Page ${index}`, paragraphs, nav, links };
}

export function renderSitePage(mode: SiteMode, pages: number, index: number): string {
  const content = contentOf(mode, pages, index);
  const head =
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>${content.title}</title>\n<link rel="stylesheet" href="/assets/site.css">\n` +
    '<script src="/assets/app.js" defer></script>\n</head>\n<body>\n';
  if (isScriptBuilt(mode, index)) {
    // JSON inside <script>: "</" must not close the element early.
    const data = JSON.stringify(content).replaceAll('</', '<\\/');
    return `${head}<div id="root"></div>\n<script type="application/json" id="page-data">${data}</script>\n</body>\n</html>\n`;
  }
  const anchor = (l: Link): string => `<a href="${l.href}">${l.text}</a>`;
  return (
    `${head}<header><nav><ul>${content.nav.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul></nav></header>\n` +
    `<main><article><h1>${content.title}</h1>\n${content.paragraphs.map((p) => `<p>${p}</p>`).join('\n')}\n` +
    `<ul class="related">${content.links.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul></article></main>\n</body>\n</html>\n`
  );
}

/**
 * The site's script: on a page with its content as JSON, builds it into the DOM, as a
 * client-side app's bundle does (padded to a bundle's size with code that only runs
 * once); on a plain page, nothing to do.
 */
export const APP_JS = `(function () {
  var data = document.getElementById('page-data');
  if (!data) return;
  var page = JSON.parse(data.textContent);
  var root = document.getElementById('root');
  function list(links) {
    var ul = document.createElement('ul');
    links.forEach(function (l) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = l.href;
      a.textContent = l.text;
      li.appendChild(a);
      ul.appendChild(li);
    });
    return ul;
  }
  var header = document.createElement('header');
  var nav = document.createElement('nav');
  nav.appendChild(list(page.nav));
  header.appendChild(nav);
  var article = document.createElement('article');
  var h1 = document.createElement('h1');
  h1.textContent = page.title;
  article.appendChild(h1);
  page.paragraphs.forEach(function (t) {
    var p = document.createElement('p');
    p.textContent = t;
    article.appendChild(p);
  });
  article.appendChild(list(page.links));
  root.appendChild(header);
  root.appendChild(article);
})();
${Array.from({ length: 400 }, (_, i) => `function unused${i}(a, b) { return a * ${i} + b - ${i}; }`).join('\n')}
`;

export const SITE_CSS = `body{font-family:sans-serif;margin:0}header{background:#eee}nav ul{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none}article{max-width:48rem;margin:auto}\n`;
