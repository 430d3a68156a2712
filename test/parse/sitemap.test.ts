import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ParsedSitemap, parseSitemap } from '../../src/parse/sitemap.js';

const SITEMAP_URL = 'https://example.com/sitemap.xml';

function parse(body: string | Uint8Array, contentType: string | null = 'application/xml'): ParsedSitemap {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return parseSitemap(bytes, { url: SITEMAP_URL, contentType });
}

function fixture(name: string): Buffer {
  return readFileSync(new URL(`./fixtures/sitemaps/${name}`, import.meta.url));
}

const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

describe('urlset', () => {
  it('lists the <loc> of every <url>, in order, and nothing else', () => {
    const sitemap = parse(`<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="${SITEMAP_NS}">
        <url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod><priority>1.0</priority></url>
        <url><changefreq>daily</changefreq><loc>https://example.com/b</loc></url>
        <url><loc>https://example.com/a</loc></url>
        <url><loc>https://example.com/a</loc></url>
      </urlset>`);
    expect(sitemap).toEqual({
      kind: 'urlset',
      urls: [
        'https://example.com/',
        'https://example.com/b',
        'https://example.com/a',
        'https://example.com/a',
      ],
      sitemaps: [],
      problems: [],
    });
  });

  it('ignores image, video, news and hreflang extensions', () => {
    const sitemap = parse(fixture('urlset-extensions.xml'));
    expect(sitemap.urls).toEqual([
      'https://example.com/sample1.html',
      'https://example.com/videos/some_video_landing_page.html',
      'https://example.com/english/page.html',
      'https://example.com/business/article55.html',
    ]);
    expect(sitemap.problems).toEqual([]);
  });

  it('reports URLs as written: relative, odd or duplicate URLs are not resolved or canonicalized', () => {
    const sitemap = parse(
      `<urlset><url><loc>/relative</loc></url><url><loc>HTTPS://Example.COM/%7e</loc></url></urlset>`,
    );
    expect(sitemap.urls).toEqual(['/relative', 'HTTPS://Example.COM/%7e']);
  });

  it('accepts an empty urlset as clean', () => {
    expect(parse(`<urlset xmlns="${SITEMAP_NS}"/>`)).toEqual({
      kind: 'urlset',
      urls: [],
      sitemaps: [],
      problems: [],
    });
  });

  it('skips an empty <loc> and says so', () => {
    const sitemap = parse(
      '<urlset><url><loc>  </loc></url><url><loc/></url><url><loc>https://e.com/</loc></url></urlset>',
    );
    expect(sitemap.urls).toEqual(['https://e.com/']);
    expect(sitemap.problems).toEqual(['empty <loc>']);
  });
});

describe('sitemapindex', () => {
  it('lists child sitemaps, not pages', () => {
    expect(parse(fixture('sitemapindex.xml'))).toEqual({
      kind: 'sitemapindex',
      urls: [],
      sitemaps: ['https://example.com/sitemap1.xml.gz', 'https://example.com/sitemap2.xml.gz'],
      problems: [],
    });
  });

  it('does not take a <url><loc> inside an index for a child sitemap', () => {
    const sitemap = parse(
      '<sitemapindex><url><loc>https://e.com/page</loc></url><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>',
    );
    expect(sitemap.sitemaps).toEqual(['https://e.com/s.xml']);
    expect(sitemap.urls).toEqual([]);
  });
});

