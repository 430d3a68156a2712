import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny, serve } from '../../src/index.js';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { serve as httpServe, routes, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { SPA_SITE } from '../helpers/spa-site.js';

// --render is the crawl's setting: a server given it has its bunnies render, whatever
// they were started with. Fetches counted at the web server.

const chromium = haveChromium();
let dir = '';
let site: TestServer | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-render-server-'));
});

afterEach(async () => {
  await site?.close();
  site = null;
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(chromium)('--render on a server, in Chromium', { timeout: 120_000 }, () => {
  it("a bunny renders the server's pages: the script-made links are found, each page fetched once", async () => {
    site = await httpServe('127.0.0.2', routes(SPA_SITE));
    const stop = new AbortController();
    const server = await serve({
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
