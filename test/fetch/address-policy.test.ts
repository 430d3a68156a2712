import { afterEach, describe, expect, it } from 'vitest';
import { privateAddressesOf, privateAddressPolicy } from '../../src/fetch/address-policy.js';
import { DnsCache, type ResolvedAddress } from '../../src/fetch/dns-cache.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import type { FetcherOptions, FetchOutcome } from '../../src/fetch/types.js';
import { sitesOnOnePort, startSiteOn, type TestServer } from './servers.js';

const NO_SEEDS: ReadonlySet<string> = new Set();

/** A DnsCache whose "DNS" is a table, counting the questions it gets. */
function tableDns(table: Record<string, ResolvedAddress[]>) {
  const asked: string[] = [];
  const cache = new DnsCache({
    resolver: async (hostname) => {
      asked.push(hostname);
      const addresses = table[hostname];
      if (addresses === undefined)
        throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return { addresses, ttlSeconds: 300 };
    },
  });
  return { asked, cache };
}

function failureOf(outcome: FetchOutcome): { error: string; message: string } | null {
  return outcome.ok ? null : { error: outcome.error, message: outcome.message };
}

describe('privateAddressPolicy', () => {
  it('refuses private addresses, except those a seed is on', () => {
    const allows = privateAddressPolicy({ allowPrivate: false, seedAddresses: new Set(['10.0.0.5']) });

    expect(allows('93.184.215.14', 'example.com')).toBe(true);
    expect(allows('10.0.0.5', 'intranet.test')).toBe(true);
    expect(allows('10.0.0.6', 'intranet.test')).toBe(false);
    expect(allows('169.254.169.254', 'metadata.test')).toBe(false);
    expect(allows('::1', 'localhost')).toBe(false);
  });

  it('allows everything with allowPrivate', () => {
    const allows = privateAddressPolicy({ allowPrivate: true, seedAddresses: NO_SEEDS });

    expect(allows('127.0.0.1', 'localhost')).toBe(true);
    expect(allows('169.254.169.254', 'metadata.test')).toBe(true);
  });
});

