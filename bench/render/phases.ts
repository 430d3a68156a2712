// Where a rendered page's time goes: one Chromium, one context, pages of the bench's
// script-built site rendered one after another, several ways. `load`: a new tab,
// navigate, wait for the load event, read the DOM (what Crawlee's PlaywrightCrawler does).
// `routed`: the same with every request of the tab going through a route, the navigation
// answered from bytes already fetched (what cobweb's renderer does; a route turns
// Chromium's HTTP cache off, so the page's script and stylesheet are asked for again).
// Then a tab kept for the next page (sent to about:blank after each page, or sent straight
// to the next URL), the page's script and stylesheet answered from memory once fetched
// (src/render/subresource-memo.ts), and last a quiet network after the load event
// (src/render/network-quiet.ts, cobweb's default --render-wait).
//
//   node --import tsx bench/render/phases.ts [pages]
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { NetworkQuiet } from '../../src/render/network-quiet.js';
import { SubresourceMemo } from '../../src/render/subresource-memo.js';
import { startSite, stopSite } from './site-process.js';

const PAGES = Number(process.argv[2] ?? 30);
const ROUNDS = 3;
const BROWSER = process.env.COBWEB_BROWSER ?? '/usr/bin/chromium';

interface Way {
  label: string;
  routed: boolean;
  reuse: 'no' | 'blank' | 'straight';
  memo: boolean;
  quiet: boolean;
}

const WAYS: Way[] = [
  { label: 'new tab, load (Crawlee)', routed: false, reuse: 'no', memo: false, quiet: false },
  { label: 'new tab, routed', routed: true, reuse: 'no', memo: false, quiet: false },
  { label: 'kept tab, about:blank after, routed', routed: true, reuse: 'blank', memo: false, quiet: false },
  { label: 'kept tab, straight to next, routed', routed: true, reuse: 'straight', memo: false, quiet: false },
  {
    label: 'kept tab, about:blank after, routed, memo',
    routed: true,
    reuse: 'blank',
    memo: true,
    quiet: false,
  },
  { label: 'new tab, routed, quiet', routed: true, reuse: 'no', memo: false, quiet: true },
  {
    label: 'kept tab, about:blank after, routed, memo, quiet',
    routed: true,
    reuse: 'blank',
    memo: true,
    quiet: true,
  },
];

async function renderOne(page: Page, url: string, way: Way, memo: SubresourceMemo): Promise<void> {
  const quiet = way.quiet ? new NetworkQuiet(page) : null;
  let handler: ((route: import('playwright-core').Route) => Promise<void>) | null = null;
  if (way.routed) {
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    let served = false;
    handler = async (route) => {
      const request = route.request();
      if (!served && request.isNavigationRequest()) {
        served = true;
        return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
      }
      const kept = way.memo ? memo.get(request) : null;
      if (kept !== null) return route.fulfill(kept);
      return route.continue();
    };
    await page.route('**/*', handler);
  }
  const remember = (request: import('playwright-core').Request): void => void memo.learn(request);
  if (way.memo) page.on('requestfinished', remember);
  try {
    await page.goto(url, { waitUntil: 'load' });
    await quiet?.settle(2000);
    await page.content();
  } finally {
    quiet?.stop();
    page.off('requestfinished', remember);
    if (handler !== null) await page.unroute('**/*', handler);
  }
}

async function runWay(context: BrowserContext, origin: string, way: Way, pages: number): Promise<number[]> {
  const memo = new SubresourceMemo(4 * 2 ** 20);
  const times: number[] = [];
  let kept: Page | null = null;
  for (let i = 0; i < pages; i++) {
    const started = performance.now();
    const page: Page = kept ?? (await context.newPage());
    await renderOne(page, `${origin}${i === 0 ? '/' : `/s/${i}.html`}`, way, memo);
    if (way.reuse === 'no') await page.close();
    else {
      if (way.reuse === 'blank') await page.goto('about:blank');
      kept = page;
    }
    times.push(performance.now() - started);
  }
  await kept?.close();
  return times;
}

async function main(): Promise<void> {
  const site = await startSite('script', PAGES, '127.0.0.63');
  const browser = await chromium.launch({ executablePath: BROWSER, headless: true });
  try {
    console.log(
      `${PAGES} script-built pages, one at a time, one Chromium (${BROWSER}), in ${ROUNDS} rounds of ${PAGES / ROUNDS} pages each way, the ways taking turns\n`,
    );
    console.log('| way | median ms a page | mean ms a page |\n|---|---|---|');
    // The ways take turns, a round each: a machine whose load changes slows them alike.
    const times = WAYS.map((): number[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, way] of WAYS.entries()) {
        const context = await browser.newContext();
        times[i]?.push(...(await runWay(context, site.origin, way, PAGES / ROUNDS)));
        await context.close();
      }
    }
    for (const [i, way] of WAYS.entries()) {
      const all = (times[i] ?? []).sort((a, b) => a - b);
      const mean = all.reduce((a, b) => a + b, 0) / all.length;
      console.log(
        `| ${way.label} | ${(all[Math.floor(all.length / 2)] ?? 0).toFixed(0)} | ${mean.toFixed(0)} |`,
      );
    }
  } finally {
    await browser.close();
    stopSite(site);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
