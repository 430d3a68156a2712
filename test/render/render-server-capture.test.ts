import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { CAPTURE_PATHS, CAPTURE_SITE, NOT_LOADED_BY_BROWSER } from '../helpers/capture-site.js';
import { readAllLines } from '../helpers/pages.js';
import { serverProcesses } from '../helpers/server-process.js';
import { readWarcDir } from '../helpers/warc.js';

// --render with --requisites on `cobweb server`: its bunny captures what the browser
// loaded (capture.test.ts does it for `cobweb crawl`), the server marks each capture seen
// and hands the new ones back; the bunny archives them in its WARC files and sends their
// lines, which the server writes. Each file is requested once at the web server.

const t = serverProcesses('render-server-capture');
const chromium = haveChromium();

/** How many requests each path got (robots.txt aside). */
function requestCounts(log: readonly { path: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { path } of log) if (path !== '/robots.txt') counts.set(path, (counts.get(path) ?? 0) + 1);
  return counts;
}

/** A server rendering with --requisites, its one bunny run to the crawl's end; the server stopped. */
async function crawlOnServer(seeds: string[]): Promise<void> {
  const s = await t.server([
    ...seeds,
    '--render',
    'always',
    '--requisites',
    '--delay',
    '0',
    '--delay-factor',
    '0',
  ]);
  // Where its browser is, and how long it waits for a page's network: the bunny's own.
  const b = t.bunny('b1', s.port, ['--browser', CHROMIUM, '--render-wait', '500', '--json', '--quiet']);
  expect(await b.exit()).toBe(0);
  expect(t.summaryOf(b)).toMatchObject({ stoppedBy: 'finished', queued: 0 });
  s.child.kill('SIGTERM');
  await s.exit();
}

// Two processes and a browser start on a machine that may be busy.
describe.runIf(chromium)('cobweb server --render always --requisites', { timeout: 180_000 }, () => {
  it("its bunny captures a page's stylesheets, script, JSON and images: each requested once, archived once, its line captured", async () => {
    const site = await t.site('127.0.0.2', CAPTURE_SITE);
    const origin = site.origin;
    await crawlOnServer([`${origin}/`]);

    const counts = requestCounts(site.log);
    expect([...counts.keys()].sort()).toEqual(['/', ...CAPTURE_PATHS].sort());
    for (const [path, n] of counts) expect(n, path).toBe(1);

    // The bunny's WARC files hold the server's crawl: each file once, request and response.
    const records = await readWarcDir(join(t.dir, 'b1', 'warc'));
    for (const path of ['/', ...CAPTURE_PATHS]) {
      const uri = `${origin}${path}`;
      expect(records.filter((r) => r.type === 'response' && r.uri === uri).length, path).toBe(1);
      expect(records.filter((r) => r.type === 'request' && r.uri === uri).length, path).toBe(1);
    }
    const json = records.find((r) => r.type === 'response' && r.uri === `${origin}/api/data.json`);
    expect(json?.block.toString('latin1').endsWith('\r\n\r\n{"text":"from the script"}')).toBe(true);

    // The server wrote one line for each, captured but for what the browser never loaded.
    const lines = readAllLines(join(t.dir, 'server'));
    const crawler = lines.find((r) => r.url === `${origin}/`)?.crawler;
    for (const path of CAPTURE_PATHS) {
      const mine = lines.filter((r) => r.url === `${origin}${path}`);
      expect(mine.length, path).toBe(1);
      expect(mine[0]?.requisite, path).toBe(true);
      expect(mine[0]?.status, path).toBe(200);
      expect(mine[0]?.captured, path).toBe(NOT_LOADED_BY_BROWSER.includes(path) ? undefined : true);
      expect(mine[0]?.crawler, path).toBe(crawler);
    }
    const logo = lines.find((r) => r.url === `${origin}/img/logo.png`);
    expect(logo?.contentType).toBe('image/png');
    expect(logo?.bytes).toBeGreaterThan(0);
    expect(logo?.via).toBe(`${origin}/`);
    // No capture was written as refused (one whose bytes no bunny archived).
    expect(lines.filter((r) => r.detail === 'captured')).toEqual([]);
  });

  it('archives a file two rendered pages load once, with one line: the second capture was seen', async () => {
    const site = await t.site('127.0.0.2', CAPTURE_SITE);
    const origin = site.origin;
    await crawlOnServer([`${origin}/`, `${origin}/two`]);
    const responses = (await readWarcDir(join(t.dir, 'b1', 'warc'))).filter((r) => r.type === 'response');
    const lines = readAllLines(join(t.dir, 'server'));
    for (const path of ['/', '/two', ...CAPTURE_PATHS]) {
      expect(responses.filter((r) => r.uri === `${origin}${path}`).length, path).toBe(1);
      expect(lines.filter((r) => r.url === `${origin}${path}`).length, path).toBe(1);
    }
    expect(lines.find((r) => r.url === `${origin}/css/site.css`)?.captured).toBe(true);
    expect(lines.filter((r) => r.detail === 'captured')).toEqual([]);
  });
});
