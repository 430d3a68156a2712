import { describe, expect, it } from 'vitest';
import { robotsPathOf } from '../../../src/fetch/robots/robots-path.js';
import {
  allowAll,
  disallowAll,
  MAX_ROBOTS_BYTES,
  parseRobotsTxt,
  productTokenOf,
} from '../../../src/fetch/robots/robots-txt.js';

/** Whether cobweb may fetch `url` under `robotstxt`. */
function allowed(robotstxt: string | Uint8Array, url: string, token = 'cobweb'): boolean {
  return parseRobotsTxt(robotstxt, token).isAllowed(robotsPathOf(url));
}

describe('productTokenOf', () => {
  it('takes the leading product token of a User-Agent header', () => {
    expect(productTokenOf('cobweb/0.1.0 (+https://github.com/cobweb-crawler/cobweb)')).toBe('cobweb');
    expect(productTokenOf('my_crawler-x (contact: me@example.com)')).toBe('my_crawler-x');
    expect(productTokenOf('  Spaced/1.0')).toBe('Spaced');
    expect(productTokenOf('')).toBe('');
  });
});

describe('RFC 9309 section 5.1, the simple example', () => {
  const robotstxt = [
    'User-Agent: *',
    'Disallow: *.gif$',
    'Disallow: /example/',
    'Allow: /publications/',
    '',
    'User-Agent: foobot',
    'Disallow:/',
    'Allow:/example/page.html',
    'Allow:/example/allowed.gif',
    '',
    'User-Agent: barbot',
    'User-Agent: bazbot',
    'Disallow: /example/page.html',
    '',
    'User-Agent: quxbot',
    '',
  ].join('\n');

  it('gives other crawlers the * group', () => {
    expect(allowed(robotstxt, 'http://example.com/publications/a.html', 'otherbot')).toBe(true);
    expect(allowed(robotstxt, 'http://example.com/example/a.html', 'otherbot')).toBe(false);
    // "The '*' character designates any character, including the otherwise-required forward slash".
    expect(allowed(robotstxt, 'http://example.com/images/a.gif', 'otherbot')).toBe(false);
    expect(allowed(robotstxt, 'http://example.com/images/a.gif?size=2', 'otherbot')).toBe(true);
  });

  it('gives foobot two allowed prefixes only', () => {
    expect(allowed(robotstxt, 'http://example.com/example/page.html', 'foobot')).toBe(true);
    expect(allowed(robotstxt, 'http://example.com/example/allowed.gif', 'foobot')).toBe(true);
    expect(allowed(robotstxt, 'http://example.com/publications/', 'foobot')).toBe(false);
  });

  it('shares one group between barbot and bazbot', () => {
    for (const bot of ['barbot', 'bazbot']) {
      expect(allowed(robotstxt, 'http://example.com/example/page.html', bot)).toBe(false);
      expect(allowed(robotstxt, 'http://example.com/example/other.html', bot)).toBe(true);
    }
  });

  it('lets quxbot, with an empty group at the end, fetch everything', () => {
    expect(allowed(robotstxt, 'http://example.com/example/page.html', 'quxbot')).toBe(true);
  });
});

describe('groups', () => {
  it('matches the product token case-insensitively, also with a version on the user-agent line', () => {
    expect(allowed('User-agent: COBWEB/1.0\nDisallow: /\n', 'http://a.test/x')).toBe(false);
    expect(allowed('User-agent: cobweb\nDisallow: /\n', 'http://a.test/x', 'CobWeb')).toBe(false);
  });

  it('does not take a longer token for ours', () => {
    expect(allowed('User-agent: cobwebber\nDisallow: /\n', 'http://a.test/x')).toBe(true);
  });

  it('merges every group that names us, and then ignores the * group', () => {
    const robotstxt =
      'User-agent: cobweb\nDisallow: /a\n\nUser-agent: *\nDisallow: /c\n\nUser-agent: cobweb\nDisallow: /b\n';
    expect(allowed(robotstxt, 'http://a.test/a')).toBe(false);
    expect(allowed(robotstxt, 'http://a.test/b')).toBe(false);
    expect(allowed(robotstxt, 'http://a.test/c')).toBe(true);
  });

  it('reads an empty Disallow as no rule, while the group still applies', () => {
    const robotstxt = 'User-agent: *\nDisallow: /\n\nUser-agent: cobweb\nDisallow:\n';
    expect(allowed(robotstxt, 'http://a.test/anything')).toBe(true);
  });

  it('takes "* comment" as the * group', () => {
    expect(allowed('User-agent: * all robots\nDisallow: /\n', 'http://a.test/x')).toBe(false);
  });
});

