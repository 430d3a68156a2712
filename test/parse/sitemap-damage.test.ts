import { describe, expect, it } from 'vitest';
import { type ParsedSitemap, parseSitemap, type SitemapLimits } from '../../src/parse/sitemap.js';

function parse(body: string, limits?: Partial<SitemapLimits>): ParsedSitemap {
  return parseSitemap(new TextEncoder().encode(body), {
    url: 'https://example.com/sitemap.xml',
    contentType: 'application/xml',
    ...(limits === undefined ? {} : { limits }),
  });
}

const pages = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `https://example.com/page-${i + 1}`);
const urlset = (urls: string[]): string =>
  `<urlset>${urls.map((url) => `<url><loc>${url}</loc></url>`).join('')}</urlset>`;

describe('malformed XML', () => {
  it('keeps the URLs before a truncation and drops the URL cut in half', () => {
    const sitemap = parse(
      '<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc><lastmod>20' +
        '</lastmod></url><url><loc>https://example.com/thr',
    );
    expect(sitemap.kind).toBe('urlset');
    expect(sitemap.urls).toEqual(['https://example.com/1', 'https://example.com/2']);
    expect(sitemap.problems).toEqual(['unclosed <urlset>']);
  });

  it('keeps a URL whose <loc> closed even if its <url> never did', () => {
    const sitemap = parse('<urlset><url><loc>https://example.com/1</loc><lastm');
    expect(sitemap.urls).toEqual(['https://example.com/1']);
    expect(sitemap.problems).toEqual(['unclosed <urlset>']);
  });

  it('drops a <loc> closed by its parent and goes on with the next URLs', () => {
    const sitemap = parse(
      '<urlset><url><loc>https://example.com/1</url><url><loc>https://example.com/2</loc></url></urlset>',
    );
    expect(sitemap.urls).toEqual(['https://example.com/2']);
    expect(sitemap.problems).toEqual(['unclosed <loc>']);
  });

  it('reports garbage around the URLs but keeps them', () => {
    const sitemap = parse(
      '<urlset>@@ not xml @@<url><loc>https://example.com/1</loc></url></urlset>\n<<<garbage>>>',
    );
    expect(sitemap.urls).toEqual(['https://example.com/1']);
    expect(sitemap.problems).toEqual(['stray text in <urlset>', 'content after the root element']);
  });

  it('reads the sitemap after text printed ahead of it, and says so', () => {
    const sitemap = parse(
      'Warning: Undefined variable $x in /var/www/sitemap.php on line 3\n' +
        '<?xml version="1.0" encoding="UTF-8"?><urlset><url><loc>https://example.com/1</loc></url></urlset>',
    );
    expect(sitemap.kind).toBe('urlset');
    expect(sitemap.urls).toEqual(['https://example.com/1']);
    expect(sitemap.problems).toEqual(['text outside the root element']);
  });

  it('says a file with only a declaration has no root element', () => {
    expect(parse('<?xml version="1.0" encoding="UTF-8"?>\n')).toEqual({
      kind: 'unknown',
      urls: [],
      sitemaps: [],
      problems: ['no root element'],
    });
  });

  it('says markup-like garbage is not XML', () => {
    expect(parse('<<< >>> <<<').problems).toEqual(['not XML']);
  });

  it('keeps the problem list short however broken the file is', () => {
    const broken = `<urlset>${Array.from({ length: 500 }, (_, i) => `<a${i}><b${i}></a${i}>`).join('')}</urlset>`;
    const sitemap = parse(broken);
    expect(sitemap.problems.length).toBeGreaterThan(1);
    expect(sitemap.problems.length).toBeLessThanOrEqual(10);
  });
});

describe('maxUrls', () => {
  it('stops a urlset at the limit and says so', () => {
    const sitemap = parse(urlset(pages(5)), { maxUrls: 3 });
    expect(sitemap.urls).toEqual(pages(3));
    expect(sitemap.problems).toEqual(['truncated at 3 URLs']);
  });

  it('is clean with exactly the limit', () => {
    expect(parse(urlset(pages(3)), { maxUrls: 3 })).toEqual({
      kind: 'urlset',
      urls: pages(3),
      sitemaps: [],
      problems: [],
    });
  });

  it('counts child sitemaps too', () => {
    const index = `<sitemapindex>${pages(4)
      .map((url) => `<sitemap><loc>${url}.xml</loc></sitemap>`)
      .join('')}</sitemapindex>`;
    const sitemap = parse(index, { maxUrls: 2 });
    expect(sitemap.sitemaps).toEqual(['https://example.com/page-1.xml', 'https://example.com/page-2.xml']);
    expect(sitemap.problems).toEqual(['truncated at 2 URLs']);
  });

  it('stops a text sitemap at the limit', () => {
    const sitemap = parse(pages(5).join('\n'), { maxUrls: 4 });
    expect(sitemap.kind).toBe('text');
    expect(sitemap.urls).toEqual(pages(4));
    expect(sitemap.problems).toEqual(['truncated at 4 URLs']);
  });

  it('says so even when the file has already filled the problem list', () => {
    const noise = Array.from({ length: 30 }, (_, i) => `<a${i}><b${i}></a${i}>`).join('');
    const sitemap = parse(urlset(pages(5)).replace('<urlset>', `<urlset>${noise}`), { maxUrls: 2 });
    expect(sitemap.urls).toEqual(pages(2));
    expect(sitemap.problems).toContain('truncated at 2 URLs');
  });

  it('defaults to the protocol limit of 50,000', () => {
    const sitemap = parse(urlset(pages(50_001)));
    expect(sitemap.urls).toHaveLength(50_000);
    expect(sitemap.urls.at(-1)).toBe('https://example.com/page-50000');
    expect(sitemap.problems).toEqual(['truncated at 50000 URLs']);
  });
});

describe('maxBytes', () => {
  it('parses only the first maxBytes of a plain body and keeps the URLs in them', () => {
    const xml = urlset(pages(10));
    const cutInFourthUrl = xml.indexOf('page-4') + 3;
    const sitemap = parse(xml, { maxBytes: cutInFourthUrl });
    expect(sitemap.urls).toEqual(pages(3));
    expect(sitemap.problems).toEqual([`truncated at ${cutInFourthUrl} bytes`, 'unclosed <urlset>']);
  });

  it('drops the cut last line of a text sitemap', () => {
    const text = pages(3).join('\n');
    const sitemap = parse(text, { maxBytes: text.length - 2 });
    expect(sitemap.kind).toBe('text');
    expect(sitemap.urls).toEqual(pages(2));
    expect(sitemap.problems).toEqual([`truncated at ${text.length - 2} bytes`]);
  });
});
