import { describe, expect, it } from 'vitest';
import { type CanonicalizeResult, canonicalize, MAX_URL_LENGTH } from '../../src/url/canonicalize.js';
import {
  type CanonicalizationCase,
  type ExpectedOutcome,
  SAFE_BROWSING_CASES,
  URLCANON_CASES,
} from './fixtures/canonicalization-cases.js';

function outcome(result: CanonicalizeResult): ExpectedOutcome {
  return result.ok ? result.url : { fails: result.reason };
}

function canonical(raw: string, base?: string): string {
  const result = canonicalize(raw, base);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(raw)} to canonicalize, got ${result.reason}`);
  return result.url;
}

const FIXTURE_CASES: readonly CanonicalizationCase[] = [...SAFE_BROWSING_CASES, ...URLCANON_CASES];

describe('canonicalize: cases ported from public normalization suites', () => {
  it.each(FIXTURE_CASES.map((c) => [c.source, JSON.stringify(c.input), c] as const))(
    '%s %s',
    (_source, _label, c) => {
      expect(outcome(canonicalize(c.input, c.base))).toEqual(c.expected);
    },
  );

  it('gives back its own output unchanged (the canonical form is a fixed point)', () => {
    const outputs = FIXTURE_CASES.flatMap((c) => (typeof c.expected === 'string' ? [c.expected] : []));
    expect(outputs.length).toBeGreaterThan(50);
    for (const url of outputs) expect(canonical(url)).toBe(url);
  });
});

describe('canonicalize: parsing as WHATWG does', () => {
  it('strips leading and trailing whitespace and C0 controls', () => {
    expect(canonical('\u0000\u001f \thttp://example.com/page \u0007\n')).toBe('http://example.com/page');
  });

  it('removes tabs and newlines inside the URL', () => {
    expect(canonical('http://exa\tmple.com/pa\nth?q\r=1')).toBe('http://example.com/path?q=1');
  });

  it('lowercases scheme and host but not path or query', () => {
    expect(canonical('HTTPS://WWW.Example.COM/Path/File?Q=Up')).toBe(
      'https://www.example.com/Path/File?Q=Up',
    );
  });

  it('converts an internationalized host to punycode', () => {
    expect(canonical('http://B\u00fccher.example/')).toBe('http://xn--bcher-kva.example/');
    expect(canonical('https://\u4f8b\u3048.\u30c6\u30b9\u30c8/')).toBe('https://xn--r8jz45g.xn--zckzah/');
  });

  it('drops the default port and keeps any other', () => {
    expect(canonical('http://example.com:80/a')).toBe('http://example.com/a');
    expect(canonical('https://example.com:443/a')).toBe('https://example.com/a');
    expect(canonical('http://example.com:443/a')).toBe('http://example.com:443/a');
    expect(canonical('https://example.com:80/a')).toBe('https://example.com:80/a');
    expect(canonical('http://example.com:8080/a')).toBe('http://example.com:8080/a');
  });

  it('drops the fragment, even an empty one', () => {
    expect(canonical('http://example.com/p?q=1#section-2')).toBe('http://example.com/p?q=1');
    expect(canonical('http://example.com/p#')).toBe('http://example.com/p');
  });

  it('drops userinfo', () => {
    expect(canonical('https://user:secret@example.com/private')).toBe('https://example.com/private');
  });

  it('resolves dot segments', () => {
    expect(canonical('http://example.com/a/b/../c/./d')).toBe('http://example.com/a/c/d');
    expect(canonical('http://example.com/../../x')).toBe('http://example.com/x');
  });

  it('turns an empty path into /', () => {
    expect(canonical('http://example.com')).toBe('http://example.com/');
    expect(canonical('http://example.com?x=1')).toBe('http://example.com/?x=1');
  });

  it('serializes IP hosts in their shortest form', () => {
    expect(canonical('http://[0:0:0:0:0:0:0:1]:8080/')).toBe('http://[::1]:8080/');
    expect(canonical('http://0x7f.1/')).toBe('http://127.0.0.1/');
  });
});

describe('canonicalize: resolving against a base', () => {
  const base = 'http://example.com/dir/sub/page.html?old=1#top';

  it('resolves relative paths, queries and network paths', () => {
    expect(canonical('../other.html?x=1#frag', base)).toBe('http://example.com/dir/other.html?x=1');
    expect(canonical('?new=2', base)).toBe('http://example.com/dir/sub/page.html?new=2');
    expect(canonical('//cdn.example.org/lib.js', 'https://example.com/')).toBe(
      'https://cdn.example.org/lib.js',
    );
  });

  it('treats a fragment-only link as the page itself', () => {
    expect(canonical('#section', base)).toBe('http://example.com/dir/sub/page.html?old=1');
  });

  it('ignores the base for an absolute URL', () => {
    expect(canonical('HTTPS://Other.example/x', base)).toBe('https://other.example/x');
  });
});

describe('canonicalize: percent-encoding', () => {
  it('uppercases the hex digits of escapes it keeps', () => {
    expect(canonical('http://example.com/a%2fb%3a?x=%2f%c3%a9')).toBe(
      'http://example.com/a%2Fb%3A?x=%2F%C3%A9',
    );
  });

  it('decodes escaped unreserved characters in path and query', () => {
    expect(canonical('http://example.com/%7Euser/%41%62%2D%2E%5F%7E%30')).toBe(
      'http://example.com/~user/Ab-._~0',
    );
    expect(canonical('http://example.com/?q=%61%2d%7e')).toBe('http://example.com/?q=a-~');
  });

  it('gives one spelling for escaped and plain unreserved characters', () => {
    const spellings = [
      'http://example.com/~user/a-b',
      'http://example.com/%7euser/%61%2Db',
      'http://example.com/%7E%75ser/a-b',
    ];
    expect(new Set(spellings.map((s) => canonical(s)))).toEqual(new Set(['http://example.com/~user/a-b']));
  });

  it('resolves every spelling of a dot segment, so decoding %2E needs no second pass', () => {
    const spellings = [
      'http://example.com/x/../y',
      'http://example.com/x/%2e%2e/y',
      'http://example.com/x/.%2E/y',
      'http://example.com/x/%2E./y',
      'http://example.com/x/./../y',
      'http://example.com/x/%2e/%2E%2e/y',
    ];
    for (const s of spellings) expect(canonical(s)).toBe('http://example.com/y');
  });

  it('turns %2E into a plain dot where it is part of a name, without removing the segment', () => {
    expect(canonical('http://example.com/x/%2E%2E%2E/y')).toBe('http://example.com/x/.../y');
    expect(canonical('http://example.com/x/%2Ehidden')).toBe('http://example.com/x/.hidden');
    expect(canonical('http://example.com/x/..%2Ebar')).toBe('http://example.com/x/...bar');
  });

  it('never decodes an escaped slash, which would split a segment', () => {
    expect(canonical('http://example.com/a%2F..%2Fb')).toBe('http://example.com/a%2F..%2Fb');
  });

  it('keeps a stray % and never lets decoding complete it into a new escape', () => {
    expect(canonical('http://example.com/100%')).toBe('http://example.com/100%');
    expect(canonical('http://example.com/%%30%30')).toBe('http://example.com/%%300');
    expect(canonical('http://example.com/%4%31')).toBe('http://example.com/%4%31');
    expect(canonical('http://example.com/a%%41%42')).toBe('http://example.com/a%%41B');
    // Not hex digits, so nothing can be forged: decoded as usual.
    expect(canonical('http://example.com/%g%41')).toBe('http://example.com/%gA');
    expect(canonical('http://example.com/%%7e')).toBe('http://example.com/%~');
  });

  it('percent-encodes non-ASCII and spaces (WHATWG), so the result is ASCII', () => {
    expect(canonical('http://example.com/caf\u00e9 menu?q=\u00fc ber')).toBe(
      'http://example.com/caf%C3%A9%20menu?q=%C3%BC%20ber',
    );
  });
});

describe('canonicalize: query', () => {
  it('drops an empty query', () => {
    expect(canonical('http://a.example/b?')).toBe('http://a.example/b');
    expect(canonical('http://a.example/b?#frag')).toBe('http://a.example/b');
  });

  it('keeps a non-empty query as it is, order and empty pairs included', () => {
    expect(canonical('http://a.example/b?z=1&a=2&&flag&')).toBe('http://a.example/b?z=1&a=2&&flag&');
    expect(canonical('http://a.example/b??')).toBe('http://a.example/b??');
  });
});

describe('canonicalize: failures', () => {
  it.each([
    'mailto:someone@example.com',
    'javascript:alert(1)',
    '  JavaScript:void(0)',
    'java\tscript:alert(1)',
    'data:text/html,<p>hi</p>',
    'tel:+15551234567',
    'ftp://ftp.example.com/file.txt',
    'about:blank',
    'file:///etc/passwd',
    'ws://example.com/socket',
    'urn:isbn:0451450523',
    'c:/Windows/win.ini',
  ])('%j is an unsupported scheme', (raw) => {
    expect(canonicalize(raw, 'http://example.com/')).toEqual({
      ok: false,
      reason: 'unsupported-scheme',
      input: raw,
    });
  });

  it('reports an unsupported scheme that comes from the base', () => {
    expect(outcome(canonicalize('other.txt', 'ftp://ftp.example.com/dir/'))).toEqual({
      fails: 'unsupported-scheme',
    });
  });

  it('rejects a huge data: URL as an unsupported scheme', () => {
    const raw = `data:image/png;base64,${'A'.repeat(1_000_000)}`;
    expect(outcome(canonicalize(raw))).toEqual({ fails: 'unsupported-scheme' });
  });

  it.each([
    '',
    '   ',
    'http://',
    'https://',
    'http:// /',
    'http://exa mple.com/',
    'http://[::1/',
    'http://256.256.256.256/',
    'http://example.com:99999/',
    'http://example.com:port/',
    '/relative/path',
    'no-scheme-at-all',
    '//example.com/no-base',
  ])('%j without a base is an invalid URL', (raw) => {
    expect(canonicalize(raw)).toEqual({ ok: false, reason: 'invalid-url', input: raw });
  });

  it('treats an unparseable base as an invalid URL', () => {
    expect(outcome(canonicalize('page.html', 'not a base'))).toEqual({ fails: 'invalid-url' });
  });

  it('accepts a canonical URL of exactly MAX_URL_LENGTH characters', () => {
    const prefix = 'http://example.com/';
    const url = prefix + 'x'.repeat(MAX_URL_LENGTH - prefix.length);
    expect(canonical(url)).toBe(url);
  });

  it('rejects a canonical URL one character longer as too long, with the input', () => {
    const prefix = 'http://example.com/';
    const raw = prefix + 'x'.repeat(MAX_URL_LENGTH - prefix.length + 1);
    expect(canonicalize(raw)).toEqual({ ok: false, reason: 'too-long', input: raw });
  });

  it('measures the canonical URL, not the input', () => {
    // A long fragment is dropped and escaped letters shrink to one character each.
    const withFragment = `http://example.com/page#${'f'.repeat(5000)}`;
    expect(canonical(withFragment)).toBe('http://example.com/page');
    const escaped = `http://example.com/${'%41'.repeat(1000)}`;
    expect(canonical(escaped)).toBe(`http://example.com/${'A'.repeat(1000)}`);
    // And the other way: WHATWG escaping makes the canonical form longer than the input.
    const spaces = `http://example.com/${' x'.repeat(700)}`;
    expect(spaces.length).toBeLessThan(MAX_URL_LENGTH);
    expect(outcome(canonicalize(spaces))).toEqual({ fails: 'too-long' });
  });
});

