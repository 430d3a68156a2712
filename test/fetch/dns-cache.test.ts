import type { LookupAddress, LookupOptions } from 'node:dns';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DnsCache, type ResolvedAddress, type Resolver } from '../../src/fetch/dns-cache.js';
import { startRawServer, type TestServer } from './servers.js';

/** A resolver that answers from a table and counts the questions it gets, per name. */
function countingResolver(table: Record<string, { addresses: ResolvedAddress[]; ttlSeconds: number }>) {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (answer !== undefined) return answer;
    throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  return { calls, resolver };
}

const SITE = { addresses: [{ address: '127.0.0.2', family: 4 as const }], ttlSeconds: 120 };

/** A clock the test moves by hand. */
function manualClock() {
  let time = 1_000_000;
  return {
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

function lookupWith(cache: DnsCache, hostname: string, options: LookupOptions) {
  return new Promise<{
    error: NodeJS.ErrnoException | null;
    address: string | LookupAddress[];
    family?: number;
  }>((resolve) => {
    cache.lookupFunction()(hostname, options, (error, address, family) =>
      resolve({ error, address, family }),
    );
  });
}

describe('DnsCache', () => {
  it('asks once and answers from the cache until the TTL runs out', async () => {
    const clock = manualClock();
    const { calls, resolver } = countingResolver({ 'site.test': SITE });
    const cache = new DnsCache({ resolver, now: clock.now });

    expect(await cache.resolve('site.test')).toEqual(SITE.addresses);
    clock.advance(119_999);
    expect(await cache.resolve('site.test')).toEqual(SITE.addresses);
    expect(calls).toHaveLength(1);

    clock.advance(1);
    await cache.resolve('site.test');
    expect(calls).toHaveLength(2);
  });

  it('keeps an answer at least minTtlMs and at most maxTtlMs, whatever its TTL says', async () => {
    const clock = manualClock();
    const { calls, resolver } = countingResolver({
      'short.test': { ...SITE, ttlSeconds: 1 },
      'long.test': { ...SITE, ttlSeconds: 86_400 },
    });
    const cache = new DnsCache({ resolver, now: clock.now, minTtlMs: 10_000, maxTtlMs: 20_000 });
    await cache.resolve('short.test');
    await cache.resolve('long.test');

    clock.advance(9_999);
    await cache.resolve('short.test');
    expect(calls).toEqual(['short.test', 'long.test']);

    clock.advance(10_001);
    await cache.resolve('long.test');
    expect(calls).toEqual(['short.test', 'long.test', 'long.test']);
  });

  it('lets concurrent callers share one query', async () => {
    const releases: Array<() => void> = [];
    const cache = new DnsCache({
      resolver: () => new Promise<typeof SITE>((resolve) => releases.push(() => resolve(SITE))),
    });

    const pending = [cache.resolve('site.test'), cache.resolve('site.test'), cache.resolve('SITE.test')];
    for (const release of releases) release();

    expect(await Promise.all(pending)).toEqual([SITE.addresses, SITE.addresses, SITE.addresses]);
    expect(releases).toHaveLength(1);
  });

  it('keeps a failure for negativeTtlMs and throws it again with its code', async () => {
    const clock = manualClock();
    const { calls, resolver } = countingResolver({});
    const cache = new DnsCache({ resolver, now: clock.now, negativeTtlMs: 5_000 });

    await expect(cache.resolve('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    clock.advance(4_999);
    await expect(cache.resolve('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(calls).toHaveLength(1);

    clock.advance(1);
    await expect(cache.resolve('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(calls).toHaveLength(2);
  });

  it('treats an answer without addresses as ENOTFOUND', async () => {
    const cache = new DnsCache({ resolver: async () => ({ addresses: [], ttlSeconds: 60 }) });

    await expect(cache.resolve('empty.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('answers IP literals itself, without a query', async () => {
    const { calls, resolver } = countingResolver({});
    const cache = new DnsCache({ resolver });

    expect(await cache.resolve('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await cache.resolve('[::1]')).toEqual([{ address: '::1', family: 6 }]);
    expect(calls).toEqual([]);
  });

  it('forgets the oldest name first when maxEntries is reached', async () => {
    const { calls, resolver } = countingResolver({ 'a.test': SITE, 'b.test': SITE, 'c.test': SITE });
    const cache = new DnsCache({ resolver, maxEntries: 2 });

    for (const name of ['a.test', 'b.test', 'c.test', 'c.test', 'b.test', 'a.test'])
      await cache.resolve(name);

    expect(calls).toEqual(['a.test', 'b.test', 'c.test', 'a.test']);
  });
});

describe('DnsCache.lookupFunction', () => {
  const both = {
    addresses: [
      { address: '127.0.0.2', family: 4 as const },
      { address: '::1', family: 6 as const },
    ],
    ttlSeconds: 60,
  };
  const cache = new DnsCache({ resolver: countingResolver({ 'both.test': both }).resolver });

  it('gives every address with options.all, and the first one without', async () => {
    expect(await lookupWith(cache, 'both.test', { all: true })).toEqual({
      error: null,
      address: both.addresses,
      family: undefined,
    });
    expect(await lookupWith(cache, 'both.test', {})).toEqual({
      error: null,
      address: '127.0.0.2',
      family: 4,
    });
  });

  it('keeps to options.family', async () => {
    expect(await lookupWith(cache, 'both.test', { family: 6 })).toEqual({
      error: null,
      address: '::1',
      family: 6,
    });
    expect(await lookupWith(cache, 'both.test', { family: 'IPv4', all: true })).toMatchObject({
      address: [{ address: '127.0.0.2', family: 4 }],
    });
  });

  it('fails with ENOTFOUND when the name has no address of the family asked for', async () => {
    const v4Only = new DnsCache({ resolver: countingResolver({ 'v4.test': SITE }).resolver });

    const { error } = await lookupWith(v4Only, 'v4.test', { family: 6 });

    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it("passes the resolver's error on with its code", async () => {
    const { error } = await lookupWith(cache, 'unknown.test', { all: true });

    expect(error).toMatchObject({ code: 'ENOTFOUND', message: 'queryA ENOTFOUND unknown.test' });
  });

  describe('with node:net', () => {
    let server: TestServer | null = null;
    afterEach(async () => {
      await server?.close();
      server = null;
    });

    it('connects a socket to the address the cache gives for a name', async () => {
      server = await startRawServer((socket) => socket.end(), '127.0.0.2');
      const siteCache = new DnsCache({ resolver: countingResolver({ 'site.test': SITE }).resolver });
      const viaCache = connect({ host: 'site.test', port: server.port, lookup: siteCache.lookupFunction() });

      const remoteAddress = await new Promise<string | undefined>((resolve, reject) => {
        viaCache.once('connect', () => resolve(viaCache.remoteAddress));
        viaCache.once('error', reject);
      });
      viaCache.destroy();

      expect(remoteAddress).toBe('127.0.0.2');
      expect(server.connections()).toBe(1);
    });
  });
});
