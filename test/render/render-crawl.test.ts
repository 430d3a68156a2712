import { existsSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CrawlOptionError } from '../../src/errors.js';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { SPA_SITE } from '../helpers/spa-site.js';

const h = crawlHarness('render', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });
const chromium = haveChromium();

const fetchedPaths = (origin: string) =>
  h
    .pages()
    .filter((p) => p.status !== null)
    .map((p) => p.url.slice(origin.length))
    .sort();

/** A page that, once loaded, asks the network for its link, which comes after a while. */
const LATE_SITE = {
  ...SPA_SITE,
  '/late': `<!doctype html><title>late</title><body><script>
    addEventListener('load', () => fetch('/slow.json').then((r) => r.json()).then((j) => {
      document.body.insertAdjacentHTML('beforeend', '<a href="' + j.href + '">late</a>');
    }));
  </script></body>`,
  '/slow.json': (_req: IncomingMessage, res: ServerResponse) => {
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"href":"/app/one"}'),
      700,
    );
  },
};

describe.runIf(chromium)('--render, in Chromium', () => {
  it('finds the links a script makes, and says the page was rendered', async () => {
    const site = await h.site('127.0.0.1', SPA_SITE);
    await h.run([`${site.origin}/`], { render: 'always', browser: CHROMIUM, renderWaitMs: 500 });
    expect(fetchedPaths(site.origin)).toEqual(['/', '/app/one', '/app/two']);
    const home = h.recordOf(`${site.origin}/`);
    expect(home?.rendered).toBe(true);
    expect(home?.title).toBe('The app');
    // The page was fetched once: the browser was served the crawl's response.
    expect(site.log.filter((r) => r.path === '/').length).toBe(1);
  });

  it('finds none of them without --render', async () => {
    const site = await h.site('127.0.0.1', SPA_SITE);
    await h.run([`${site.origin}/`]);
    expect(fetchedPaths(site.origin)).toEqual(['/']);
    expect(h.recordOf(`${site.origin}/`)?.rendered).toBe(undefined);
  });

  it('with auto, renders the app shell and reads a page of text as fetched', async () => {
    const text = 'A page its server wrote whole. '.repeat(20);
    const site = await h.site('127.0.0.1', {
      ...SPA_SITE,
      '/': `<!doctype html><title>home</title><p>${text}</p><a href="/shell">shell</a><script>1</script>`,
      '/shell': SPA_SITE['/'] as string,
    });
    await h.run([`${site.origin}/`], { render: 'auto', browser: CHROMIUM, renderWaitMs: 500 });
    expect(h.recordOf(`${site.origin}/`)?.rendered).toBe(undefined);
    expect(h.recordOf(`${site.origin}/shell`)?.rendered).toBe(true);
    expect(fetchedPaths(site.origin)).toEqual(['/', '/app/one', '/app/two', '/shell']);
  });

  it('with --render-wait 0, reads the page at its load event, before what it asks of the network comes', async () => {
    const site = await h.site('127.0.0.1', LATE_SITE);
    await h.run([`${site.origin}/late`], { render: 'always', browser: CHROMIUM, renderWaitMs: 0 });
    expect(h.recordOf(`${site.origin}/late`)?.rendered).toBe(true);
    expect(fetchedPaths(site.origin)).toEqual(['/late']);
  });

  it('waits, by --render-wait, for what a page asks of the network after its load event', async () => {
    const site = await h.site('127.0.0.1', LATE_SITE);
    await h.run([`${site.origin}/late`], { render: 'always', browser: CHROMIUM, renderWaitMs: 5000 });
    expect(fetchedPaths(site.origin)).toEqual(['/app/one', '/late']);
  });

  it('dismisses dialogs, and keeps what a page that never stops loading built by the deadline', async () => {
    const site = await h.site('127.0.0.1', SPA_SITE);
    await h.run([`${site.origin}/alert`, `${site.origin}/endless`], {
      render: 'always',
      browser: CHROMIUM,
      renderWaitMs: 200,
      totalTimeoutMs: 3000,
    });
    expect(h.recordOf(`${site.origin}/alert`)?.rendered).toBe(true);
    expect(h.recordOf(`${site.origin}/endless`)?.rendered).toBe(true);
    expect(fetchedPaths(site.origin)).toEqual(['/alert', '/app/one', '/app/two', '/endless']);
  });
});

describe('--render with no browser', () => {
  it('is refused before the data folder is touched', async () => {
    const env = { PATH: '/nonexistent', COBWEB_BROWSER: '' };
    const saved = { PATH: process.env.PATH, COBWEB_BROWSER: process.env.COBWEB_BROWSER };
    Object.assign(process.env, env);
    try {
      const data = join(h.dir, 'untouched');
      const run = h.run(['http://127.0.0.1:9/'], { render: 'always', data });
      await expect(run).rejects.toThrow(CrawlOptionError);
      await expect(run).rejects.toThrow(/none was found/);
      expect(existsSync(data)).toBe(false);
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.COBWEB_BROWSER === undefined) delete process.env.COBWEB_BROWSER;
      else process.env.COBWEB_BROWSER = saved.COBWEB_BROWSER;
    }
  });

  it('refuses a --browser that is not a program', async () => {
    const notAProgram = join(h.dir, 'chromium.txt');
    writeFileSync(notAProgram, 'not a browser', { mode: 0o644 });
    const run = h.run(['http://127.0.0.1:9/'], { render: 'auto', browser: notAProgram });
    await expect(run).rejects.toThrow(/--browser names .*chromium\.txt, which is not a program/);
  });
});
