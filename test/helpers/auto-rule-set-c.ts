// Set C of `--render auto`'s rule. Written as a held-out set after the rule was changed on
// set B: more frameworks' shells as they are sent (their own mount points, loaders, config
// blocks) and more kinds of pages a server writes whole. The rule failed it (15 of 16
// shells rendered, 2 of 19 other pages rendered) and was changed on it: a tuning set now.

import type { AutoFixture } from './auto-rule-pages.js';

const SENTENCES = [
  'Preheat the oven to two hundred degrees and butter a deep tin before you start the batter.',
  'The ferry leaves the north pier every forty minutes between six in the morning and midnight.',
  'Version four drops support for the old configuration format and adds a migration command.',
  'Members can borrow up to twelve books at a time and renew them online for three more weeks.',
  'The committee will publish its findings in the autumn, after hearing evidence from residents.',
  'Thread the needle, tie a double knot, and keep the stitches small and even along the seam.',
];
const text = (chars: number, from = 0): string => {
  let out = '';
  for (let i = from; out.length < chars; i++) out += `${SENTENCES[i % SENTENCES.length]} `;
  return out.trim();
};
const section = (n: number, from = 0): string =>
  Array.from({ length: n }, (_, i) => `<p>${text(380, from + i)}</p>`).join('');