describe('lines', () => {
  it.each([
    ['useragent: cobweb\nDisallow: /x\n'],
    ['User agent: cobweb\nDisallow: /x\n'],
    ['User-agent: cobweb\nDissallow: /x\n'],
    ['User-agent: cobweb\nDisalow: /x\n'],
    ['User-agent: cobweb\nDisallow /x\n'],
    ['  USER-AGENT  :  cobweb  \n\tdisallow\t:\t/x\t# no x\n'],
    ['\uFEFFUser-agent: cobweb\r\nDisallow: /x\r\n'],
    ['User-agent: cobweb\rDisallow: /x'],
  ])('understands %j', (robotstxt) => {
    expect(allowed(robotstxt, 'http://a.test/x')).toBe(false);
    expect(allowed(robotstxt, 'http://a.test/y')).toBe(true);
  });

  it('ignores a colon-less line with more than two words', () => {
    expect(allowed('User-agent: cobweb\nDisallow /x /y\n', 'http://a.test/x')).toBe(true);
  });
});

describe('matching', () => {
  it('compares after percent-encoding normalization', () => {
    expect(allowed('User-agent: *\nDisallow: /%7Euser\n', 'http://a.test/~user/page')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /~user\n', 'http://a.test/%7Euser/page')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a%2fb\n', 'http://a.test/a%2Fb')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /caf%c3%a9\n', 'http://a.test/café')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /café\n', 'http://a.test/caf%C3%A9')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a b\n', 'http://a.test/a%20b')).toBe(false);
  });

  it('keeps an encoded reserved character apart from the character itself', () => {
    // "/a%2Fb" is one segment, "/a/b" two (RFC 3986 2.2).
    expect(allowed('User-agent: *\nDisallow: /a%2Fb\n', 'http://a.test/a/b')).toBe(true);
  });

  it('lets %2A and %24 name a literal * and $ (RFC 9309 2.2.3)', () => {
    const robotstxt = 'User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n';
    expect(allowed(robotstxt, 'https://www.example.com/path/file-with-a-*.html')).toBe(false);
    expect(allowed(robotstxt, 'https://www.example.com/path/file-with-a-b.html')).toBe(true);
    expect(allowed(robotstxt, 'https://www.example.com/path/foo-$')).toBe(false);
  });

  it('reads $ before the end of a pattern as a literal dollar', () => {
    const robotstxt = 'User-agent: *\nDisallow: /a$b\n';
    expect(allowed(robotstxt, 'http://a.test/a$b')).toBe(false);
    expect(allowed(robotstxt, 'http://a.test/a')).toBe(true);
  });

  it('matches patterns with many wildcards', () => {
    const robotstxt = 'User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*b$\n';
    expect(allowed(robotstxt, `http://a.test/${'a'.repeat(2000)}`)).toBe(true);
    expect(allowed(robotstxt, `http://a.test/${'a'.repeat(2000)}b`)).toBe(false);
    expect(allowed(robotstxt, `http://a.test/${'a'.repeat(2000)}bc`)).toBe(true);
  });

  it('always allows /robots.txt', () => {
    expect(allowed('User-agent: *\nDisallow: /\n', 'http://a.test/robots.txt')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /\n', 'http://a.test/robots.txt.bak')).toBe(false);
    expect(disallowAll().isAllowed('/robots.txt')).toBe(true);
  });

  it('has fixed answers for allowAll() and disallowAll()', () => {
    expect(allowAll().isAllowed('/private/x?y=1')).toBe(true);
    expect(disallowAll().isAllowed('/')).toBe(false);
    expect(disallowAll().isAllowed('/any/thing')).toBe(false);
  });
});

describe('matching against a direct reading of RFC 9309', () => {
  /** Longest matching pattern wins, Allow on a tie; `*` any sequence, a final `$` the end. */
  function referenceAllowed(
    rules: ReadonlyArray<{ allow: boolean; pattern: string }>,
    path: string,
  ): boolean {
    let best: { allow: boolean; length: number } | null = null;
    for (const { allow, pattern } of rules) {
      const source = pattern.replace(/\$$/, '').split('*').map(escapeRegExp).join('.*');
      if (!new RegExp(`^${source}${pattern.endsWith('$') ? '$' : ''}`).test(path)) continue;
      if (best === null || pattern.length > best.length || (pattern.length === best.length && allow)) {
        best = { allow, length: pattern.length };
      }
    }
    return best?.allow ?? true;
  }

  function escapeRegExp(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }

  it('agrees on random rules and paths', () => {
    // A fixed linear congruential sequence: the same cases on every run.
    let seed = 12345;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const word = (alphabet: string, max: number): string =>
      Array.from({ length: random(max) }, () => alphabet.charAt(random(alphabet.length))).join('');

    let disagreements = 0;
    let disallowedSeen = 0;
    for (let round = 0; round < 300; round++) {
      const rules = Array.from({ length: 1 + random(8) }, () => ({
        allow: random(2) === 0,
        pattern: `/${word('ab/*', 5)}${random(4) === 0 ? '$' : ''}`,
      }));
      const robots = parseRobotsTxt(
        `User-agent: *\n${rules.map((r) => `${r.allow ? 'Allow' : 'Disallow'}: ${r.pattern}`).join('\n')}\n`,
        'cobweb',
      );
      for (let i = 0; i < 20; i++) {
        const path = `/${word('ab/', 7)}`;
        const expected = referenceAllowed(rules, path);
        if (!expected) disallowedSeen++;
        if (robots.isAllowed(path) !== expected) disagreements++;
      }
    }
    expect(disagreements).toBe(0);
    expect(disallowedSeen).toBeGreaterThan(100);
  });
});

describe('Crawl-delay', () => {
  it('comes from the group that applies, in ms', () => {
    const robotstxt =
      'User-agent: *\nCrawl-delay: 10\n\nUser-agent: cobweb\nCrawl-delay: 2.5\nDisallow: /x\n';
    expect(parseRobotsTxt(robotstxt, 'cobweb').crawlDelayMs).toBe(2500);
    expect(parseRobotsTxt(robotstxt, 'otherbot').crawlDelayMs).toBe(10_000);
  });

  it('is null without one, or when it is not a number of seconds', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow: /x\n', 'cobweb').crawlDelayMs).toBeNull();
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: soon\n', 'cobweb').crawlDelayMs).toBeNull();
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: -1\n', 'cobweb').crawlDelayMs).toBeNull();
    expect(parseRobotsTxt('Crawl-delay: 5\nUser-agent: *\nDisallow: /x\n', 'cobweb').crawlDelayMs).toBeNull();
  });

  it('belongs to its group like a rule, so groups of only a Crawl-delay stay apart', () => {
    const robotstxt =
      'User-agent: *\nCrawl-delay: 10\nUser-agent: cobweb\nCrawl-delay: 1\nUser-agent: slowbot\nDisallow: /x\n';
    expect(parseRobotsTxt(robotstxt, 'cobweb').crawlDelayMs).toBe(1000);
    expect(parseRobotsTxt(robotstxt, 'cobweb').isAllowed('/x')).toBe(true);
    expect(parseRobotsTxt(robotstxt, 'otherbot').crawlDelayMs).toBe(10_000);
    expect(parseRobotsTxt(robotstxt, 'slowbot').crawlDelayMs).toBeNull();
  });

  it('takes the longest of merged groups', () => {
    const robotstxt = 'User-agent: cobweb\nCrawl-delay: 1\n\nUser-agent: cobweb\nCrawl-delay: 4\n';
    expect(parseRobotsTxt(robotstxt, 'cobweb').crawlDelayMs).toBe(4000);
  });
});

describe('Sitemap', () => {
  it('lists every absolute sitemap URL, anywhere in the file, in order, once', () => {
    const robotstxt = [
      'Sitemap: https://a.test/one.xml',
      'User-agent: *',
      'SITEMAP: https://a.test/two.xml',
      'Disallow: /x',
      'Sitemap: /relative.xml',
      'Sitemap: https://a.test/one.xml',
      'Site-map: http://b.test/three.xml # comment',
    ].join('\n');
    expect(parseRobotsTxt(robotstxt, 'cobweb').sitemaps).toEqual([
      'https://a.test/one.xml',
      'https://a.test/two.xml',
      'http://b.test/three.xml',
    ]);
    // A Sitemap line inside a group does not end it.
    expect(allowed(robotstxt, 'http://a.test/x')).toBe(false);
  });
});

/** `text` followed by comment lines up to exactly `length` bytes (ASCII only), ending with a line break. */
function padTo(text: string, length: number): string {
  let padded = text;
  while (length - padded.length > 1000) padded += `#${'.'.repeat(998)}\n`;
  const rest = length - padded.length;
  return padded + (rest === 1 ? '\n' : `#${'.'.repeat(rest - 2)}\n`);
}

describe('bodies that are not robots.txt', () => {
  it('parses only the first 500 KiB, and drops a line cut by the limit', () => {
    const straddler = 'Disallow: /straddling-the-limit\n';
    // The limit falls after "Disallow: /stra".
    let body = padTo('User-agent: *\nDisallow: /early\n', MAX_ROBOTS_BYTES - 15) + straddler;
    body = padTo(`${body}Disallow: /late\n`, 2 * 1024 * 1024);

    for (const input of [body, Buffer.from(body)]) {
      const robots = parseRobotsTxt(input, 'cobweb');
      expect(robots.isAllowed('/early')).toBe(false);
      expect(robots.isAllowed('/straddling-the-limit')).toBe(true);
      // The line cut to "Disallow: /stra" would have disallowed far more.
      expect(robots.isAllowed('/strange')).toBe(true);
      expect(robots.isAllowed('/late')).toBe(true);
    }
  });

  it('keeps a line that ends exactly at the limit', () => {
    const rule = 'Disallow: /last';
    const body = `${padTo('User-agent: *\n', MAX_ROBOTS_BYTES - rule.length)}${rule}\nDisallow: /after\n`;
    expect(body.indexOf('\nDisallow: /after')).toBe(MAX_ROBOTS_BYTES);
    const robots = parseRobotsTxt(body, 'cobweb');
    expect(robots.isAllowed('/last')).toBe(false);
    expect(robots.isAllowed('/after')).toBe(true);
  });

  it('reads binary garbage as allow-all without throwing', () => {
    // A fixed xorshift sequence: the same "random" bytes on every run.
    const bytes = new Uint8Array(256 * 1024);
    let state = 0x2545f491;
    for (let i = 0; i < bytes.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[i] = state & 0xff;
    }
    const robots = parseRobotsTxt(bytes, 'cobweb');
    expect(robots.isAllowed('/')).toBe(true);
    expect(robots.isAllowed('/any/path?x=1')).toBe(true);
    expect(robots.sitemaps).toEqual([]);
  });

  it('still finds real rules after garbage', () => {
    const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x81, 0xc3, 0x28, 0x0a]);
    const body = Buffer.concat([garbage, Buffer.from('User-agent: *\nDisallow: /x\n')]);
    expect(allowed(body, 'http://a.test/x')).toBe(false);
  });

  it('reads an HTML page as allow-all', () => {
    const html =
      '<!doctype html>\n<html><head><title>Not Found</title></head>\n<body><p>User-agent: none here</p>\n<a href="/">Disallow: everything</a></body></html>\n';
    expect(allowed(html, 'http://a.test/everything')).toBe(true);
  });
});
