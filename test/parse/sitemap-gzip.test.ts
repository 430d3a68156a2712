import { createGzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_SITEMAP_LIMITS,
  type ParsedSitemap,
  parseSitemap,
  type SitemapLimits,
} from '../../src/parse/sitemap.js';

function parse(body: Uint8Array, contentType: string | null, limits?: Partial<SitemapLimits>): ParsedSitemap {
  return parseSitemap(body, {
    url: 'https://example.com/sitemap.xml.gz',
    contentType,
    ...(limits === undefined ? {} : { limits }),
  });
}

const pages = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `https://example.com/page/${i + 1}/${(i * 7919).toString(36)}`);
const urlset = (urls: string[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((url) => `<url><loc>${url}</loc></url>`)
    .join('\n')}\n</urlset>\n`;

/** `before`, then `megabytes` MiB of spaces, then `after`, gzipped as a stream so the test never holds it uncompressed. */
async function gzipBomb(before: string, megabytes: number, after: string): Promise<Buffer> {
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  gzip.write(before);
  const spaces = Buffer.alloc(1024 * 1024, ' ');
  for (let i = 0; i < megabytes; i++) gzip.write(spaces);
  gzip.end(after);
  await ended;
  return Buffer.concat(chunks);
}

describe('gzipped sitemaps', () => {
  const urls = pages(3);
  const gzipped = gzipSync(urlset(urls));

  it.each(['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/xml', null])(
    'are gunzipped by their magic bytes (Content-Type %s)',
    (contentType) => {
      expect(parse(gzipped, contentType)).toEqual({ kind: 'urlset', urls, sitemaps: [], problems: [] });
    },
  );

  it('are read as they are when the fetcher already gunzipped them', () => {
    const plain = new TextEncoder().encode(urlset(urls));
    expect(parse(plain, 'application/gzip').urls).toEqual(urls);
  });

  it('can hold a sitemap index or a text sitemap', () => {
    const index = gzipSync(
      '<sitemapindex><sitemap><loc>https://example.com/s1.xml.gz</loc></sitemap></sitemapindex>',
    );
    expect(parse(index, 'application/gzip').sitemaps).toEqual(['https://example.com/s1.xml.gz']);
    const text = parse(gzipSync(urls.join('\n')), 'application/octet-stream');
    expect(text.kind).toBe('text');
    expect(text.urls).toEqual(urls);
  });
});

describe('damaged gzip', () => {
  const urls = pages(3000);
  const gzipped = gzipSync(urlset(urls));

  it('keeps the URLs before a cut and says the gzip was truncated', () => {
    const sitemap = parse(gzipped.subarray(0, Math.floor(gzipped.length / 2)), 'application/gzip');
    expect(sitemap.urls.length).toBeGreaterThan(1000);
    expect(sitemap.urls).toEqual(urls.slice(0, sitemap.urls.length));
    expect(sitemap.problems).toEqual(['truncated gzip', 'unclosed <urlset>']);
  });

  it('says a corrupt gzip is bad and keeps only what decoded before the damage', () => {
    const corrupt = Buffer.from(gzipped);
    corrupt.fill(0xff, 8_200, 8_208);
    const sitemap = parse(corrupt, 'application/gzip');
    expect(sitemap.problems[0]).toBe('bad gzip');
    expect(sitemap.urls.length).toBeGreaterThan(0);
    expect(sitemap.urls.length).toBeLessThan(urls.length);
    expect(sitemap.urls).toEqual(urls.slice(0, sitemap.urls.length));
  });

  it('says a gzip with a broken header is bad, with nothing else to report', () => {
    const corrupt = Buffer.from(gzipped);
    corrupt[2] = 0x63; // compression method: only 8 (deflate) exists
    expect(parse(corrupt, 'application/gzip')).toEqual({
      kind: 'unknown',
      urls: [],
      sitemaps: [],
      problems: ['bad gzip'],
    });
  });
});

describe('gzip bombs', () => {
  const before = '<urlset><url><loc>https://example.com/before-the-bomb</loc></url>';
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await gzipBomb(before, 200, '<url><loc>https://example.com/after</loc></url></urlset>');
  });

  it('stop at maxBytes, keep the URLs before, and take bounded memory', () => {
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const maxBytes = 8 * 1024 * 1024;

    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const sitemap = parse(bomb, 'application/gzip', { maxBytes });
    const peakGrowth = process.resourceUsage().maxRSS * 1024 - peakBefore;

    expect(sitemap.urls).toEqual(['https://example.com/before-the-bomb']);
    expect(sitemap.problems).toHaveLength(2);
    expect(sitemap.problems[0]).toMatch(/^gzip expands past 8388608 bytes; parsed the first \d+$/);
    expect(sitemap.problems[1]).toBe('unclosed <urlset>');
    // Gunzipping all 200 MiB would take at least that much; a few times maxBytes is the budget.
    expect(peakGrowth).toBeLessThan(100 * 1024 * 1024);
  });

  it('stop at the protocol limit of 50 MiB by default', () => {
    const sitemap = parse(bomb, 'application/x-gzip');
    expect(sitemap.urls).toEqual(['https://example.com/before-the-bomb']);
    const parsedBytes = Number(
      /^gzip expands past 52428800 bytes; parsed the first (\d+)$/.exec(sitemap.problems[0] ?? '')?.[1],
    );
    expect(parsedBytes).toBeGreaterThan(0);
    expect(parsedBytes).toBeLessThanOrEqual(DEFAULT_SITEMAP_LIMITS.maxBytes);
  });

  it('are no problem when they fit the limit', async () => {
    const bomb = await gzipBomb(before, 4, '</urlset>');
    expect(parse(bomb, 'application/gzip')).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/before-the-bomb'],
      sitemaps: [],
      problems: [],
    });
  });
});