const links = (prefix: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `<li><a href="/${prefix}/${i}">${prefix} ${i}</a></li>`).join('');
const CHROME_TOP = `<header class="site"><a href="/" class="logo">Library</a><ul>${links('menu', 9)}</ul></header>`;
const CHROME_BOTTOM = `<footer class="site"><ul>${links('about', 6)}</ul></footer>`;
const html = (head: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">${head}</head><body>${body}</body></html>`;

export const SET_C_FIXTURES: readonly AutoFixture[] = [
  // Built by script.
  {
    name: 'backbone + require.js region',
    scriptBuilt: true,
    html: html(
      '<title>Catalogue</title><script data-main="js/main" src="js/require.js"></script>',
      '<div id="header-region"></div><div id="main-region"></div>',
    ),
  },
  {
    name: 'knockout with text/html templates',
    scriptBuilt: true,
    html: html(
      '<title>Loans</title><script src="/js/knockout.js"></script><script src="/js/loans.js" defer></script>',
      '<div data-bind="template: { name: \'loan-list\' }"></div><script type="text/html" id="loan-list"><ul data-bind="foreach: loans"><li data-bind="text: title"></li></ul></script>',
    ),
  },
  {
    name: 'meteor app',
    scriptBuilt: true,
    html: html(
      '<title>Chat</title><script type="text/javascript">__meteor_runtime_config__ = JSON.parse(decodeURIComponent("%7B%22meteorRelease%22%3A%22METEOR%403.0%22%7D"));</script><script type="text/javascript" src="/app.js?hash=1a2b"></script>',
      '',
    ),
  },
  {
    name: 'angular app with its own element prefix',
    scriptBuilt: true,
    html: html(
      '<title>Fleet</title><base href="/">',
      '<fleet-root></fleet-root><script src="runtime.js" type="module"></script><script src="main.js" type="module"></script>',
    ),
  },
  {
    name: 'react content under a server-written menu',
    scriptBuilt: true,
    html: html(
      '<title>Timetable</title><script src="/static/timetable.js" defer></script>',
      `${CHROME_TOP}<div id="root"></div>`,
    ),
  },
  {
    name: 'vue app on its own id, with the site menu and footer',
    scriptBuilt: true,
    html: html(
      '<title>Renewals</title><script src="/js/renewals.js" defer></script>',
      `${CHROME_TOP}<div id="renewals-app"></div>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'elm on its own node',
    scriptBuilt: true,
    html: html(
      '<title>Quiz</title><script src="/elm.js"></script>',
      '<div id="elm"></div><script>Elm.Main.init({ node: document.getElementById("elm") });</script>',
    ),
  },
  {
    name: 'htmx page that loads its content',
    scriptBuilt: true,
    html: html(
      '<title>Events</title><script src="/js/htmx.min.js"></script>',
      `<header><a href="/">Home</a><a href="/events">Events</a><a href="/venues">Venues</a></header><main><h1>Events</h1><div hx-get="/events/list" hx-trigger="load">Loading events…</div></main>`,
    ),
  },
  {
    name: 'plain script filling a list from an API',
    scriptBuilt: true,
    html: html(
      '<title>New arrivals</title>',
      `<h1>New arrivals</h1><p>${text(160, 3)}</p><ul id="list"></ul><script>fetch('/api/new').then(r => r.json()).then(items => { for (const i of items) { const li = document.createElement('li'); li.innerHTML = '<a href="' + i.url + '">' + i.title + '</a>'; list.append(li); } });</script>`,
    ),
  },
  {
    name: 'jupyterlab',
    scriptBuilt: true,
    html: html(
      '<title>JupyterLab</title><script id="jupyter-config-data" type="application/json">{"appName":"JupyterLab","baseUrl":"/"}</script><script src="/static/lab/main.js"></script>',
      '',
    ),
  },
  {
    name: 'swagger ui',
    scriptBuilt: true,
    html: html(
      '<title>API docs</title><link rel="stylesheet" href="swagger-ui.css">',
      '<div id="swagger-ui"></div><script src="swagger-ui-bundle.js"></script><script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui" });</script>',
    ),
  },
  {
    name: 'storybook iframe',
    scriptBuilt: true,
    html: html(
      '<title>Storybook</title><script>window.CONFIG_TYPE = "PRODUCTION"; window.FEATURES = {"argTypeTargetsV7":true};</script>',
      '<div id="storybook-root"></div><div id="storybook-docs"></div><script type="module" src="./sb-preview/runtime.js"></script>',
    ),
  },
  {
    name: 'mastodon web app',
    scriptBuilt: true,
    html: html(
      '<title>Mastodon</title><script src="/packs/js/common.js" crossorigin="anonymous" type="module"></script><script id="initial-state" type="application/json">{"meta":{"domain":"example.social"}}</script>',
      '<div class="app-holder" id="mastodon" data-props="{&quot;locale&quot;:&quot;en&quot;}"></div><noscript><img alt="Mastodon" src="/logo.svg"><div>To use the Mastodon web application, please enable JavaScript. Alternatively, try one of the native apps for Mastodon for your platform.</div></noscript>',
    ),
  },
  {
    name: 'react-root shell with boot scripts',
    scriptBuilt: true,
    html: html(
      `<title>Posts</title><script>window.__INITIAL_STATE__=${JSON.stringify({ featureSwitch: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`flag_${i}`, i % 2 === 0])) })};</script><script src="/client-web/main.js" defer></script>`,
      '<div id="react-root"><div id="placeholder"><svg viewBox="0 0 24 24"><path d="M0 0h24v24H0z"/></svg></div></div>',
    ),
  },
  {
    name: 'dojo app',
    scriptBuilt: true,
    html: html(
      '<title>Map</title><script>var dojoConfig = { async: true, packages: [{ name: "app", location: "/app" }] };</script><script src="/dojo/dojo.js"></script><script>require(["app/main"]);</script>',
      '<div id="appLayout" class="claro"></div>',
    ),
  },
  {
    name: 'jquery mobile pages filled by script',
    scriptBuilt: true,
    html: html(
      '<title>Field app</title><script src="/js/jquery.js"></script><script src="/js/jquery.mobile.js"></script><script src="/js/field.js"></script>',
      '<div data-role="page" id="home"><div data-role="header"><h1>Field app</h1></div><div data-role="content" id="content"></div></div>',
    ),
  },

  // Written whole by a server.
  {
    name: 'astro page with an island',
    scriptBuilt: false,
    html: html(
      '<title>Recipes</title><script type="module" src="/_astro/hoisted.js"></script>',
      `${CHROME_TOP}<main><h1>Lemon cake</h1>${section(4)}<astro-island uid="z1" component-url="/_astro/Rating.js" client="visible"><div class="rating">4.5</div></astro-island></main>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'qwik server-rendered page',
    scriptBuilt: false,
    html: html(
      '<title>Ferries</title>',
      `<div q:container="paused" q:version="1.5" q:render="ssr">${CHROME_TOP}<main><h1>Timetable</h1>${section(3, 1)}</main></div><script type="qwik/json">{"refs":{},"ctx":{},"objs":[]}</script><script q:func="qwik/json">document["qFuncs_x"]=[]</script><script id="qwikloader">(()=>{const t=document;})();</script>`,
    ),
  },
  {
    name: 'remix server-rendered page',
    scriptBuilt: false,
    html: html(
      '<title>Release 4</title><link rel="modulepreload" href="/build/entry.client.js">',
      `${CHROME_TOP}<main><h1>Version 4</h1>${section(4, 2)}</main>${CHROME_BOTTOM}<script>window.__remixContext = ${JSON.stringify({ state: { loaderData: { root: { user: null }, 'routes/release': { body: text(1500, 2) } } } })};</script><script type="module" async>import "/build/manifest.js"; import * as route0 from "/build/root.js";</script>`,
    ),
  },
  {
    name: 'rails page with turbo and an importmap',
    scriptBuilt: false,
    html: html(
      '<title>Loans</title><script type="importmap">{"imports":{"application":"/assets/application.js"}}</script><script type="module">import "application"</script>',
      `${CHROME_TOP}<turbo-frame id="loans"><h1>Your loans</h1><table>${Array.from({ length: 8 }, (_, i) => `<tr><td><a href="/loans/${i}">${text(40, i)}</a></td><td>due in ${i + 2} days</td></tr>`).join('')}</table></turbo-frame>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'admin list page',
    scriptBuilt: false,
    html: html(
      '<title>Select book to change</title><script src="/static/admin/js/vendor/jquery/jquery.js"></script><script src="/static/admin/js/actions.js"></script>',
      `<div id="header"><a href="/admin/">Administration</a></div><table id="result_list">${Array.from({ length: 25 }, (_, i) => `<tr><th><a href="/admin/books/${i}/change/">Book ${i}</a></th><td>2026-01-${(i % 28) + 1}</td></tr>`).join('')}</table>`,
    ),
  },
  {
    name: 'forum thread (phpbb)',
    scriptBuilt: false,
    html: html(
      '<title>Stitching a seam - Forum</title><script src="./assets/javascript/core.js"></script><script src="./styles/prosilver/template/forum_fn.js"></script>',
      `${CHROME_TOP}<h2 class="topic-title">Stitching a seam</h2>${Array.from({ length: 5 }, (_, i) => `<div class="post"><p class="author">by <a href="/member/${i}">member${i}</a></p><div class="content">${text(350, 5 + i)}</div></div>`).join('')}`,
    ),
  },
  {
    name: 'jekyll page with mathjax',
    scriptBuilt: false,
    html: html(
      '<title>Notes on sorting</title><script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js" async></script>',
      `<header><a href="/">Home</a></header><article><h1>Notes on sorting</h1>${section(3, 2)}<p>$$O(n \\log n)$$</p></article>`,
    ),
  },
  {
    name: 'newsletter post with preloads and many scripts',
    scriptBuilt: false,
    html: html(
      `<title>The ferry</title><script>window._preloads = JSON.parse(${JSON.stringify(JSON.stringify({ post: { id: 1, title: 'The ferry', body_html: text(2500, 1) } }))});</script><script src="/static/js/main.js" defer></script><script src="/static/js/vendor.js" defer></script><script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>`,
      `<div id="entry"><div id="main"><article><h1>The ferry</h1>${section(5, 1)}</article><a href="/subscribe">Subscribe</a><a href="/archive">Archive</a></div></div>`,
    ),
  },
  {
    name: 'shop product page (liquid) with json-ld',
    scriptBuilt: false,
    html: html(
      '<title>Linen thread</title><script src="//cdn.shop.example/s/trekkie.storefront.js" defer></script><script src="/cdn/shop/t/1/assets/global.js" defer></script><script src="/cdn/shop/t/1/assets/product-form.js" defer></script><script type="application/ld+json">{"@type":"Product","name":"Linen thread"}</script>',
      `${CHROME_TOP}<main><h1>Linen thread</h1><p>${text(600, 5)}</p><form action="/cart/add"><select name="id"><option>Natural</option><option>Indigo</option></select><button>Add to cart</button></form></main>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'government service page',
    scriptBuilt: false,
    html: html(
      '<title>Renew a library card - GOV</title><script type="module" src="/assets/govuk-frontend.min.js"></script><script type="module">import { initAll } from "/assets/govuk-frontend.min.js"; initAll();</script>',
      `<a href="#main" class="skip-link">Skip to main content</a><header><a href="/">GOV</a></header><main id="main"><h1>Renew a library card</h1>${section(3, 3)}<a href="/start" class="button">Start now</a></main>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'recipe page with a consent widget mount point',
    scriptBuilt: false,
    html: html(
      '<title>Lemon cake</title><script src="/js/consent-widget.js" defer></script><script async src="https://ads.example.net/tag.js"></script>',
      `<header><a href="/">Recipes</a><a href="/cakes">Cakes</a></header><article><h1>Lemon cake</h1>${section(5)}</article><div id="app"></div>`,
    ),
  },
  {
    name: 'ghost blog post',
    scriptBuilt: false,
    html: html(
      '<title>Knots</title><script defer src="/public/cards.min.js"></script><script defer src="https://cdn.jsdelivr.net/ghost/portal@~2.0/umd/portal.min.js" data-ghost="https://blog.example/"></script>',
      `<header><a href="/">Blog</a><a href="/tag/sewing">Sewing</a><a href="/about">About</a></header><article class="gh-article"><h1>Knots</h1>${section(4, 5)}</article>`,
    ),
  },
  {
    name: 'newsletter archive in tables, no script',
    scriptBuilt: false,
    html: html(
      '<title>Archive</title>',
      `<table>${Array.from({ length: 6 }, (_, i) => `<tr><td><a href="/issue/${i}">Issue ${i}</a></td><td>${text(90, i)}</td></tr>`).join('')}</table>`,
    ),
  },
  {
    name: 'thank-you page with the site menu and footer',
    scriptBuilt: false,
    html: html(
      '<title>Thank you</title><script src="/js/site.js" defer></script><script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>',
      `${CHROME_TOP}<main><h1>Thank you</h1><p>We have your request and will answer within two days.</p></main>${CHROME_BOTTOM}`,
    ),
  },
  {
    name: 'server-rendered search results with pagination',
    scriptBuilt: false,
    html: html(
      '<title>Search: ferry</title><script src="/js/autocomplete.js" defer></script>',
      `<form action="/search"><input name="q" value="ferry"></form><ol>${Array.from({ length: 10 }, (_, i) => `<li><a href="/doc/${i}">Result ${i}</a><p>${text(140, i)}</p></li>`).join('')}</ol><nav>${links('page', 5)}</nav>`,
    ),
  },
  {
    name: 'html index of many links, no text',
    scriptBuilt: false,
    html: html('<title>Index</title><script src="/js/filter.js"></script>', `<ul>${links('doc', 120)}</ul>`),
  },
  {
    name: 'changelog in a pre, no script',
    scriptBuilt: false,
    html: html('<title>CHANGES</title>', `<pre>${text(1800, 2)}</pre>`),
  },
  {
    name: 'login page with a short site menu',
    scriptBuilt: false,
    html: html(
      '<title>Sign in</title><script src="/js/login.js" defer></script>',
      '<header><a href="/">Library</a><a href="/catalogue">Catalogue</a><a href="/help">Help</a></header><main><h1>Sign in</h1><form method="post"><label>Card number <input name="card"></label><label>PIN <input type="password" name="pin"></label><button>Sign in</button></form><a href="/pin">Forgot your PIN?</a></main>',
    ),
  },
  {
    name: 'event page with an embedded map script',
    scriptBuilt: false,
    html: html(
      '<title>Harbour festival</title><script src="https://maps.example.com/api/js?key=x" async defer></script><script>function initMap(){new maps.Map(document.getElementById("map"),{zoom:14});}</script>',
      `${CHROME_TOP}<main><h1>Harbour festival</h1>${section(2, 4)}<div id="map" style="height:300px"></div></main>${CHROME_BOTTOM}`,
    ),
  },
];
