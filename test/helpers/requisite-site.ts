import type { Handler } from './http.js';

/** A file of a test site: its type and its body. */
export function file(type: string, body: string | Buffer): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': type }).end(body);
  };
}

// A 1x1 PNG: the replay test checks that the image decodes, not only that it arrived,
// and a browser decodes it, so it loads (and is captured) as an image.
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A page with every kind of requisite a browser loads: a stylesheet that @imports another
 * and names images and a font by url(), a <style> element with its own @import and url(),
 * an image with srcset, a <picture>, a script, an icon, a video's poster. A second page
 * shares the stylesheet and an image: each is fetched once all the same.
 */
export const REQUISITE_SITE: Record<string, Handler | string> = {
  '/': `<!doctype html><html><head><title>home</title>
<link rel="stylesheet" href="/css/site.css">
<link rel="icon" href="/favicon.ico">
<style>@import "/css/inline-import.css"; h1 { background: url('/img/inline-bg.png') }</style>
<script src="/js/app.js"></script>
</head><body>
<h1 id="title">Home</h1>
<img id="logo" src="/img/logo.png" srcset="/img/logo-2x.png 2x, /img/logo-3x.png 3x" alt="logo">
<picture><source srcset="/img/pic.webp" type="image/webp"><img src="/img/pic.png" alt=""></picture>
<video poster="/img/poster.png" src="/media/clip.mp4"></video>
<a href="/two">two</a>
</body></html>`,
  '/two': `<!doctype html><html><head><title>two</title><link rel="stylesheet" href="/css/site.css"></head>
<body><img src="/img/logo.png" alt="logo"></body></html>`,
  '/css/site.css': file(
    'text/css',
    `@import url(deep.css);
/* url(/img/commented-out.png) is not a requisite */
#title { color: rgb(0, 128, 0); background: url(../img/title-bg.png) }
@font-face { font-family: x; src: url("/fonts/x.woff2") format("woff2") }`,
  ),
  '/css/deep.css': file('text/css', 'body { background-image: url("/img/deep.png") }'),
  '/css/inline-import.css': file('text/css', 'p { margin: 0 }'),
  // A script is archived, never parsed: the link in it is not followed.
  '/js/app.js': file('text/javascript', 'document.title += "!"; // <a href="/never">never</a>'),
  '/favicon.ico': file('image/x-icon', PNG),
  '/img/logo.png': file('image/png', PNG),
  '/img/logo-2x.png': file('image/png', PNG),
  '/img/logo-3x.png': file('image/png', PNG),
  '/img/pic.webp': file('image/webp', PNG),
  '/img/pic.png': file('image/png', PNG),
  '/img/poster.png': file('image/png', PNG),
  '/img/inline-bg.png': file('image/png', PNG),
  '/img/title-bg.png': file('image/png', PNG),
  '/img/deep.png': file('image/png', PNG),
  '/media/clip.mp4': file('video/mp4', Buffer.alloc(64)),
  '/fonts/x.woff2': file('font/woff2', Buffer.alloc(64)),
};

/** Every requisite of the site's two pages, each path once. */
export const REQUISITE_PATHS: readonly string[] = Object.keys(REQUISITE_SITE).filter(
  (p) => p !== '/' && p !== '/two',
);
