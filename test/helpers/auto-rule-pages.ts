// Set A of `--render auto`'s rule, the set it was first tuned on: pages as their kinds of
// site send them, each marked with whether its content is built by script. Script-built:
// the shells of the common frameworks' client-side apps, and pages a script fills. Not:
// pages a server writes whole, with scripts (analytics, a menu, a server-rendered app) or
// without, long and short. (Sets B, C and D: auto-rule-set-*.ts; the test says which
// were tuned on and which is held out.)

const lorem = (words: number) =>
  Array.from({ length: words }, (_, i) => ['crawl', 'page', 'link', 'site', 'text', 'news'][i % 6]).join(' ');
const links = (n: number) => Array.from({ length: n }, (_, i) => `<a href="/p${i}">item ${i}</a>`).join(' ');
const doc = (head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

export interface AutoFixture {
  name: string;
  html: string;
  scriptBuilt: boolean;
}

export const AUTO_FIXTURES: readonly AutoFixture[] = [
  // Built by script.
  {
    name: 'create-react-app shell',
    scriptBuilt: true,
    html: doc(
      '<title>React App</title><script defer src="/static/js/main.3f.js"></script>',
      '<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>',
    ),
  },
  {
    name: 'vite vue shell',
    scriptBuilt: true,
    html: doc(
      '<title>Vite App</title><script type="module" crossorigin src="/assets/index.js"></script>',
      '<div id="app"></div>',
    ),
  },
  {
    name: 'angular shell',
    scriptBuilt: true,
    html: doc(
      '<title>Shop</title><base href="/">',
      '<app-root></app-root><script src="runtime.js" type="module"></script><script src="main.js" type="module"></script>',
    ),
  },
  {
    name: 'svelte kit client shell',
    scriptBuilt: true,
    html: doc(
      '<title>Svelte</title>',
      '<div id="svelte"></div><script type="module">import { start } from "/_app/start.js"; start({ target: document.querySelector("#svelte") });</script>',
    ),
  },
  {
    name: 'ember shell',
    scriptBuilt: true,
    html: doc(
      '<title>Ember</title><script src="/assets/vendor.js"></script><script src="/assets/app.js"></script>',
      '',
    ),
  },
  {
    name: 'loading spinner',
    scriptBuilt: true,
    html: doc(
      '<title>Dashboard</title>',
      '<div class="spinner">Loading…</div><script src="/bundle.js"></script>',
    ),
  },
  {
    name: 'react root with a header',
    scriptBuilt: true,
    html: doc(
      '<title>Docs</title><script src="/app.js" defer></script>',
      `<header><a href="/">Home</a><a href="/login">Sign in</a></header><div id="root"></div><footer>${lorem(60)}</footer>`,
    ),
  },
  {
    name: 'inline data and a mount point',
    scriptBuilt: true,
    html: doc(
      '<title>Store</title><script>window.__STATE__ = {"items": [1, 2, 3]}</script>',
      '<main id="app"></main><script src="/client.js"></script>',
    ),
  },
  {
    name: 'gatsby client-only',
    scriptBuilt: true,
    html: doc(
      '<title>Blog</title>',
      '<div id="___gatsby"><div id="gatsby-focus-wrapper"></div></div><script src="/app-1.js"></script>',
    ),
  },
  {
    name: 'document.write page',
    scriptBuilt: true,
    html: doc('<title>Old</title>', '<script>document.write("<ul><li><a href=/a>a</a></li></ul>")</script>'),
  },
  {
    name: 'elm app',
    scriptBuilt: true,
    html: doc(
      '<title>Elm</title><script src="/elm.js"></script>',
      '<script>var app = Elm.Main.init({ node: document.body });</script>',
    ),
  },
  {
    name: 'nuxt spa mode',
    scriptBuilt: true,
    html: doc(
      '<title>Nuxt</title>',
      '<div id="__nuxt"></div><script>window.__NUXT__={config:{}}</script><script src="/_nuxt/entry.js" type="module"></script>',
    ),
  },
  {
    name: 'enable-javascript notice',
    scriptBuilt: true,
    html: doc(
      '<title>App</title><script src="/main.js"></script>',
      `<noscript><p>${lorem(80)}</p></noscript><div id="mount"></div>`,
    ),
  },
  {
    name: 'ng-app with templates',
    scriptBuilt: true,
    html: doc(
      '<title>Angular 1</title><script src="/angular.js"></script>',
      '<div ng-app="shop"><div ng-view></div><a href="#!/cart">Cart</a></div>',
    ),
  },
  {
    name: 'app with a long json blob',
    scriptBuilt: true,
    html: doc(
      '<title>Feed</title>',
      `<div id="root"></div><script type="application/json" id="data">${JSON.stringify({ text: lorem(400) })}</script><script src="/feed.js"></script>`,
    ),
  },
  // Written whole by a server.
  {
    name: 'blog post with analytics',
    scriptBuilt: false,
    html: doc(
      '<title>Post</title><script async src="https://www.googletagmanager.com/gtag/js"></script>',
      `<nav>${links(8)}</nav><article><h1>Post</h1><p>${lorem(400)}</p></article>`,
    ),
  },
  {
    name: 'docs page, no script',
    scriptBuilt: false,
    html: doc('<title>API</title>', `<nav>${links(30)}</nav><main><h1>API</h1><p>${lorem(600)}</p></main>`),
  },
  {
    name: 'wiki article',
    scriptBuilt: false,
    html: doc(
      '<title>Wiki</title><script src="/load.js"></script>',
      `<div id="content"><p>${lorem(1500)}</p>${links(120)}</div>`,
    ),
  },
  {
    name: 'news index',
    scriptBuilt: false,
    html: doc(
      '<title>News</title><script src="/ads.js"></script><script src="/menu.js"></script>',
      `<ul>${links(60)}</ul><p>${lorem(300)}</p>`,
    ),
  },
  {
    name: 'next.js server-rendered',
    scriptBuilt: false,
    html: doc(
      '<title>Next</title>',
      `<div id="__next"><header>${links(12)}</header><main><p>${lorem(500)}</p></main></div><script id="__NEXT_DATA__" type="application/json">{}</script><script src="/_next/main.js"></script>`,
    ),
  },
  {
    name: 'nuxt server-rendered',
    scriptBuilt: false,
    html: doc(
      '<title>Nuxt SSR</title>',
      `<div id="__nuxt" data-server-rendered="true"><nav>${links(9)}</nav><p>${lorem(300)}</p></div><script src="/_nuxt/app.js"></script>`,
    ),
  },
  {
    name: 'product page',
    scriptBuilt: false,
    html: doc(
      '<title>Shoe</title><script src="/cart.js"></script>',
      `<h1>Shoe</h1><p>${lorem(250)}</p>${links(20)}<form action="/cart"><button>Add</button></form>`,
    ),
  },
  {
    name: 'short 404, no script',
    scriptBuilt: false,
    html: doc('<title>Not found</title>', '<h1>Not found</h1><p>No such page. <a href="/">Home</a></p>'),
  },
  {
    name: 'moved notice, no script',
    scriptBuilt: false,
    html: doc('<title>Moved</title>', '<p>This page moved to <a href="/new">/new</a>.</p>'),
  },
  {
    name: 'forum thread',
    scriptBuilt: false,
    html: doc(
      '<title>Thread</title><script src="/forum.js"></script>',
      `${links(25)}<div class="post">${lorem(900)}</div>`,
    ),
  },
  {
    name: 'search results',
    scriptBuilt: false,
    html: doc(
      '<title>Results</title><script>var q = "x";</script>',
      `<ol>${links(40)}</ol><p>${lorem(200)}</p>`,
    ),
  },
  {
    name: 'personal home page',
    scriptBuilt: false,
    html: doc('<title>Me</title>', `<h1>Me</h1><p>${lorem(120)}</p>${links(6)}`),
  },
  {
    name: 'landing page with a framework root, server-rendered',
    scriptBuilt: false,
    html: doc(
      '<title>Launch</title><script src="/landing.js"></script>',
      `<div id="app"><h1>Launch</h1><p>${lorem(200)}</p>${links(10)}</div>`,
    ),
  },
  {
    name: 'login page, one script',
    scriptBuilt: false,
    html: doc(
      '<title>Sign in</title><script src="/login.js"></script>',
      `<h1>Sign in to your account</h1><p>${lorem(40)}</p><form><input name="user"><input name="pass" type="password"><button>Sign in</button></form><a href="/reset">Forgot your password?</a><a href="/signup">Create an account</a><a href="/help">Help</a><a href="/privacy">Privacy</a><a href="/">Home</a>`,
    ),
  },
  {
    name: 'photo gallery',
    scriptBuilt: false,
    html: doc(
      '<title>Photos</title><script src="/lightbox.js"></script>',
      `<h1>Summer photos</h1>${Array.from({ length: 24 }, (_, i) => `<a href="/photo/${i}"><img src="/t/${i}.jpg" alt="photo ${i}"></a>`).join('')}<p>${lorem(30)}</p>`,
    ),
  },
];
