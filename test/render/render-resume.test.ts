import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { cobweb } from '../helpers/cli-process.js';
import { serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

// kill -9 of a crawl while it renders, then the same command: nothing lost. The site's
// pages make their one link by script, a chain of PAGES, so only rendering finds them.

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
  it('the same command again goes on: every page of the script-made chain, each written once', async () => {
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
    const before = written().length;
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThan(PAGES);

    const again = cobweb([...args, '--delay', '0', '--quiet']);
    expect(await again.exit()).toBe(0);
    const urls = written().map((r) => r.url);
    const all = [
      `${site.origin}/`,
      ...Array.from({ length: PAGES - 1 }, (_, i) => `${site?.origin}/p/${i + 1}`),
    ];
    expect([...new Set(urls)].sort()).toEqual([...all].sort());
    expect(urls).toHaveLength(PAGES);
    expect(written().every((r) => r.rendered === true)).toBe(true);
  });
});