describe('Fetcher with an address policy (checked at connect time)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function site(host: string): Promise<TestServer> {
    const started = await startSiteOn(host);
    cleanups.push(() => started.close());
    return started;
  }

  async function twoSitesOnOnePort(firstHost: string, secondHost: string): Promise<[TestServer, TestServer]> {
    const both = await sitesOnOnePort(firstHost, secondHost);
    for (const one of both) cleanups.push(() => one.close());
    return both;
  }

  function fetcher(options: Partial<FetcherOptions>): Fetcher {
    const created = new Fetcher({
      userAgent: 'cobweb-test',
      connectTimeoutMs: 2000,
      totalTimeoutMs: 5000,
      ...options,
    });
    cleanups.push(() => created.close());
    return created;
  }

  it('refuses an IP-literal URL on a private address; the server sees no connection', async () => {
    const server = await site('127.0.0.2');
    const policy = privateAddressPolicy({ allowPrivate: false, seedAddresses: NO_SEEDS });

    const outcome = await fetcher({ addressPolicy: policy }).fetch(server.url('/'));

    expect(failureOf(outcome)).toEqual({
      error: 'private-address',
      message: '127.0.0.2 is a private address (use --allow-private to crawl it)',
    });
    expect(server.connections()).toBe(0);
  });

  it('refuses a public-looking name that --resolve maps to a private address', async () => {
    const server = await site('127.0.0.3');
    const policy = privateAddressPolicy({ allowPrivate: false, seedAddresses: NO_SEEDS });
    const resolve = new Map([[`www.public.test:${server.port}`, '127.0.0.3']]);

    const outcome = await fetcher({ addressPolicy: policy, resolve }).fetch(
      `http://www.public.test:${server.port}/`,
    );

    expect(failureOf(outcome)).toEqual({
      error: 'private-address',
      message:
        'www.public.test is at 127.0.0.3, which is a private address (use --allow-private to crawl it)',
    });
    expect(server.connections()).toBe(0);
  });

  it("fetches from a seed's own private address and refuses the other private addresses", async () => {
    const seed = await site('127.0.0.2');
    const other = await site('127.0.0.3');
    const policy = privateAddressPolicy({ allowPrivate: false, seedAddresses: new Set(['127.0.0.2']) });
    const fetch = fetcher({ addressPolicy: policy });

    const fromSeed = await fetch.fetch(seed.url('/'));
    const fromOther = await fetch.fetch(other.url('/'));

    expect(fromSeed.ok ? fromSeed.body.toString() : fromSeed.message).toBe('hello from 127.0.0.2');
    expect(failureOf(fromOther)?.error).toBe('private-address');
    expect(other.connections()).toBe(0);
  });

  it('fetches private addresses with allowPrivate', async () => {
    const first = await site('127.0.0.2');
    const second = await site('127.0.0.3');
    const fetch = fetcher({
      addressPolicy: privateAddressPolicy({ allowPrivate: true, seedAddresses: NO_SEEDS }),
    });

    const outcomes = await Promise.all([fetch.fetch(first.url('/')), fetch.fetch(second.url('/'))]);

    expect(outcomes.map((outcome) => (outcome.ok ? outcome.status : outcome.message))).toEqual([200, 200]);
  });

  it('refuses a name whose DNS answer is a private address, when connecting to it', async () => {
    const server = await site('127.0.0.2');
    const dns = tableDns({ 'www.innocent.test': [{ address: '127.0.0.2', family: 4 }] });
    const policy = privateAddressPolicy({ allowPrivate: false, seedAddresses: NO_SEEDS });

    const outcome = await fetcher({ addressPolicy: policy, dnsCache: dns.cache }).fetch(
      `http://www.innocent.test:${server.port}/`,
    );

    expect(failureOf(outcome)).toEqual({
      error: 'private-address',
      message:
        'www.innocent.test is at 127.0.0.2, which is a private address (use --allow-private to crawl it)',
    });
    expect(dns.asked).toEqual(['www.innocent.test']);
    expect(server.connections()).toBe(0);
  });

  it('dials only the allowed addresses of a name that has both kinds', async () => {
    const [refused, allowed] = await twoSitesOnOnePort('127.0.0.3', '127.0.0.2');
    const dns = tableDns({
      'mixed.test': [
        { address: '127.0.0.3', family: 4 },
        { address: '127.0.0.2', family: 4 },
      ],
    });
    const policy = privateAddressPolicy({ allowPrivate: false, seedAddresses: new Set(['127.0.0.2']) });

    const outcome = await fetcher({ addressPolicy: policy, dnsCache: dns.cache }).fetch(
      `http://mixed.test:${allowed.port}/`,
    );

    expect(outcome.ok ? outcome.body.toString() : outcome.message).toBe('hello from 127.0.0.2');
    expect(refused.connections()).toBe(0);
  });

  it('resolves a host once for two connections to it (the DNS cache is used)', async () => {
    const server = await site('127.0.0.2');
    const dns = tableDns({ 'www.site.test': [{ address: '127.0.0.2', family: 4 }] });
    const fetch = fetcher({ dnsCache: dns.cache });

    const first = await fetch.fetch(`http://www.site.test:${server.port}/one`);
    const second = await fetch.fetch(`http://www.site.test:${server.port}/two`);

    expect([first.ok && first.status, second.ok && second.status]).toEqual([200, 200]);
    expect(server.connections()).toBe(2);
    expect(dns.asked).toEqual(['www.site.test']);
  });
});

describe('privateAddressesOf (the addresses seeds are on)', () => {
  it('takes --resolve first, then DNS; keeps only private addresses; skips names that do not resolve', async () => {
    const { asked, cache } = tableDns({
      'intranet.test': [{ address: '10.1.2.3', family: 4 }],
      'public.test': [{ address: '93.184.216.34', family: 4 }],
    });
    const resolve = new Map([['mapped.test:8080', '127.0.0.5']]);
    const found = await privateAddressesOf(
      [
        'http://mapped.test:8080/',
        'http://intranet.test/',
        'http://public.test/',
        'http://gone.test/',
        'http://127.0.0.2:81/',
        'http://[::1]/',
      ],
      resolve,
      cache,
    );
    expect([...found].sort()).toEqual(['10.1.2.3', '127.0.0.2', '127.0.0.5', '::1']);
    expect(asked.sort()).toEqual(['gone.test', 'intranet.test', 'public.test']);
  });

  it('takes a seed on a wildcard --resolve entry as the wildcard maps it, without asking DNS', async () => {
    const { asked, cache } = tableDns({});
    const resolve = new Map([['*.scale.test:8080', '127.0.0.6']]);
    const found = await privateAddressesOf(['http://h1.scale.test:8080/'], resolve, cache);
    expect([...found]).toEqual(['127.0.0.6']);
    expect(asked).toEqual([]);
  });
});
