import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { crawlHarness } from '../helpers/crawl-harness.js';

// One page rendered at a time: each page of the host is rendered in the tab the one before
// it left, and its stylesheet and script come from what the host's context kept.

const h = crawlHarness('render-tabs', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });
const chromium = haveChromium();
const ONE_TAB = {
  render: 'always',
  browser: CHROMIUM,
  renderWaitMs: 400,
  concurrency: 1,
  renderConcurrency: 1,
} as const;

function asset(type: string, body: string, cacheControl: string) {
  return (_req: IncomingMessage, res: ServerResponse) =>
    void res.writeHead(200, { 'content-type': type, 'cache-control': cacheControl }).end(body);
}

const text = (body: string) => (_req: IncomingMessage, res: ServerResponse) =>
  void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);

const HEAD =
  '<!doctype html><link rel="stylesheet" href="/style.css"><script src="/app.js"></script><script src="/fresh.js"></script>';

const SITE = {
  // The first page leaves what it can in its tab: session storage, the window's name, a
  // timer that keeps asking the host for more.
  '/': `${HEAD}<title>one</title><body><script>
    sessionStorage.setItem('seen', 'one');
    window.name = 'one';
    setInterval(() => fetch('/tick').catch(() => {}), 50);
    addEventListener('load', () => { for (const n of [1, 2, 3]) fetch('/data/' + n); });
    document.body.insertAdjacentHTML('beforeend', '<a href="/two">two</a>');
  </script></body>`,
  // The second says, by the link its script makes, what of the first it saw.
  '/two': `${HEAD}<title>two</title><body><script>
    const saw = [sessionStorage.getItem('seen'), window.name].filter(Boolean).join('-');
    document.body.insertAdjacentHTML('beforeend',
      '<a href="' + (saw === '' ? '/nothing-left' : '/saw/' + saw) + '">what was left</a><a href="/three">three</a>');
    fetch('/data/4');
  </script></body>`,
  '/three': `${HEAD}<title>three</title><body>three</body>`,
  // Kept by a browser's cache for an hour; and one it may not keep.
  '/style.css': asset('text/css', 'body { color: #333 }', 'max-age=3600'),
  '/app.js': asset(
    'text/javascript',
    "document.addEventListener('DOMContentLoaded', () => document.body.insertAdjacentHTML('beforeend', '<a href=\"/by-app' + location.pathname + '\">app</a>'));",
    'public, max-age=3600',
  ),
  '/fresh.js': asset('text/javascript', 'window.fresh = true;', 'no-store'),
  '/tick': text('tick'),
  ...Object.fromEntries([1, 2, 3, 4].map((n) => [`/data/${n}`, text(`data ${n}`)])),
  '/nothing-left': text('a fresh tab'),
  '/by-app/': text('app'),
  '/by-app/two': text('app'),
  '/by-app/three': text('app'),
};

const hits = (log: readonly { path: string }[], path: string) => log.filter((r) => r.path === path).length;

describe.runIf(chromium)('rendered pages of a host, one after another', () => {
  it('see nothing of the page before in their tab, and count only their own requests', async () => {
    const site = await h.site('127.0.0.1', SITE);
    await h.run([`${site.origin}/`], ONE_TAB);
    const paths = h
      .pages()
      .filter((p) => p.status !== null)
      .map((p) => p.url.slice(site.origin.length));
    expect(paths).toContain('/nothing-left');
    expect(paths.filter((p) => p.startsWith('/saw/'))).toEqual([]);
    // The script ran on every page, the two served from memory included.
    expect(paths).toEqual(expect.arrayContaining(['/by-app/', '/by-app/two', '/by-app/three']));
    for (const path of ['/', '/two', '/three'])
      expect(h.recordOf(`${site.origin}${path}`)?.rendered).toBe(true);
    // The second page's own: its /data/4, and the no-store script; none of the first's ticks.
    expect(h.recordOf(`${site.origin}/two`)?.subrequests).toEqual({ made: 2, refused: 0 });
    expect(h.recordOf(`${site.origin}/three`)?.subrequests).toEqual({ made: 1, refused: 0 });
    // The ticks stopped with the first page: none came once the second was fetched.
    const twoAt = site.log.find((r) => r.path === '/two')?.at ?? 0;
    expect(site.log.filter((r) => r.path === '/tick' && r.at > twoAt)).toEqual([]);
  });

  it('ask the host once for a stylesheet and a script it lets a browser keep, and every time for one it does not', async () => {
    const site = await h.site('127.0.0.1', SITE);
    await h.run([`${site.origin}/`], ONE_TAB);
    expect(hits(site.log, '/style.css')).toBe(1);
    expect(hits(site.log, '/app.js')).toBe(1);
    expect(hits(site.log, '/fresh.js')).toBe(3);
  });
});
