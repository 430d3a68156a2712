import { createSocket } from 'node:dgram';
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { DnsCache } from '../../src/fetch/dns-cache.js';
import { createSystemResolver } from '../../src/fetch/system-resolver.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

/** A stand-in for getaddrinfo that records what it was asked. */
function recordingLookup(answers: Record<string, LookupAddress[]>) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const found = answers[hostname];
    if (found !== undefined) return found;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  return { asked, lookup };
}

/** A loopback UDP port with nothing listening on it: a name server that is not there. */
async function deadServer(): Promise<string> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

describe('the default resolver (name servers first, then the system)', () => {
  const servers: TestDnsServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  async function dnsServer(records: Parameters<typeof startDnsServer>[0]) {
    const server = await startDnsServer(records);
    servers.push(server);
    return server;
  }

  it('gives the A and AAAA answers of the name servers, IPv4 first, with the shortest TTL', async () => {
    const dns = await dnsServer(
      new Map([['www.site.test', { a: [['127.0.0.5', 300] as const], aaaa: [['fd00::5', 120] as const] }]]),
    );
    const system = recordingLookup({});
    const resolve = createSystemResolver({ servers: [dns.server], systemLookup: system.lookup });

    const answer = await resolve('www.site.test');

    expect(answer).toEqual({
      addresses: [
        { address: '127.0.0.5', family: 4 },
        { address: 'fd00::5', family: 6 },
      ],
      ttlSeconds: 120,
    });
    expect(dns.questions.sort()).toEqual(['www.site.test A', 'www.site.test AAAA']);
    expect(system.asked).toEqual([]);
  });

  it('asks the system for a name the name servers do not know (an /etc/hosts entry, say)', async () => {
    const dns = await dnsServer(new Map());
    const system = recordingLookup({ 'printer.lan': [{ address: '192.168.1.9', family: 4 }] });
    const resolve = createSystemResolver({ servers: [dns.server], systemLookup: system.lookup });

    const answer = await resolve('printer.lan');

    // No TTL from getaddrinfo: 0, which the cache raises to its minimum.
    expect(answer).toEqual({ addresses: [{ address: '192.168.1.9', family: 4 }], ttlSeconds: 0 });
    expect(dns.questions.length).toBeGreaterThan(0);
    expect(system.asked).toEqual(['printer.lan']);
  });

  it('asks the system when no name server answers', async () => {
    const system = recordingLookup({ 'site.test': [{ address: '127.0.0.6', family: 4 }] });
    const resolve = createSystemResolver({
      servers: [await deadServer()],
      queryTimeoutMs: 200,
      tries: 1,
      systemLookup: system.lookup,
    });

    expect((await resolve('site.test')).addresses).toEqual([{ address: '127.0.0.6', family: 4 }]);
  });

  it("fails with the system's error code when neither knows the name", async () => {
    const dns = await dnsServer(new Map());
    const cache = new DnsCache({
      resolver: createSystemResolver({ servers: [dns.server], systemLookup: recordingLookup({}).lookup }),
    });

    await expect(cache.resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('never sends a query for localhost names (RFC 6761): the system answers them', async () => {
    const dns = await dnsServer(new Map([['localhost', { a: [['127.0.0.99', 60] as const] }]]));
    const system = recordingLookup({ 'app.localhost': [{ address: '127.0.0.1', family: 4 }] });
    const resolve = createSystemResolver({ servers: [dns.server], systemLookup: system.lookup });

    expect((await resolve('app.localhost')).addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(dns.questions).toEqual([]);
  });

  it('resolves localhost through the real system lookup, and IP literals without any lookup', async () => {
    const cache = new DnsCache();

    const localhost = await cache.resolve('localhost');
    const literals = await Promise.all(['127.0.0.9', '::1', '[fe80::1]'].map((ip) => cache.resolve(ip)));

    expect(localhost.some((entry) => entry.address === '127.0.0.1' || entry.address === '::1')).toBe(true);
    expect(literals).toEqual([
      [{ address: '127.0.0.9', family: 4 }],
      [{ address: '::1', family: 6 }],
      [{ address: 'fe80::1', family: 6 }],
    ]);
  });
});
