// Set D of `--render auto`'s rule: the held-out set. Written after the rule's last change
// (made on set C) and never used to change it: pages in other languages, other
// frameworks' shells and other server-written pages. Whatever it shows is reported as
// it is; a change made because of it would make it a tuning set, and need a new one.

import type { AutoFixture } from './auto-rule-pages.js';

const DE =
  'Die Bibliothek ist montags geschlossen und hat an allen anderen Tagen von neun bis achtzehn Uhr geöffnet. ';
const FR =
  'Le marché couvert accueille une quarantaine de producteurs chaque samedi matin, de sept heures à midi. ';
const JA = '図書館は月曜日が休館日です。その他の日は午前九時から午後六時まで開いています。';
const repeat = (s: string, chars: number): string => s.repeat(Math.ceil(chars / s.length)).slice(0, chars);
const menu = (n: number, lang: string): string =>
  `<nav><ul>${Array.from({ length: n }, (_, i) => `<li><a href="/${lang}/seite-${i}">${lang} ${i}</a></li>`).join('')}</ul></nav>`;
const doc = (lang: string, head: string, body: string): string =>
  `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

export const SET_D_FIXTURES: readonly AutoFixture[] = [
  // Built by script.
  {
    name: 'german vue 3 shop shell',
    scriptBuilt: true,
    html: doc(
      'de',
      '<title>Shop</title><script type="module" src="/assets/main.js"></script>',
      '<div id="shop"></div>',
    ),
  },
  {
    name: 'japanese react shell with a noscript notice',
    scriptBuilt: true,
    html: doc(
      'ja',
      '<title>図書館</title><script defer src="/static/js/main.js"></script>',
      '<noscript>このアプリを利用するには JavaScript を有効にしてください。</noscript><div id="root"></div>',
    ),
  },
  {
    name: 'nuxt 3 spa with a loading template',
    scriptBuilt: true,
    html: doc(
      'fr',
      '<title>Marché</title><script type="module" src="/_nuxt/entry.js" crossorigin></script>',
      '<div id="__nuxt"><div class="nuxt-loading"><span>Chargement…</span></div></div><script type="application/json" id="__NUXT_DATA__">[{}]</script>',
    ),
  },
  {
    name: 'angular shell with a theme splash',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title>Console</title><base href="/"><style>.splash{display:flex}</style>',
      '<ops-console><div class="splash"><img src="/logo.svg" alt=""></div></ops-console><script src="polyfills.js" type="module"></script><script src="main.js" type="module"></script>',
    ),
  },
  {
    name: 'react app mounted on #app-container with a header menu',
    scriptBuilt: true,
    html: doc(
      'de',
      '<title>Konto</title><script src="/bundle.js" defer></script>',
      `<header><a href="/">Start</a>${menu(7, 'de')}</header><div id="app-container"></div>`,
    ),
  },
  {
    name: 'svelte vite app on body',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title>Kanban</title><script type="module" crossorigin src="/assets/index.js"></script>',
      '',
    ),
  },
  {
    name: 'ember app with a config meta',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title>Tracker</title><meta name="tracker/config/environment" content="%7B%22modulePrefix%22%3A%22tracker%22%7D"><script src="/assets/vendor.js"></script><script src="/assets/tracker.js"></script>',
      '<div id="ember-basic-dropdown-wormhole"></div>',
    ),
  },
  {
    name: 'web components app with a skeleton',
    scriptBuilt: true,
    html: doc(
      'fr',
      '<title>Agenda</title><script type="module" src="/src/agenda-app.js"></script>',
      '<agenda-app><div class="skeleton"></div><div class="skeleton"></div></agenda-app>',
    ),
  },
  {
    name: 'script that writes the whole table of a dashboard',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title>Status</title>',
      '<h1>Status</h1><table id="t"></table><script>fetch("/status.json").then(r=>r.json()).then(rows=>{t.innerHTML=rows.map(r=>"<tr><td><a href=/svc/"+r.id+">"+r.name+"</a></td><td>"+r.state+"</td></tr>").join("")})</script>',
    ),
  },
  {
    name: 'next.js export with an empty __next and a fallback',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title></title><script src="/_next/static/chunks/main.js" defer></script>',
      '<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{}},"page":"/app","isFallback":true}</script>',
    ),
  },
  {
    name: 'solid app with a footer of links',
    scriptBuilt: true,
    html: doc(
      'en',
      '<title>Notes</title><script type="module" src="/assets/index.js"></script>',
      `<div id="root"></div><footer>${menu(8, 'en')}</footer>`,
    ),
  },
  {
    name: 'alpine page whose list comes from a fetch',
    scriptBuilt: true,
    html: doc(
      'de',
      '<title>Termine</title><script defer src="/js/alpine.min.js"></script>',
      '<h1>Termine</h1><ul x-data="{ items: [] }" x-init="items = await (await fetch(\'/api/termine\')).json()"><template x-for="i in items"><li><a :href="i.url" x-text="i.title"></a></li></template></ul>',
    ),
  },

  // Written whole by a server.
  {
    name: 'german municipal page with tracking',
    scriptBuilt: false,
    html: doc(
      'de',
      '<title>Bibliothek</title><script src="/matomo.js" async></script><script src="/js/menu.js" defer></script>',
      `<header>${menu(10, 'de')}</header><main><h1>Öffnungszeiten</h1><p>${repeat(DE, 900)}</p></main>`,
    ),
  },
  {
    name: 'french news page server-rendered by next.js',
    scriptBuilt: false,
    html: doc(
      'fr',
      '<title>Marché</title><script src="/_next/static/chunks/main.js" defer></script>',
      `<div id="__next"><header>${menu(6, 'fr')}</header><article><h1>Le marché</h1><p>${repeat(FR, 1500)}</p></article></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"id":3}}}</script>`,
    ),
  },
  {
    name: 'japanese article with ads',
    scriptBuilt: false,
    html: doc(
      'ja',
      '<title>休館日</title><script async src="https://ads.example.jp/tag.js"></script><script>window.adq=window.adq||[];adq.push({slot:"top"});</script>',
      `<header>${menu(5, 'ja')}</header><article><h1>休館日のお知らせ</h1><p>${repeat(JA, 700)}</p></article>`,
    ),
  },
  {
    name: 'vue-enhanced page with content inside #app',
    scriptBuilt: false,
    html: doc(
      'de',
      '<title>Verein</title><script src="/js/app.js" defer></script>',
      `<div id="app">${menu(6, 'de')}<main><h1>Verein</h1><p>${repeat(DE, 600)}</p><member-count></member-count></main></div>`,
    ),
  },
  {
    name: 'short french contact page with a form and a menu',
    scriptBuilt: false,
    html: doc(
      'fr',
      '<title>Contact</title><script src="/js/site.js" defer></script>',
      `<header>${menu(4, 'fr')}</header><h1>Contact</h1><form action="/contact" method="post"><input name="email"><textarea name="message"></textarea><button>Envoyer</button></form>`,
    ),
  },
  {
    name: 'product list with a chat widget mount',
    scriptBuilt: false,
    html: doc(
      'en',
      '<title>Bikes</title><script src="/js/chat-widget.js" async></script>',
      `<h1>Bikes</h1><ul>${Array.from({ length: 14 }, (_, i) => `<li><a href="/bike/${i}">Bike ${i}</a> ${repeat(FR, 80)}</li>`).join('')}</ul><div id="chat-root"></div>`,
    ),
  },
  {
    name: 'plain documentation page, no script',
    scriptBuilt: false,
    html: doc(
      'en',
      '<title>Manual</title>',
      `<h1>Manual</h1><p>${repeat(FR, 400)}</p><a href="/next">Next</a>`,
    ),
  },
  {
    name: 'image-only home page with many links and a slider script',
    scriptBuilt: false,
    html: doc(
      'en',
      '<title>Studio</title><script src="/js/slider.js" defer></script>',
      `${menu(12, 'en')}<div class="slider">${Array.from({ length: 5 }, (_, i) => `<img src="/s/${i}.jpg" alt="">`).join('')}</div>`,
    ),
  },
  {
    name: 'wordpress page in german with cookie plugin',
    scriptBuilt: false,
    html: doc(
      'de',
      "<title>Über uns</title><script src='/wp-includes/js/jquery/jquery.min.js'></script><script src='/wp-content/plugins/cookie-law-info/js/cookie-law-info-public.js'></script>",
      `<div id="page">${menu(8, 'de')}<main><h1>Über uns</h1><p>${repeat(DE, 1100)}</p></main></div><div id="cookie-law-info-bar">Diese Website verwendet Cookies.</div>`,
    ),
  },
  {
    name: 'sign-up page with a form and a short menu',
    scriptBuilt: false,
    html: doc(
      'en',
      '<title>Join</title><script src="/js/validate.js" defer></script>',
      '<header><a href="/">Club</a><a href="/events">Events</a></header><h1>Join the club</h1><form method="post"><input name="name"><input name="email" type="email"><button>Join</button></form>',
    ),
  },
  {
    name: 'server-rendered japanese q&a with votes script',
    scriptBuilt: false,
    html: doc(
      'ja',
      '<title>質問</title><script src="/js/vote.js" defer></script>',
      `<header>${menu(6, 'ja')}</header><h1>質問</h1><p>${repeat(JA, 500)}</p><div class="answers"><p>${repeat(JA, 400)}</p></div>`,
    ),
  },
  {
    name: 'events calendar month view, server-written',
    scriptBuilt: false,
    html: doc(
      'fr',
      '<title>Agenda</title><script src="/js/calendar-tooltips.js" defer></script>',
      `<h1>Juin</h1><table>${Array.from({ length: 5 }, (_, w) => `<tr>${Array.from({ length: 7 }, (_, d) => `<td><a href="/jour/${w * 7 + d + 1}">${w * 7 + d + 1}</a></td>`).join('')}</tr>`).join('')}</table>`,
    ),
  },
];
