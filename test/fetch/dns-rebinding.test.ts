/**
 * DNS rebinding midway through a crawl: a name that first resolves to an address the
 * crawl may reach (here the seed's own, 127.0.0.2, standing in for a public one) and
 * later to a private one (127.0.0.3). Its answers come from a real DNS server on
 * loopback whose records change, through the crawl's DnsCache; the later connection
 * must be refused, whatever the cache held, because the check is on the address dialled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { privateAddressesOf, privateAddressPolicy } from '../../src/fetch/address-policy.js';
import { DnsCache } from '../../src/fetch/dns-cache.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { createSystemResolver } from '../../src/fetch/system-resolver.js';
import type { FetchOutcome } from '../../src/fetch/types.js';
import { type DnsRecords, startDnsServer } from './dns-server.js';
import { sitesOnOnePort, type TestServer } from './servers.js';

const SEED_ADDRESS = '127.0.0.2';
const INSIDE_ADDRESS = '127.0.0.3';
const NAME = 'rebind.test';
const TTL_SECONDS = 60;

describe('DNS rebinding midway', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The seed's site and the inside one on one port, so that only the address tells them apart. */
  async function bothSites(keepAlive: boolean): Promise<{ outside: TestServer; inside: TestServer }> {
    const [outside, inside] = await sitesOnOnePort(SEED_ADDRESS, INSIDE_ADDRESS, keepAlive);
    cleanups.push(() => outside.close());
    cleanups.push(() => inside.close());
    return { outside, inside };
  }

  /** The crawl's fetcher as `cobweb crawl` makes it for one seed, its DNS a server whose records the test changes. */
  async function crawlFetcher(records: Map<string, DnsRecords>, seed: string) {
    const dns = await startDnsServer(records);
    cleanups.push(() => dns.close());
    let now = 1_000_000;
    const dnsCache = new DnsCache({
      resolver: createSystemResolver({ servers: [dns.server], systemLookup: async () => [] }),
      now: () => now,
    });
    const addressPolicy = privateAddressPolicy({
      allowPrivate: false,
      seedAddresses: await privateAddressesOf([seed], undefined, dnsCache),
    });
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', dnsCache, addressPolicy, totalTimeoutMs: 5000 });
    cleanups.push(() => fetcher.close());
    return {
      fetcher,
      questions: dns.questions,
      later: (ms: number) => {
        now += ms;
      },
    };
  }

  const said = (outcome: FetchOutcome) => (outcome.ok ? outcome.body.toString() : outcome.error);

  it('refuses the connection once the name answers a private address the seeds are not on', async () => {
    const { outside, inside } = await bothSites(false);
    const records = new Map<string, DnsRecords>([[NAME, { a: [[SEED_ADDRESS, TTL_SECONDS]] }]]);
    const seed = `http://${NAME}:${outside.port}/`;
    const crawl = await crawlFetcher(records, seed);

    expect(said(await crawl.fetcher.fetch(seed))).toBe(`hello from ${SEED_ADDRESS}`);
    records.set(NAME, { a: [[INSIDE_ADDRESS, TTL_SECONDS]] });
    // Within the answer's TTL the crawl still dials the address it was given (and checked).
    expect(said(await crawl.fetcher.fetch(`${seed}a`))).toBe(`hello from ${SEED_ADDRESS}`);
    crawl.later((TTL_SECONDS + 1) * 1000);
    const rebound = await crawl.fetcher.fetch(`${seed}b`);

    expect(rebound).toMatchObject({ ok: false, error: 'private-address' });
    expect(rebound.ok ? '' : rebound.message).toContain(INSIDE_ADDRESS);
    expect(inside.connections()).toBe(0);
    expect(outside.connections()).toBe(2);
    // The name was asked again: the refusal is of the new answer, not of a guess.
    expect(crawl.questions.filter((q) => q === `${NAME} A`).length).toBe(2);
  });

  it('keeps using a kept-alive connection to the checked address, and refuses the next new one', async () => {
    const { outside, inside } = await bothSites(true);
    const records = new Map<string, DnsRecords>([[NAME, { a: [[SEED_ADDRESS, TTL_SECONDS]] }]]);
    const seed = `http://${NAME}:${outside.port}/`;
    const crawl = await crawlFetcher(records, seed);

    expect(said(await crawl.fetcher.fetch(seed))).toBe(`hello from ${SEED_ADDRESS}`);
    records.set(NAME, { a: [[INSIDE_ADDRESS, TTL_SECONDS]] });
    crawl.later((TTL_SECONDS + 1) * 1000);
    // The open connection goes where it went before: to the address that was checked.
    expect(said(await crawl.fetcher.fetch(`${seed}a`))).toBe(`hello from ${SEED_ADDRESS}`);
    // Two at once need a second connection: that one resolves anew and is refused.
    const both = await Promise.all([crawl.fetcher.fetch(`${seed}b`), crawl.fetcher.fetch(`${seed}c`)]);

    expect(both.map(said).sort()).toEqual([`hello from ${SEED_ADDRESS}`, 'private-address']);
    expect(inside.connections()).toBe(0);
  });

  it('fetches the rebound address when the seeds are on it', async () => {
    const { outside, inside } = await bothSites(false);
    const records = new Map<string, DnsRecords>([[NAME, { a: [[SEED_ADDRESS, TTL_SECONDS]] }]]);
    const seed = `http://${NAME}:${outside.port}/`;
    const dns = await startDnsServer(records);
    cleanups.push(() => dns.close());
    let now = 0;
    const dnsCache = new DnsCache({
      resolver: createSystemResolver({ servers: [dns.server], systemLookup: async () => [] }),
      now: () => now,
    });
    const addressPolicy = privateAddressPolicy({
      allowPrivate: false,
      seedAddresses: await privateAddressesOf([seed, `http://${INSIDE_ADDRESS}/`], undefined, dnsCache),
    });
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', dnsCache, addressPolicy, totalTimeoutMs: 5000 });
    cleanups.push(() => fetcher.close());

    expect(said(await fetcher.fetch(seed))).toBe(`hello from ${SEED_ADDRESS}`);
    records.set(NAME, { a: [[INSIDE_ADDRESS, TTL_SECONDS]] });
    now += (TTL_SECONDS + 1) * 1000;

    expect(said(await fetcher.fetch(`${seed}b`))).toBe(`hello from ${INSIDE_ADDRESS}`);
    expect(inside.connections()).toBe(1);
  });
});
