import type { Handler } from './http.js';
import { file, PNG } from './requisite-site.js';

/**
 * A page as a browser loads it: a stylesheet that @imports another and names an image
 * by url(), an image with a srcset (the browser, at scale 1, loads its src only; the 2x
 * candidate is the crawl's to fetch), and a script that fetch()es JSON no parser could
 * find. `/two` is a second page on the same stylesheet and image.
 */
export const CAPTURE_SITE: Record<string, Handler | string> = {
  '/': `<!doctype html><html><head><title>home</title>
<link rel="stylesheet" href="/css/site.css">
<script src="/js/app.js"></script>
</head><body>
<h1 id="title">Home</h1>
<img id="logo" src="/img/logo.png" srcset="/img/logo-2x.png 2x" alt="logo">
<p id="out"></p>
</body></html>`,
  '/two': `<!doctype html><html><head><title>two</title><link rel="stylesheet" href="/css/site.css"></head>
<body><h1 id="title">Two</h1><img src="/img/logo.png" alt="logo"></body></html>`,
  '/css/site.css': file(
    'text/css',
    `@import url(deep.css);
#title { color: rgb(0, 128, 0); background: url(../img/title-bg.png) }`,
  ),
  '/css/deep.css': file('text/css', 'body { background-image: url("/img/deep.png") }'),
  '/js/app.js': file(
    'text/javascript',
    `fetch('/api/data.json').then((r) => r.json()).then((d) => { document.getElementById('out').textContent = d.text; });`,
  ),
  '/api/data.json': file('application/json', '{"text":"from the script"}'),
  '/img/logo.png': file('image/png', PNG),
  '/img/logo-2x.png': file('image/png', PNG),
  '/img/title-bg.png': file('image/png', PNG),
  '/img/deep.png': file('image/png', PNG),
};

/** What the home page needs, each path once: what its browser loads, and the srcset's 2x. */
export const CAPTURE_PATHS: readonly string[] = [
  '/css/site.css',
  '/css/deep.css',
  '/js/app.js',
  '/api/data.json',
  '/img/logo.png',
  '/img/logo-2x.png',
  '/img/title-bg.png',
  '/img/deep.png',
];

/** Of those, the ones the crawl fetches itself: the browser never asked for them. */
export const NOT_LOADED_BY_BROWSER: readonly string[] = ['/img/logo-2x.png'];
