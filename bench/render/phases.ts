// Where a rendered page's time goes: one Chromium, one context, pages of the bench's
// script-built site rendered one after another, three ways. `load`: a new tab, navigate,
// wait for the load event, read the DOM (what Crawlee's PlaywrightCrawler does).
// `+ routed`: the same with every request of the tab going through a route, the
// navigation answered from bytes already fetched (what cobweb's renderer does; a route
// turns Chromium's HTTP cache off, so the page's script and stylesheet are asked for
// again). `+ quiet`: that, then a quiet network (500 ms without a request, at most 2 s),
// cobweb's default --render-wait.
//
//   node --import tsx bench/render/phases.ts [pages]
import { chromium, type Page } from 'playwright-core';
import { startSite, stopSite } from './site-process.js';

const PAGES = Number(process.argv[2] ?? 30);
const BROWSER = process.env.COBWEB_BROWSER ?? '/usr/bin/chromium';

type Way = 'load' | 'routed' | 'quiet';

async function renderOne(page: Page, url: string, way: Way): Promise<number> {
  const started = performance.now();
  if (way !== 'load') {
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    let served = false;
    await page.route('**/*', (route) => {
      if (!served && route.request().isNavigationRequest()) {
        served = true;
        return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
      }
      return route.continue();
    });
  }
  await page.goto(url, { waitUntil: 'load' });
  if (way === 'quiet') await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => {});
  await page.content();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const site = await startSite('script', PAGES, '127.0.0.63');
  const browser = await chromium.launch({ executablePath: BROWSER, headless: true });
  try {
    console.log(`${PAGES} script-built pages, one at a time, one Chromium (${BROWSER})\n`);
    console.log('| way | median ms a page | mean ms a page |\n|---|---|---|');
    for (const way of ['load', 'routed', 'quiet'] as const) {
      const context = await browser.newContext();
      const times: number[] = [];
      for (let i = 0; i < PAGES; i++) {
        const page = await context.newPage();
        times.push(await renderOne(page, `${site.origin}${i === 0 ? '/' : `/s/${i}.html`}`, way));
        await page.close();
      }
      await context.close();
      times.sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const label = { load: 'load', routed: 'load + routed', quiet: 'load + routed + quiet' }[way];
      console.log(
        `| ${label} | ${(times[Math.floor(times.length / 2)] ?? 0).toFixed(0)} | ${mean.toFixed(0)} |`,
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
