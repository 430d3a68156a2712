import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import type { LoggedRequest } from '../helpers/http.js';

const h = crawlHarness('render-polite', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });
const chromium = haveChromium();
const rendering = { render: 'always', browser: CHROMIUM } as const;

/** How many requests the page's script makes: one under a path robots.txt disallows, then DATA_REQUESTS at once. */
const DATA_REQUESTS = 30;

/** A page whose script asks its host for far more than a page should. */
const GREEDY_SITE = {
  '/robots.txt': (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
  },
  '/': `<!doctype html><title>greedy</title><body><script>
    (async () => {
      await fetch('/private/first').catch(() => {});
      await Promise.all(Array.from({ length: ${DATA_REQUESTS} }, (_, i) => fetch('/data/' + i).catch(() => {})));
      document.title = 'done';
    })();
  </script></body>`,
  '/private/first': text('private'),
  ...Object.fromEntries(Array.from({ length: DATA_REQUESTS }, (_, i) => [`/data/${i}`, text(`data ${i}`)])),
};

function text(body: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(body);
  };
}

/** The gaps between the arrivals of consecutive requests, in ms. */
function gapsOf(log: readonly LoggedRequest[]): number[] {
  const at = log.map((r) => r.at).sort((a, b) => a - b);
  return at.slice(1).map((t, i) => t - (at[i] as number));
}

const cookieOf = (r: LoggedRequest | undefined) => String(r?.headers.cookie ?? '');

describe.runIf(chromium)("a rendered page's own requests", () => {
  it("wait their host's gap, stop at --render-requests, and the line says how many went and how many were refused", async () => {
    const delayMs = 250;
    const cap = 8;
    const site = await h.site('127.0.0.1', GREEDY_SITE);
    await h.run([`${site.origin}/`], {
      ...rendering,
      delayMs,
      renderRequests: cap,
      renderWaitMs: 8_000,
      totalTimeoutMs: 20_000,
    });
    const own = site.log.filter((r) => r.path !== '/' && r.path !== '/robots.txt');
    // The cap holds at the server, and the page's line counts what the server saw.
    expect(own.length).toBe(cap);
    const record = h.recordOf(`${site.origin}/`);
    expect(record?.rendered).toBe(true);
    expect(record?.subrequests).toEqual({ made: cap, refused: 1 + DATA_REQUESTS - cap });
    // Every request the host got, robots.txt and the page included, came --delay after the one before.
    expect(site.log.length).toBe(cap + 2);
    for (const gap of gapsOf(site.log)) expect(gap).toBeGreaterThanOrEqual(delayMs);
  });

  it("keep to the host's Crawl-delay too", async () => {
    const site = await h.site('127.0.0.1', {
      ...GREEDY_SITE,
      '/robots.txt': (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 0.3\n');
      },
    });
    await h.run([`${site.origin}/`], { ...rendering, renderRequests: 4, renderWaitMs: 5_000 });
    expect(h.recordOf(`${site.origin}/`)?.subrequests?.made).toBe(4);
    expect(site.log.length).toBe(4 + 2);
    for (const gap of gapsOf(site.log)) expect(gap).toBeGreaterThanOrEqual(300);
  });

  it("are sent whatever the host's robots.txt says: they are the page's, which robots.txt allowed", async () => {
    const site = await h.site('127.0.0.1', GREEDY_SITE);
    await h.run([`${site.origin}/`], { ...rendering, renderRequests: 1, renderWaitMs: 2_000 });
    expect(site.log.map((r) => r.path)).toEqual(['/robots.txt', '/', '/private/first']);
    expect(h.recordOf(`${site.origin}/`)?.subrequests).toEqual({ made: 1, refused: DATA_REQUESTS });
    // A link to the same path is a page the crawl would fetch: that robots.txt refuses.
    const linked = await h.site('127.0.0.2', {
      '/robots.txt': GREEDY_SITE['/robots.txt'],
      '/': '<!doctype html><title>links</title><a href="/private/first">private</a>',
      '/private/first': text('private'),
    });
    await h.run([`${linked.origin}/`], { ...rendering, renderWaitMs: 500, data: join(h.dir, 'linked') });
    expect(linked.log.map((r) => r.path)).toEqual(['/robots.txt', '/']);
  });
});

describe.runIf(chromium)('cookies, with --render', () => {
  it("go from the crawl's fetches into the browser: a cookie set on a redirect is sent by the page's script", async () => {
    const site = await h.site('127.0.0.1', {
      '/start': (_req, res) => {
        res
          .writeHead(302, {
            location: '/page',
            'set-cookie': ['sid=from-fetch; Path=/', 'deep=api-only; Path=/api'],
          })
          .end();
      },
      '/page': `<!doctype html><title>page</title><body><script>
        fetch('/check').then(() => fetch('/api/check'));
      </script></body>`,
      '/check': text('ok'),
      '/api/check': text('ok'),
    });
    await h.run([`${site.origin}/start`], { ...rendering, renderWaitMs: 2_000 });
    expect(h.recordOf(`${site.origin}/page`)?.rendered).toBe(true);
    const check = site.log.find((r) => r.path === '/check');
    expect(cookieOf(check)).toBe('sid=from-fetch');
    // A cookie of another path went into the browser too, and the browser kept to its path.
    const api = site.log.find((r) => r.path === '/api/check');
    expect(cookieOf(api).split('; ').sort()).toEqual(['deep=api-only', 'sid=from-fetch']);
  });

  it("come back from the browser to the crawl's jar: the next fetch sends what the page's script and its XHR set", async () => {
    const site = await h.site('127.0.0.1', {
      '/': `<!doctype html><title>home</title><body><a href="/next">next</a><script>
        document.cookie = 'script=set-by-js; path=/';
        fetch('/set');
      </script></body>`,
      '/set': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'xhr=set-on-xhr; Path=/' })
          .end('ok');
      },
      '/next': '<!doctype html><title>next</title><p>next</p>',
    });
    await h.run([`${site.origin}/`], { ...rendering, renderWaitMs: 2_000 });
    // The first fetch had no cookie to send; the next one sends both the page made.
    expect(cookieOf(site.log.find((r) => r.path === '/'))).toBe('');
    const next = site.log.find((r) => r.path === '/next');
    expect(cookieOf(next).split('; ').sort()).toEqual(['script=set-by-js', 'xhr=set-on-xhr']);
  });

  it('of --header go into the browser too, and stay out of the jar: the next fetch sends them once', async () => {
    const site = await h.site('127.0.0.1', {
      '/': `<!doctype html><title>home</title><body><a href="/next">next</a><script>
        fetch('/check');
      </script></body>`,
      '/check': text('ok'),
      '/next': '<!doctype html><title>next</title><p>next</p>',
    });
    await h.run([`${site.origin}/`], {
      ...rendering,
      renderWaitMs: 2_000,
      headers: { Cookie: 'token=from-header' },
    });
    expect(cookieOf(site.log.find((r) => r.path === '/check'))).toBe('token=from-header');
    expect(cookieOf(site.log.find((r) => r.path === '/next'))).toBe('token=from-header');
  });
});
