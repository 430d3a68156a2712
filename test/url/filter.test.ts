import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/url/canonicalize.js';
import { createUrlFilter, DEFAULT_SKIP_EXTENSIONS, scopeKey } from '../../src/url/filter.js';

function canonical(raw: string): string {
  const result = canonicalize(raw);
  if (!result.ok) throw new Error(`not canonicalizable: ${raw}`);
  return result.url;
}

describe('scopeKey', () => {
  it('is the hostname itself in host mode', () => {
    expect(scopeKey('www.example.co.uk', 'host')).toBe('www.example.co.uk');
  });

  it('is the registrable domain in domain mode, multi-part suffixes included', () => {
    expect(scopeKey('www.example.com', 'domain')).toBe('example.com');
    expect(scopeKey('a.b.c.example.com', 'domain')).toBe('example.com');
    expect(scopeKey('shop.example.co.uk', 'domain')).toBe('example.co.uk');
    expect(scopeKey('example.co.uk', 'domain')).toBe('example.co.uk');
    expect(scopeKey('www.city.kawasaki.jp', 'domain')).toBe('city.kawasaki.jp');
  });

  it('uses only the ICANN section of the suffix list', () => {
    // github.io is a private-section suffix: under ICANN rules all its sites share github.io.
    expect(scopeKey('alice.github.io', 'domain')).toBe('github.io');
  });

  it('keeps IP addresses and names without a registrable domain as their own scope', () => {
    expect(scopeKey('192.168.1.10', 'domain')).toBe('192.168.1.10');
    expect(scopeKey('[2001:db8::1]', 'domain')).toBe('[2001:db8::1]');
    expect(scopeKey('localhost', 'domain')).toBe('localhost');
    expect(scopeKey('co.uk', 'domain')).toBe('co.uk');
  });

  it('is one key for everything in any mode', () => {
    expect(scopeKey('example.com', 'any')).toBe(scopeKey('other.org', 'any'));
  });
});

describe('createUrlFilter: scope', () => {
  it('host: same hostname only, whatever the scheme or port', () => {
    const accept = createUrlFilter({ scope: 'host', seeds: ['https://www.example.com/start'] });
    expect(accept('https://www.example.com/other')).toBeNull();
    expect(accept('http://www.example.com:8080/x')).toBeNull();
    expect(accept('https://example.com/')).toBe('scope');
    expect(accept('https://blog.www.example.com/')).toBe('scope');
    expect(accept('https://www.example.org/')).toBe('scope');
  });

  it('domain: subdomains of the seed registrable domain are in, other domains are out', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds: ['https://www.example.co.uk/'] });
    expect(accept('https://example.co.uk/')).toBeNull();
    expect(accept('https://shop.example.co.uk/basket')).toBeNull();
    expect(accept('http://deep.sub.example.co.uk:8080/')).toBeNull();
    expect(accept('https://other.co.uk/')).toBe('scope');
    expect(accept('https://co.uk/')).toBe('scope');
    expect(accept('https://example.com/')).toBe('scope');
  });

  it('domain: an IPv4 host is its own scope, port ignored', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds: ['http://127.0.0.1:8080/'] });
    expect(accept('http://127.0.0.1:9090/x')).toBeNull();
    expect(accept('http://127.0.0.2:8080/')).toBe('scope');
    expect(accept('http://10.0.0.1/')).toBe('scope');
  });

  it('domain: an IPv6 host is its own scope, port ignored', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds: [canonical('http://[::1]:8080/')] });
    expect(accept('http://[::1]/a')).toBeNull();
    expect(accept(canonical('http://[0:0::2]:8080/'))).toBe('scope');
  });

  it('domain: localhost is its own scope, not a suffix of its subdomains', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds: ['http://localhost:3000/'] });
    expect(accept('http://localhost/other')).toBeNull();
    expect(accept('http://example.com/')).toBe('scope');
  });

  it('takes the union of the seeds', () => {
    const accept = createUrlFilter({
      scope: 'domain',
      seeds: ['https://a.example.com/', 'https://example.org/'],
    });
    expect(accept('https://b.example.com/')).toBeNull();
    expect(accept('https://www.example.org/')).toBeNull();
    expect(accept('https://example.net/')).toBe('scope');
  });

  it('gives the same answer however the URLs are interleaved', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds: ['https://example.com/'] });
    const urls = [
      'https://a.example.com/',
      'https://other.org/',
      'https://a.example.com/2',
      'https://other.org/2',
    ];
    const expected = [null, 'scope', null, 'scope'];
    expect([...urls, ...urls.toReversed()].map(accept)).toEqual([...expected, ...expected.toReversed()]);
  });

  it('any: everything is in scope', () => {
    const accept = createUrlFilter({ scope: 'any', seeds: ['https://example.com/'] });
    expect(accept('https://completely.different.org/')).toBeNull();
    expect(accept('http://[::1]/')).toBeNull();
  });

  it('host or domain with no seeds: nothing is in scope', () => {
    expect(createUrlFilter({ scope: 'domain', seeds: [] })('https://example.com/')).toBe('scope');
  });
});

