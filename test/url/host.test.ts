import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/url/canonicalize.js';
import { hostKey, hostnameOf, originOf } from '../../src/url/host.js';

function canonical(raw: string): string {
  const result = canonicalize(raw);
  if (!result.ok) throw new Error(`not canonicalizable: ${raw}`);
  return result.url;
}

describe('hostKey', () => {
  it('is the host, with the port only when it is not the default', () => {
    expect(hostKey('http://example.com/a/b')).toBe('example.com');
    expect(hostKey('http://example.com:8080/a')).toBe('example.com:8080');
    expect(hostKey('https://example.com:80/')).toBe('example.com:80');
    expect(hostKey('https://[2001:db8::1]:8443/x')).toBe('[2001:db8::1]:8443');
    expect(hostKey('https://[2001:db8::1]/x')).toBe('[2001:db8::1]');
  });

  it('is not fooled by colons, at-signs or slashes in path and query', () => {
    expect(hostKey('http://example.com/a:b@c//d?e=f://g')).toBe('example.com');
  });

  it('treats http and https on one host as one politeness key', () => {
    expect(hostKey('http://example.com/')).toBe(hostKey('https://example.com/x'));
  });
});

describe('host accessors agree with the WHATWG URL object on canonical URLs', () => {
  const inputs = [
    'HTTP://WWW.Example.COM/Path?q=1#f',
    'https://example.com:443/',
    'https://example.com:8443/a/b?x=y',
    'http://user:pass@example.com:81/x',
    'http://B\u00fccher.example/',
    'http://[0:0::1]/',
    'http://[::1]:3000/a:b',
    'http://127.0.0.1:8080/?redirect=http://other.example/',
    'http://0x7f.1/',
    'http://localhost/',
  ];

  it.each(inputs)('%s', (raw) => {
    const url = canonical(raw);
    const parsed = new URL(url);
    expect(hostKey(url)).toBe(parsed.host);
    expect(hostnameOf(url)).toBe(parsed.hostname);
    expect(originOf(url)).toBe(parsed.origin);
  });
});
