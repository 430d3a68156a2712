import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny, serve as serveCrawl } from '../../src/index.js';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { cobweb } from '../helpers/cli-process.js';
import { routes, serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { SPA_SITE } from '../helpers/spa-site.js';

// Rendering in the processes a user runs: kill -9 of a crawl while it renders, then the
// same command (nothing lost; the site's pages make their one link by script, a chain of
// PAGES, so only rendering finds them); and --render as the crawl's setting, which a
// server gives its bunnies. Fetches counted at the web server.

const chromium = haveChromium();
const PAGES = 12;
let dir = '';
let site: TestServer | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-render-resume-'));
});

afterEach(async () => {
  await site?.close();
  site = null;
  rmSync(dir, { recursive: true, force: true });
});

/** Page N's link to page N + 1 is written by its script; the last page has none. */
function chainPage(n: number): string {
  const next =
    n + 1 < PAGES
      ? `<script>const a = document.createElement('a'); a.href = '/p/${n + 1}'; a.textContent = 'next'; document.body.appendChild(a);</script>`
      : '';
  return `<!doctype html><html><head><title>page ${n}</title></head><body><p>page ${n}</p>${next}</body></html>`;
}

describe.runIf(chromium)('kill -9 while rendering', { timeout: 150_000 }, () => {
  it('the same command again goes on: every page of the script-made chain, once but the one unfinished at the kill', async () => {
    site = await serve('127.0.0.2', (req, res) => {
      const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
      const n = req.url === '/' ? 0 : m === null ? -1 : Number(m[1]);
      if (n < 0 || n >= PAGES) res.writeHead(404, { 'content-type': 'text/html' }).end('<title>no</title>');
      else res.writeHead(200, { 'content-type': 'text/html' }).end(chainPage(n));
    });
    const data = join(dir, 'crawl');
    const args = ['crawl', `${site.origin}/`, '--data', data, '--render', 'always', '--browser', CHROMIUM];
    const file = join(data, 'pages.jsonl');
    const written = () => (existsSync(file) ? readPages(file).filter((r) => r.status === 200) : []);

    const first = cobweb([...args, '--delay', '300', '--quiet']);
    for (let turn = 0; turn < 600 && written().length < 3; turn++)
      await new Promise((r) => setTimeout(r, 50));
    first.child.kill('SIGKILL');
    await first.exit();
    const before = written();
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(PAGES);

    const again = cobweb([...args, '--delay', '0', '--quiet']);
    expect(await again.exit()).toBe(0);
    const urls = written().map((r) => r.url);
    const all = [
      `${site.origin}/`,
      ...Array.from({ length: PAGES - 1 }, (_, i) => `${site?.origin}/p/${i + 1}`),
    ];
    expect([...new Set(urls)].sort()).toEqual([...all].sort());
    // A line is written before the store keeps its page done (README, "kill -9"): the kill
    // may fall between the two, and the page is fetched and written again. The chain has
    // one page in flight at a time, so only the last line before the kill may appear twice.
    const twice = urls.filter((u, i) => urls.indexOf(u) !== i);
    expect(twice.length).toBeLessThanOrEqual(1);
    for (const u of twice) expect(u).toBe(before[before.length - 1]?.url);
    expect(written().every((r) => r.rendered === true)).toBe(true);
  });
});

describe.runIf(chromium)('--render on a server, in Chromium', { timeout: 120_000 }, () => {
  it("a bunny renders the server's pages: the script-made links are found, each page fetched once", async () => {
    site = await serve('127.0.0.2', routes(SPA_SITE));
    const stop = new AbortController();
    const server = await serveCrawl({
      seeds: [`${site.origin}/`],
      data: join(dir, 'server'),
      listen: '127.0.0.1:0',
      delayMs: 0,
      delayFactor: 0,
      builtinModules: false,
      render: 'always',
      renderWaitMs: 500,
      signal: stop.signal,
    });
    // The bunny is told to render by its server; it is given only where its browser is.
    const summary = await bunny({
      server: server.listen,
      token: server.token,
      data: join(dir, 'bunny'),
      browser: CHROMIUM,
    });
    stop.abort();
    await server.done;

    expect(summary.stoppedBy).toBe('finished');
    const lines = readPages(join(dir, 'server', 'pages.jsonl')).filter((r) => r.status !== null);
    const origin = site.origin;
    expect(lines.map((r) => r.url.slice(origin.length)).sort()).toEqual(['/', '/app/one', '/app/two']);
    expect(lines.find((r) => r.url === `${origin}/`)?.rendered).toBe(true);
    // Each page reached the web server once (the browser was given the crawl's response);
    // the browser asked only for the page's own script besides.
    const asked = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
    for (const page of ['/', '/app/one', '/app/two']) expect(asked.filter((p) => p === page)).toHaveLength(1);
    expect(new Set(asked)).toEqual(new Set(['/', '/app/one', '/app/two', '/app.js']));
  });
});
