import { describe, expect, it } from 'vitest';
import { proxyChoiceOf, proxyFor, proxyShown } from '../../src/fetch/proxy.js';

const P = 'http://proxy.test:3128';

describe('which requests go through a proxy', () => {
  it('--proxy takes every scheme; the environment goes by scheme, lowercase names too', () => {
    const flag = proxyChoiceOf(P, { HTTPS_PROXY: 'http://other.test:1' });
    expect(proxyFor(new URL('http://a.test/'), flag)).toBe(P);
    expect(proxyFor(new URL('https://a.test/'), flag)).toBe(P);
    const env = proxyChoiceOf(undefined, { http_proxy: 'http://h.test:1', HTTPS_PROXY: 'http://s.test:2' });
    expect(proxyFor(new URL('http://a.test/'), env)).toBe('http://h.test:1');
    expect(proxyFor(new URL('https://a.test/'), env)).toBe('http://s.test:2');
    expect(proxyFor(new URL('http://a.test/'), proxyChoiceOf(undefined, {}))).toBeNull();
  });

  it('sends the hosts NO_PROXY names direct: a domain and its subdomains, a port, or *', () => {
    const choice = proxyChoiceOf(P, { NO_PROXY: 'example.com, .internal.test,10.0.0.1:8080' });
    const via = (url: string) => proxyFor(new URL(url), choice);
    expect(via('http://example.com/')).toBeNull();
    expect(via('http://www.example.com/')).toBeNull();
    expect(via('http://notexample.com/')).toBe(P);
    expect(via('http://a.internal.test/')).toBeNull();
    expect(via('http://10.0.0.1:8080/')).toBeNull();
    expect(via('http://10.0.0.1/')).toBe(P);
    expect(proxyFor(new URL('http://a.test/'), proxyChoiceOf(P, { no_proxy: '*' }))).toBeNull();
  });

  it('names a proxy without its user and password', () => {
    expect(proxyShown('http://me:secret@proxy.test:3128')).toBe('http://proxy.test:3128');
  });
});
