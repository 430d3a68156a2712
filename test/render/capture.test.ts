import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CrawlOptionError } from '../../src/errors.js';
import { CHROMIUM, haveChromium } from '../helpers/browser.js';
import { CAPTURE_PATHS, CAPTURE_SITE, NOT_LOADED_BY_BROWSER } from '../helpers/capture-site.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import type { Handler } from '../helpers/http.js';
import { readWarcDir } from '../helpers/warc.js';

// --render with --requisites: what the browser loaded for a page is taken from the
// browser (the DevTools protocol) and archived, not fetched a second time.

const h = crawlHarness('capture', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });
const chromium = haveChromium();
const RENDER = { render: 'always', browser: CHROMIUM, renderWaitMs: 500 } as const;

/** How many requests each path got (robots.txt aside). */
function requestCounts(log: readonly { path: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { path } of log) if (path !== '/robots.txt') counts.set(path, (counts.get(path) ?? 0) + 1);
  return counts;
}

// A 1x1 PNG, what a browser decodes (and keeps the body of).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function png(body: Buffer): Handler {
  return (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(body);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.runIf(chromium)('--render with --requisites', () => {
  it('archives what the browser loaded once, each requested once at the server', async () => {
    const site = await h.site('127.0.0.1', CAPTURE_SITE);
    await h.run([`${site.origin}/`], { ...RENDER, requisites: true });

    const counts = requestCounts(site.log);
    expect([...counts.keys()].sort()).toEqual(['/', ...CAPTURE_PATHS].sort());
    for (const path of ['/', ...CAPTURE_PATHS]) expect(counts.get(path), path).toBe(1);

    const records = await readWarcDir(join(h.dir, 'warc'));
    for (const path of ['/', ...CAPTURE_PATHS]) {
      const uri = `${site.origin}${path}`;
      expect(records.filter((r) => r.type === 'response' && r.uri === uri).length, path).toBe(1);
      expect(records.filter((r) => r.type === 'request' && r.uri === uri).length, path).toBe(1);
    }
    // The JSON the script fetched, as the browser got it: decoded, its length its own.
    const json = records.find((r) => r.type === 'response' && r.uri === `${site.origin}/api/data.json`);
    const text = json?.block.toString('latin1') ?? '';
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(text.endsWith('\r\n\r\n{"text":"from the script"}')).toBe(true);
    expect(text).toMatch(/\r\nContent-Length: 26\r\n/);

    const pages = h.pages();
    for (const path of CAPTURE_PATHS) {
      const line = pages.find((p) => p.url === `${site.origin}${path}`);
      expect(line?.requisite, path).toBe(true);
      expect(line?.status, path).toBe(200);
      expect(line?.captured, path).toBe(NOT_LOADED_BY_BROWSER.includes(path) ? undefined : true);
    }
    expect(pages.find((p) => p.url === `${site.origin}/css/deep.css`)?.via).toBe(`${site.origin}/`);
    expect(pages.find((p) => p.url === `${site.origin}/img/logo.png`)?.contentType).toBe('image/png');
  });

  it('archives a requisite two rendered pages load once', async () => {
    const site = await h.site('127.0.0.1', CAPTURE_SITE);
    await h.run([`${site.origin}/`, `${site.origin}/two`], { ...RENDER, requisites: true });
    const responses = (await readWarcDir(join(h.dir, 'warc'))).filter((r) => r.type === 'response');
    for (const path of ['/', '/two', ...CAPTURE_PATHS]) {
      expect(responses.filter((r) => r.uri === `${site.origin}${path}`).length, path).toBe(1);
    }
    const lines = h.pages().filter((p) => p.url === `${site.origin}/css/site.css`);
    expect(lines.length).toBe(1);
  });

  it('leaves a body past --max-body to the crawl, which records it as too large', async () => {
    const site = await h.site('127.0.0.1', {
      '/': '<!doctype html><title>big</title><img src="/img/big.png"><img src="/img/small.png">',
      '/img/big.png': png(Buffer.concat([PNG, Buffer.alloc(4000)])),
      '/img/small.png': png(PNG),
    });
    await h.run([`${site.origin}/`], { ...RENDER, requisites: true, maxBodyBytes: 1000 });
    expect(h.recordOf(`${site.origin}/img/small.png`)?.captured).toBe(true);
    const big = h.recordOf(`${site.origin}/img/big.png`);
    expect(big?.captured).toBe(undefined);
    expect(big?.error).toBe('too-large');
  });

  it('fetches what the browser kept no whole body of (an image it could not decode)', async () => {
    const site = await h.site('127.0.0.1', {
      '/': '<!doctype html><title>broken</title><img src="/img/broken.png">',
      '/img/broken.png': png(Buffer.alloc(300)),
    });
    await h.run([`${site.origin}/`], { ...RENDER, requisites: true });
    const line = h.recordOf(`${site.origin}/img/broken.png`);
    expect(line?.captured).toBe(undefined);
    expect(line?.bytes).toBe(300);
    const responses = (await readWarcDir(join(h.dir, 'warc'))).filter(
      (r) => r.type === 'response' && r.uri === `${site.origin}/img/broken.png`,
    );
    expect(responses.length).toBe(1);
    expect(responses[0]?.block.length).toBeGreaterThan(300);
  });

  it('without --requisites, loads no image and archives nothing but the page', async () => {
    const site = await h.site('127.0.0.1', CAPTURE_SITE);
    await h.run([`${site.origin}/`], RENDER);
    const counts = requestCounts(site.log);
    expect(counts.has('/img/logo.png')).toBe(false);
    expect(counts.has('/img/deep.png')).toBe(false);
    const responses = (await readWarcDir(join(h.dir, 'warc'))).filter(
      (r) => r.type === 'response' && r.uri !== `${site.origin}/robots.txt`,
    );
    expect(responses.map((r) => r.uri)).toEqual([`${site.origin}/`]);
  });
});

describe.runIf(chromium)('--screenshot', () => {
  it('keeps a PNG of the rendered page as a resource record', async () => {
    const site = await h.site('127.0.0.1', CAPTURE_SITE);
    await h.run([`${site.origin}/`], { ...RENDER, screenshot: true });
    const shots = (await readWarcDir(join(h.dir, 'warc'))).filter((r) => r.type === 'resource');
    expect(shots.map((r) => r.uri)).toEqual([`urn:screenshot:${site.origin}/`]);
    const shot = shots[0];
    expect(shot?.field('Content-Type')).toBe('image/png');
    const png = shot?.block ?? Buffer.alloc(0);
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // The first chunk is IHDR: the picture's width and height, the browser's viewport.
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 1000]);
  });
});

describe('--screenshot without --render', () => {
  it('is refused, saying what to add', async () => {
    const run = h.run(['http://127.0.0.1:9/'], { screenshot: true });
    await expect(run).rejects.toThrow(CrawlOptionError);
    await expect(run).rejects.toThrow(
      /--screenshot takes a picture of each rendered page.*add --render always/,
    );
  });
});
