/// <reference lib="dom" />
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { crawl } from '../../src/assembly/crawl.js';
import { haveChromium, launchChromium, type TestBrowser } from '../helpers/browser.js';
import { cobweb } from '../helpers/cli-process.js';
import type { TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { requestCount, startTestWeb } from '../helpers/test-web.js';

const DOCS_SCREENSHOT = join(import.meta.dirname, '../../docs/console.png');
const browserHere = haveChromium();

/** Console errors and failed requests of a page: a page that works has none. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

const text = (page: Page, selector: string) =>
  page
    .locator(selector)
    .textContent()
    .then((t) => t ?? '');
const numberIn = async (page: Page, selector: string) =>
  Number((await text(page, selector)).replace(/,/g, ''));

describe.skipIf(!browserHere)('the console in a real browser', () => {
  let sites: TestServer[] = [];
  let browser: TestBrowser | null = null;
  let dir = '';
  afterEach(async () => {
    await browser?.close();
    browser = null;
    for (const s of sites.splice(0)) await s.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('shows a crawl live; pause holds back every request, resume finishes it; seeds are added; read-only without the token', async () => {
    browser = await launchChromium();
    const web = await startTestWeb(['127.0.0.2', '127.0.0.3', '127.0.0.4'], 40);
    const later = await startTestWeb(['127.0.0.5'], 3);
    sites = [...web, ...later];
    dir = mkdtempSync(join(tmpdir(), 'cobweb-console-'));
    const child = cobweb([
      'crawl',
      ...web.map((s) => `${s.origin}/`),
      '--data',
      dir,
      '--http',
      '127.0.0.1:0',
      '--delay',
      '200',
      '--delay-factor',
      '0',
      '--scope',
      'any',
      // The seed added later is on another loopback address than the first seeds.
      '--allow-private',
      '--quiet',
    ]);
    const [, url] = (await child.line(/console on (http:\/\/\S+\/)/)) as RegExpMatchArray;
    const tokenFile = join(dir, 'token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();

    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(url as string);

    // Read-only without the token: the buttons are off, and the action itself is refused.
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'running');
    expect(await page.locator('#pause').isDisabled()).toBe(true);
    const refused = await page.evaluate(async () => {
      const none = await fetch('/api/pause', { method: 'POST' });
      const wrong = await fetch('/api/pause', { method: 'POST', headers: { 'x-cobweb-token': 'not-it' } });
      return [none.status, wrong.status];
    });
    expect(refused).toEqual([401, 403]);
    // The browser logs those two refusals as failed loads: they were asked for.
    expect(errors.splice(0)).toHaveLength(2);
    expect(await text(page, '#state')).toBe('running');

    // The counters and the chart move.
    const fetchedAtFirst = await numberIn(page, '#c-fetched');
    await page.waitForFunction(
      (n) => Number(document.getElementById('c-fetched')?.textContent) > n,
      fetchedAtFirst,
    );
    const points = Number(await page.locator('#chart-rate').getAttribute('data-points'));
    await page.waitForFunction(
      (n) => Number(document.getElementById('chart-rate')?.dataset.points) > n,
      points,
    );

    // With the token: pause, and no request reaches the web while it holds.
    await page.fill('#token', token);
    await page.click('#use-token');
    await page.waitForFunction(() => !(document.getElementById('pause') as HTMLButtonElement).disabled);
    await page.click('#pause');
    await page.waitForFunction(
      () =>
        document.getElementById('state')?.textContent === 'paused' &&
        document.getElementById('c-in-flight')?.textContent === '0',
    );
    const held = requestCount(sites);
    await new Promise((r) => setTimeout(r, 1500));
    expect(requestCount(sites)).toBe(held);
    expect(child.child.exitCode).toBe(null);

    // A seed added now waits for the resume.
    await page.fill('#seed-urls', `${later[0]?.origin}/`);
    await page.click('#add-seeds');
    await page.waitForFunction(() => document.getElementById('message')?.textContent?.includes('1 queued'));
    expect(requestCount(later)).toBe(0);

    const shot = process.env.COBWEB_SCREENSHOT === '1' ? DOCS_SCREENSHOT : join(dir, 'console.png');
    const png = await page.screenshot({ fullPage: false });
    writeFileSync(shot, png);
    expect(png.subarray(1, 4).toString()).toBe('PNG');

    // Resume: the crawl goes on to its end, the added seed's site too.
    await page.click('#resume');
    expect(await child.exit()).toBe(0);
    const lines = readPages(join(dir, 'pages.jsonl'));
    expect(lines.filter((l) => l.status === 200)).toHaveLength(3 * 40 + 3);
    expect(requestCount(later)).toBeGreaterThan(0);
    // The page heard the end before the console closed.
    expect(await text(page, '#state')).toBe('finished');
    expect(await text(page, '#uptime')).toContain('ended: finished');
    expect(errors).toEqual([]);
  });

  it('cobweb report writes a page that opens from disk with no error and no request', async () => {
    browser = await launchChromium();
    sites = await startTestWeb(['127.0.0.2', '127.0.0.3'], 15);
    dir = mkdtempSync(join(tmpdir(), 'cobweb-report-'));
    await crawl({
      seeds: sites.map((s) => `${s.origin}/`),
      data: dir,
      delayMs: 0,
      delayFactor: 0,
      scope: 'any',
      onLog: () => {},
    });
    const report = cobweb(['report', dir]);
    expect(await report.exit()).toBe(0);
    expect(report.stdout()).toContain(join(dir, 'report.html'));

    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
    });
    await page.goto(`file://${join(dir, 'report.html')}`);
    await page.waitForSelector('#statuses td');
    expect(await text(page, '#statuses')).toContain('200');
    expect(await text(page, '#hosts')).toContain(sites[0]?.origin.slice('http://'.length) ?? '?');
    expect(Number(await page.locator('#chart-timeline').getAttribute('data-points'))).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
  });
});