describe('createUrlFilter: skip substrings', () => {
  it('rejects a URL containing any of them, after scope and the patterns, before the extension', () => {
    const accept = createUrlFilter({
      scope: 'host',
      seeds: ['http://example.com/'],
      exclude: [/\/private\//],
      skipSubstrings: ['cgi-bin', '/~'],
    });
    expect(accept('http://example.com/cgi-bin/x.pl')).toBe('substring');
    expect(accept('http://example.com/~ada/')).toBe('substring');
    expect(accept('http://example.com/cgi-bin/a.jpg')).toBe('substring');
    expect(accept('http://other.com/cgi-bin/')).toBe('scope');
    expect(accept('http://example.com/private/cgi-bin/')).toBe('exclude');
    expect(accept('http://example.com/bin/')).toBeNull();
  });

  it('ignores an empty substring, which every URL contains', () => {
    expect(createUrlFilter({ scope: 'any', seeds: [], skipSubstrings: [''] })('http://a.test/')).toBeNull();
  });
});

describe('createUrlFilter: include and exclude', () => {
  const seeds = ['https://example.com/'];

  it('rejects a URL matching any exclude pattern', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds, exclude: [/\/logout\b/, /[?&]sessionid=/] });
    expect(accept('https://example.com/logout')).toBe('exclude');
    expect(accept('https://example.com/page?sessionid=42')).toBe('exclude');
    expect(accept('https://example.com/login')).toBeNull();
  });

  it('with include patterns, accepts only URLs matching at least one', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds, include: [/\/blog\//, /\/news\//] });
    expect(accept('https://example.com/blog/post-1')).toBeNull();
    expect(accept('https://example.com/news/today')).toBeNull();
    expect(accept('https://example.com/shop/item')).toBe('include');
  });

  it('treats an empty include list as no restriction', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds, include: [] });
    expect(accept('https://example.com/anything')).toBeNull();
  });

  it('lets exclude win over include', () => {
    const accept = createUrlFilter({
      scope: 'domain',
      seeds,
      include: [/\/blog\//],
      exclude: [/\/drafts\//],
    });
    expect(accept('https://example.com/blog/drafts/x')).toBe('exclude');
    expect(accept('https://example.com/blog/published/x')).toBeNull();
  });

  it('gives the same answer on every call with global or sticky patterns', () => {
    const accept = createUrlFilter({ scope: 'domain', seeds, include: [/blog/g], exclude: [/secret/y] });
    const url = 'https://example.com/blog/post';
    expect([accept(url), accept(url), accept(url)]).toEqual([null, null, null]);
    expect([accept('https://example.com/x'), accept('https://example.com/x')]).toEqual([
      'include',
      'include',
    ]);
  });
});

describe('createUrlFilter: extensions', () => {
  const accept = createUrlFilter({ scope: 'any', seeds: [] });

  it('skips media, archives, executables and fonts by default', () => {
    for (const url of [
      'https://example.com/a/photo.jpg',
      'https://example.com/video.mp4',
      'https://example.com/song.mp3',
      'https://example.com/release.tar.gz',
      'https://example.com/setup.exe',
      'https://example.com/fonts/inter.woff2',
    ]) {
      expect(accept(url)).toBe('extension');
    }
  });

  it('reads the extension case-insensitively and ignores the query', () => {
    expect(accept('https://example.com/a/photo.JPG?x=1')).toBe('extension');
    expect(accept(canonical('https://example.com/img%2EPnG'))).toBe('extension');
  });

  it('keeps pages, documents and page resources', () => {
    for (const ext of ['html', 'htm', 'php', 'pdf', 'css', 'js', 'xml', 'txt', 'json']) {
      expect(accept(`https://example.com/file.${ext}`)).toBeNull();
    }
    for (const ext of ['html', 'pdf', 'css', 'js', 'xml', 'txt'])
      expect(DEFAULT_SKIP_EXTENSIONS).not.toContain(ext);
  });

  it('looks only at the last path segment', () => {
    expect(accept('https://example.com/photos.zip/')).toBeNull();
    expect(accept('https://example.com/v1.2/data')).toBeNull();
    expect(accept('https://example.com/search?q=cat.jpg')).toBeNull();
    expect(accept('https://example.com/file.')).toBeNull();
    expect(accept('https://example.com/')).toBeNull();
    // .zip is also a top-level domain: the host is not the path.
    expect(accept('https://downloads.zip/')).toBeNull();
  });

  it('uses a custom list instead of the default, tolerating a leading dot and capitals', () => {
    const pdfOnly = createUrlFilter({ scope: 'any', seeds: [], skipExtensions: ['.PDF'] });
    expect(pdfOnly('https://example.com/report.pdf')).toBe('extension');
    expect(pdfOnly('https://example.com/photo.jpg')).toBeNull();
  });
});

describe('createUrlFilter: order of checks', () => {
  it('reports scope first, then exclude, then include, then extension', () => {
    const accept = createUrlFilter({
      scope: 'host',
      seeds: ['https://example.com/'],
      include: [/\/media\//],
      exclude: [/private/],
    });
    expect(accept('https://elsewhere.org/private/media/a.jpg')).toBe('scope');
    expect(accept('https://example.com/private/media/a.jpg')).toBe('exclude');
    expect(accept('https://example.com/public/a.jpg')).toBe('include');
    expect(accept('https://example.com/media/a.jpg')).toBe('extension');
    expect(accept('https://example.com/media/index.html')).toBeNull();
  });
});
