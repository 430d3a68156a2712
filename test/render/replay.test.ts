import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium, launchChromium } from '../helpers/browser.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { serve } from '../helpers/http.js';
import { REQUISITE_SITE } from '../helpers/requisite-site.js';

// The archivist's check: a page crawled with --requisites replays in ReplayWeb.page
// (Webrecorder's npm package, served from loopback into Debian's Chromium) as it looked,
// its stylesheet applied and its image loaded, with the site itself gone.

const h = crawlHarness('replay', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });
const chromium = haveChromium();
// The package's folder: it exports no path of its own to resolve, so found from the project's root.
const REPLAY = join(import.meta.dirname, '../../node_modules/replaywebpage');

/** The crawl's WARC files as one (gzip members concatenate), as a user hands ReplayWeb.page one file. */
function oneWarc(dir: string): Buffer {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.warc.gz'))
    .sort();
  return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
}

describe.runIf(chromium)('a --requisites crawl in ReplayWeb.page', () => {
  it('replays the page with its stylesheet applied and its image loaded', { timeout: 120_000 }, async () => {
    const site = await h.site('127.0.0.1', REQUISITE_SITE);
    await h.run([`${site.origin}/`], { requisites: true });
    // Gone: whatever the replay shows comes from the WARC.
    await site.close();
    expect(await replayed(`${site.origin}/`)).toEqual(AS_IT_LOOKED);
  });

  it('replays a rendered page whose requisites were taken from the browser', {
    timeout: 120_000,
  }, async () => {
    const site = await h.site('127.0.0.1', REQUISITE_SITE);
    await h.run([`${site.origin}/`], {
      requisites: true,
      render: 'always',
      browser: CHROMIUM,
      renderWaitMs: 500,
    });
    await site.close();
    // The stylesheet and the image were the browser's captures, not the crawl's fetches.
    for (const path of ['/css/site.css', '/img/logo.png'])
      expect(h.recordOf(`${site.origin}${path}`)?.captured, path).toBe(true);
    expect(await replayed(`${site.origin}/`)).toEqual(AS_IT_LOOKED);
  });
});

/** site.css colours #title green; logo.png is a 1x1 PNG. */
const AS_IT_LOOKED = { color: 'rgb(0, 128, 0)', logoWidth: 1 };

/**
 * The crawl's WARC in ReplayWeb.page, served from another loopback address: the colour
 * of the replayed page's title and the width its logo decoded to.
 */
async function replayed(pageUrl: string): Promise<{ color: string; logoWidth: number } | null> {
  const warc = oneWarc(join(h.dir, 'warc'));
  const files: Record<string, [string, Buffer | string]> = {
    '/replay/sw.js': ['text/javascript', readFileSync(join(REPLAY, 'sw.js'))],
    '/replay/ui.js': ['text/javascript', readFileSync(join(REPLAY, 'ui.js'))],
    '/replay/': ['text/html', readFileSync(join(REPLAY, 'index.html'))],
    '/archive.warc.gz': ['application/warc', warc],
    '/': [
      'text/html',
      `<!doctype html><html><head><script src="/replay/ui.js"></script></head><body style="height:900px">
<replay-web-page source="/archive.warc.gz" url="${pageUrl}" replayBase="/replay/" embed="replayonly"></replay-web-page></body></html>`,
    ],
  };
  const player = await serve('127.0.0.2', (req, res) => {
    const file = files[(req.url ?? '/').split('?')[0] as string];
    if (file === undefined) return void res.writeHead(404).end();
    // ReplayWeb.page reads an archive's size first, and its parts by Range requests.
    const body = Buffer.from(file[1]);
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range === null) {
      res.writeHead(200, {
        'content-type': file[0],
        'content-length': body.length,
        'accept-ranges': 'bytes',
      });
      return void res.end(req.method === 'HEAD' ? undefined : body);
    }
    const start = Number(range[1]);
    const end = Math.min(range[2] === '' ? body.length - 1 : Number(range[2]), body.length - 1);
    res.writeHead(206, {
      'content-type': file[0],
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${body.length}`,
      'accept-ranges': 'bytes',
    });
    res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
  });
  const browser = await launchChromium();
  try {
    const tab = await browser.context.newPage();
    await tab.goto(`${player.origin}/`);
    // ReplayWeb.page nests the replayed page in its own frame, at .../mp_/URL.
    let replayed = null;
    for (let i = 0; i < 600 && replayed === null; i++) {
      replayed = tab.frames().find((f) => f.url().includes('mp_/') && f.url().endsWith(pageUrl)) ?? null;
      if (replayed === null) await tab.waitForTimeout(100);
    }
    expect(replayed, 'the replayed page frame').not.toBe(null);
    if (replayed === null) return null;
    await replayed.waitForSelector('#logo', { timeout: 30_000 });
    await replayed.waitForFunction(
      () => (document.getElementById('logo') as HTMLImageElement).complete,
      null,
      {
        timeout: 30_000,
      },
    );
    return await replayed.evaluate(() => ({
      color: getComputedStyle(document.getElementById('title') as HTMLElement).color,
      logoWidth: (document.getElementById('logo') as HTMLImageElement).naturalWidth,
    }));
  } finally {
    await browser.close();
    await player.close();
  }
}
