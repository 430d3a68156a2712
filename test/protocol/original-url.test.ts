import { describe, expect, it } from 'vitest';
import { originalFromUrl, ProtocolError, urlFromOriginal } from '../../src/protocol/index.js';

function badUrl(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).codeName).toBe('BAD_URL');
    return (e as ProtocolError).message;
  }
  throw new Error('expected BAD_URL');
}

describe('urlFromOriginal', () => {
  it('reads port 443 as https and any other port as http', () => {
    expect(urlFromOriginal({ addr: '0.0.0.0', port: 443, host: 'example.com', path: '/' })).toEqual({
      url: 'https://example.com/',
      address: null,
    });
    expect(urlFromOriginal({ addr: '93.184.216.34', port: 80, host: 'example.com', path: '/a?b=1' })).toEqual(
      {
        url: 'http://example.com/a?b=1',
        address: '93.184.216.34',
      },
    );
    expect(urlFromOriginal({ addr: '10.0.0.1', port: 8443, host: 'Example.COM', path: '/x' }).url).toBe(
      'http://example.com:8443/x',
    );
  });

  it('takes addr 0.0.0.0 as not resolved', () => {
    expect(urlFromOriginal({ addr: '0.0.0.0', port: 80, host: '127.0.0.2', path: '/' }).address).toBeNull();
  });

  it('refuses what cannot make a URL, saying what', () => {
    const t = { addr: '0.0.0.0', port: 80, host: 'a.test', path: '/' };
    expect(badUrl(() => urlFromOriginal({ ...t, host: '' }))).toMatch(/host is empty/);
    expect(badUrl(() => urlFromOriginal({ ...t, host: 'a.test/evil' }))).toMatch(/character/);
    expect(badUrl(() => urlFromOriginal({ ...t, host: 'user@a.test' }))).toMatch(/character/);
    expect(badUrl(() => urlFromOriginal({ ...t, host: 'a.test:81' }))).toMatch(/character/);
    expect(badUrl(() => urlFromOriginal({ ...t, host: '[::1]' }))).toMatch(/character/);
    expect(badUrl(() => urlFromOriginal({ ...t, host: 'a b' }))).toMatch(/character/);
    expect(badUrl(() => urlFromOriginal({ ...t, path: 'index.html' }))).toMatch(/does not start with "\/"/);
    expect(badUrl(() => urlFromOriginal({ ...t, path: '/a\nb' }))).toMatch(/control/);
    expect(badUrl(() => urlFromOriginal({ ...t, port: 0 }))).toMatch(/port 0/);
  });
});

describe('originalFromUrl', () => {
  it('gives addr, port, host and path', () => {
    expect(originalFromUrl('http://example.com/docs/a.html?x=1')).toEqual({
      addr: '0.0.0.0',
      port: 80,
      host: 'example.com',
      path: '/docs/a.html?x=1',
    });
    expect(originalFromUrl('https://example.com/', '93.184.216.34')).toEqual({
      addr: '93.184.216.34',
      port: 443,
      host: 'example.com',
      path: '/',
    });
    expect(originalFromUrl('http://127.0.0.2:8080/x')).toEqual({
      addr: '127.0.0.2',
      port: 8080,
      host: '127.0.0.2',
      path: '/x',
    });
  });

  it('sends an IPv6 or unparsable address as 0.0.0.0, for the client to resolve', () => {
    expect(originalFromUrl('http://example.com/', '2001:db8::1').addr).toBe('0.0.0.0');
    expect(originalFromUrl('http://example.com/', null).addr).toBe('0.0.0.0');
  });

  it('drops the fragment and sends an IDN host in punycode', () => {
    expect(originalFromUrl('http://bücher.example/a#top')).toMatchObject({
      host: 'xn--bcher-kva.example',
      path: '/a',
    });
  });

  it('refuses what the original packets cannot say', () => {
    expect(badUrl(() => originalFromUrl('ftp://example.com/'))).toMatch(/only http and https/);
    expect(badUrl(() => originalFromUrl('http://[2001:db8::1]/'))).toMatch(/IPv6/);
    expect(badUrl(() => originalFromUrl('https://example.com:8443/'))).toMatch(/https on port 8443/);
    expect(badUrl(() => originalFromUrl('http://example.com:443/'))).toMatch(/http on port 443/);
    expect(badUrl(() => originalFromUrl('http://user:pw@example.com/'))).toMatch(/user name or password/);
    expect(badUrl(() => originalFromUrl('not a url'))).toMatch(/not a URL/);
    expect(badUrl(() => originalFromUrl(`http://example.com/${'a'.repeat(70_000)}`))).toMatch(/too long/);
  });

  it('round-trips with urlFromOriginal', () => {
    for (const url of [
      'http://example.com/',
      'https://example.com/a/b?c=d&e=%20f',
      'http://127.0.0.2:8080/x',
      'http://xn--bcher-kva.example/',
    ]) {
      const t = originalFromUrl(url);
      expect(urlFromOriginal(t).url).toBe(url);
      expect(originalFromUrl(urlFromOriginal(t).url)).toEqual(t);
    }
  });
});