describe('XML syntax', () => {
  it('reads prefixed elements by their namespace', () => {
    const sitemap =
      parse(`<sm:urlset xmlns:sm="${SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <sm:url><sm:loc>https://example.com/prefixed</sm:loc></sm:url>
        <sm:url><image:loc>https://example.com/image.jpg</image:loc></sm:url>
      </sm:urlset>`);
    expect(sitemap.kind).toBe('urlset');
    expect(sitemap.urls).toEqual(['https://example.com/prefixed']);
  });

  it('does not count a <loc> from another namespace directly inside <url>', () => {
    const sitemap =
      parse(`<urlset xmlns="${SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><image:loc>https://example.com/image.jpg</image:loc><loc>https://example.com/page</loc></url>
        <url><loc xmlns="http://example.com/other">https://example.com/other-namespace</loc></url>
      </urlset>`);
    expect(sitemap.urls).toEqual(['https://example.com/page']);
  });

  it('decodes entities and CDATA, and trims whitespace around URLs', () => {
    const sitemap = parse(`<urlset>
      <url><loc>https://example.com/?a=1&amp;b=2&#38;c=3&#x26;d=&apos;4&apos;</loc></url>
      <url><loc><![CDATA[https://example.com/?a=1&b=2]]></loc></url>
      <url><loc>
          https://example.com/padded
      </loc></url>
      <url><loc>https://example.com/<![CDATA[split]]>/&lt;x&gt;</loc></url>
    </urlset>`);
    expect(sitemap.urls).toEqual([
      "https://example.com/?a=1&b=2&c=3&d='4'",
      'https://example.com/?a=1&b=2',
      'https://example.com/padded',
      'https://example.com/split/<x>',
    ]);
    expect(sitemap.problems).toEqual([]);
  });

  it('skips a byte order mark, the XML declaration and comments', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <!-- <url><loc>https://example.com/commented-out</loc></url> -->
      <urlset><url><!-- note --><loc>https://example.com/real</loc></url></urlset>`;
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(xml)]);
    expect(parse(body)).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/real'],
      sitemaps: [],
      problems: [],
    });
  });

  it('decodes the encoding named by the XML declaration', () => {
    const head = new TextEncoder().encode(
      '<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>https://example.com/caf',
    );
    const tail = new TextEncoder().encode('</loc></url></urlset>');
    const body = new Uint8Array([...head, 0xe9, ...tail]);
    expect(parse(body).urls).toEqual(['https://example.com/café']);
  });

  it('reads an unknown declared encoding as UTF-8 and says so', () => {
    const sitemap = parse(
      '<?xml version="1.0" encoding="klingon"?><urlset><url><loc>https://e.com/é</loc></url></urlset>',
    );
    expect(sitemap.urls).toEqual(['https://e.com/é']);
    expect(sitemap.problems).toEqual(['unsupported encoding "klingon", read as UTF-8']);
  });

  it('lets the Content-Type charset win over the declaration', () => {
    const body = new Uint8Array([
      ...new TextEncoder().encode('<?xml version="1.0" encoding="UTF-8"?><urlset><url><loc>https://e.com/'),
      0xe9,
      ...new TextEncoder().encode('</loc></url></urlset>'),
    ]);
    expect(parse(body, 'text/xml; charset=iso-8859-1').urls).toEqual(['https://e.com/é']);
  });
});

describe('text sitemaps', () => {
  it('reads one URL per line, trimmed, skipping blank lines', () => {
    const body =
      '\ufeffhttps://example.com/a\r\nhttps://example.com/b\n\n  http://example.com/c?x=1&y=2  \r\n';
    expect(parse(body, 'text/plain')).toEqual({
      kind: 'text',
      urls: ['https://example.com/a', 'https://example.com/b', 'http://example.com/c?x=1&y=2'],
      sitemaps: [],
      problems: [],
    });
  });

  it('is not a text sitemap when any line is something else', () => {
    const sitemap = parse('https://example.com/a\nsee also: https://example.com/b\n', 'text/plain');
    expect(sitemap.kind).toBe('unknown');
    expect(sitemap.urls).toEqual([]);
    expect(sitemap.problems).toEqual(['not XML']);
  });

  it('is not a text sitemap when a line is a relative or non-http URL', () => {
    expect(parse('https://example.com/a\n/b\n').kind).toBe('unknown');
    expect(parse('ftp://example.com/a\n').kind).toBe('unknown');
  });
});

describe('feeds', () => {
  it('reads an RSS feed as a urlset of its item links', () => {
    expect(parse(fixture('rss.xml'))).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/blog/first', 'https://example.com/blog/second?utm=rss&page=2'],
      sitemaps: [],
      problems: [],
    });
  });

  it("reads an Atom feed as a urlset of its entries' alternate links", () => {
    expect(parse(fixture('atom.xml'))).toEqual({
      kind: 'urlset',
      urls: ['https://example.org/2003/12/13/atom03', 'https://example.org/2003/12/14/second'],
      sitemaps: [],
      problems: [],
    });
  });
});

describe('not a sitemap', () => {
  it('says an HTML page is unknown and takes none of its links', () => {
    const sitemap = parse(fixture('page.html'), 'text/html; charset=utf-8');
    expect(sitemap).toEqual({
      kind: 'unknown',
      urls: [],
      sitemaps: [],
      problems: ['not a sitemap: root <html>'],
    });
  });

  it('says another XML document is unknown', () => {
    const sitemap = parse('<?xml version="1.0"?><config><url><loc>https://e.com/</loc></url></config>');
    expect(sitemap.kind).toBe('unknown');
    expect(sitemap.urls).toEqual([]);
    expect(sitemap.problems).toEqual(['not a sitemap: root <config>']);
  });

  it('says an empty or blank body is unknown', () => {
    expect(parse('')).toEqual({ kind: 'unknown', urls: [], sitemaps: [], problems: ['empty'] });
    expect(parse(' \n\t ').problems).toEqual(['empty']);
  });

  it('says JSON or binary is not XML', () => {
    expect(parse('{"urls": ["https://e.com/"]}').problems).toEqual(['not XML']);
    expect(
      parse(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])).problems,
    ).toEqual(['not XML']);
  });
});
