/// <reference lib="dom" />
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/console/report.js';
import { layoutOf } from '../../src/data-dir/layout.js';
import { haveChromium, launchChromium, type TestBrowser } from '../helpers/browser.js';

const browserHere = haveChromium();

/** A pages.jsonl line as a crawl writes it; `at` is when its fetch started. */
function line(
  url: string,
  depth: number,
  crawler: number,
  at: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    url,
    status: at === null ? null : 200,
    contentType: at === null ? null : 'text/html; charset=utf-8',
    bytes: at === null ? null : 1000,
    depth,
    title: null,
    outlinks: 0,
    hasForm: false,
    fetchedAt: at,
    durationMs: at === null ? null : 1000,
    via: null,
    crawler,
    ...extra,
  };
}

describe.skipIf(!browserHere)('the report in a real browser', () => {
  let browser: TestBrowser | null = null;
  let dir = '';
  afterEach(async () => {
    await browser?.close();
    browser = null;
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('draws fetched pages per whole depth as bars, shows the biggest pages whole, and sums the runs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-report-'));
    const long = `http://127.0.0.2/${'a-very-long-path-segment/'.repeat(12)}page.html`;
    const lines = [
      // Run 1 (crawler 1): 10 s, pages at depths 0 and 1.
      line('http://127.0.0.2/', 0, 1, '2026-01-01T10:00:00.000Z'),
      line('http://127.0.0.2/a', 1, 1, '2026-01-01T10:00:05.000Z'),
      line(long, 1, 1, '2026-01-01T10:00:09.000Z', { bytes: 987_654_321 }),
      // Refused, never fetched: at depths 2 and 7, counted in no bar.
      line('http://elsewhere.test/', 2, 1, null, { error: 'filtered', detail: 'scope' }),
      line('http://127.0.0.2/x.zip', 7, 1, null, { error: 'filtered', detail: 'extension' }),
      // Run 2 (crawler 2), three hours later: 20 s, a page at depth 3.
      line('http://127.0.0.2/b', 3, 2, '2026-01-01T13:00:00.000Z'),
      line('http://127.0.0.2/c', 3, 2, '2026-01-01T13:00:19.000Z'),
    ];
    writeFileSync(join(dir, 'pages.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const { file } = await writeReport(layoutOf(dir));

    browser = await launchChromium();
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 1000 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${file}`);
    await page.waitForSelector('#biggest td');

    // One bar per whole depth from 0 to the deepest fetched page, each its fetched pages.
    const bars = await page
      .locator('#chart-depth .bar')
      .evaluateAll((els) =>
        els.map((e) => [(e as HTMLElement).dataset.depth, (e as HTMLElement).dataset.pages, e.textContent]),
      );
    expect(bars).toEqual([
      ['0', '1', '10'],
      ['1', '2', '21'],
      ['2', '0', '02'],
      ['3', '2', '23'],
    ]);

    // The size column is inside its box, its text whole, with no sideways scrolling.
    const fit = await page.locator('#biggest').evaluate((table) => {
      const box = (table.parentElement as HTMLElement).getBoundingClientRect();
      const cells = Array.from(table.querySelectorAll('tbody tr td:first-child')) as HTMLElement[];
      return {
        sizes: cells.map((c) => c.textContent),
        inside: cells.every((c) => c.getBoundingClientRect().right <= box.right + 0.5),
        whole: cells.every((c) => c.scrollWidth <= c.clientWidth),
        scrolls:
          (table.parentElement as HTMLElement).scrollWidth > (table.parentElement as HTMLElement).clientWidth,
      };
    });
    expect(fit.sizes[0]).toBe('941.9 MiB');
    expect(fit).toMatchObject({ inside: true, whole: true, scrolls: false });

    // Crawl time: 10 s + 20 s, not the three hours between the runs.
    const counters = await page
      .locator('#counters .counter')
      .evaluateAll((els) =>
        Object.fromEntries(
          els.map((e) => [e.querySelector('span')?.textContent, e.querySelector('b')?.textContent]),
        ),
      );
    expect(counters['crawl time']).toBe('30s');
    expect(errors).toEqual([]);
  });
});