describe('canonicalize: percent normalization keeps meaning (generated paths)', () => {
  /** Decodes each valid %XX once, as a server would, leaving a stray % as it is. */
  function serverDecode(component: string): string {
    return component.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }

  const PIECES = [
    '%',
    '%%',
    '%2',
    '%2e',
    '%2E',
    '%41',
    '%4',
    '%7e',
    '%7E',
    '%2f',
    '%25',
    '%3a',
    '.',
    '..',
    '/',
    'a',
    'F',
    '0',
    '3',
  ];

  /** Deterministic pseudo-random paths built from the awkward pieces above. */
  function* generatedUrls(count: number): Generator<string> {
    let state = 0x2545f491; // xorshift32: deterministic, and good enough to mix the pieces
    const next = (bound: number): number => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % bound;
    };
    for (let i = 0; i < count; i++) {
      let path = '/';
      let query = '';
      for (let n = next(8) + 1; n > 0; n--) path += PIECES[next(PIECES.length)];
      for (let n = next(4); n > 0; n--) query += PIECES[next(PIECES.length)];
      yield `http://example.com${path}${query === '' ? '' : `?${query}`}`;
    }
  }

  it('decodes to the same bytes as the parsed input, and is a fixed point', () => {
    for (const raw of generatedUrls(3000)) {
      const parsed = new URL(raw);
      const url = new URL(canonical(raw));
      expect(serverDecode(url.pathname), raw).toBe(serverDecode(parsed.pathname));
      expect(serverDecode(url.search), raw).toBe(serverDecode(parsed.search));
      expect(canonical(url.href), raw).toBe(url.href);
    }
  });
});
