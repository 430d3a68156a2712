import type { promises as DnsPromises, LookupAddress } from 'node:dns';
import { nodeDns } from './node-dns.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** One name -> its addresses and how many seconds the answer may be kept (0 when unknown). */
export type Resolver = (hostname: string) => Promise<{ addresses: ResolvedAddress[]; ttlSeconds: number }>;

export interface SystemResolverOptions {
  /** Name servers to query ("127.0.0.1:5353", ...); default: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** Per-try query timeout, default 2_500 ms. */
  queryTimeoutMs?: number;
  /** Tries per name server, default 2: with c-ares' default of 4, a dead name server costs every name tens of seconds. */
  tries?: number;
  /** The fallback, default node's dns.promises.lookup (getaddrinfo: /etc/hosts, nsswitch, mDNS, ...). */
  systemLookup?: (hostname: string) => Promise<LookupAddress[]>;
}

interface RecordWithTtl {
  address: string;
  ttl: number;
}

function lookupAll(hostname: string): Promise<LookupAddress[]> {
  return nodeDns().promises.lookup(hostname, { all: true });
}

/** RFC 6761: "localhost" and its subdomains are answered locally; queries for them should never reach a name server. */
function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * The default resolver of a DnsCache. It asks the name servers directly (A and AAAA, with their TTLs) and
 * falls back to the system's getaddrinfo only when they do not give an address.
 *
 * Why the name servers first, for a crawler: getaddrinfo gives no TTL, so the cache could only guess how long
 * an answer stays good; and it runs on libuv's thread pool (4 threads by default), where a few slow lookups
 * would queue every other lookup and the zlib and file work of the crawl behind them. The direct queries
 * run on the event loop and carry TTLs. The fallback still finds names that only the system knows (an
 * /etc/hosts entry, a search domain, mDNS) and keeps the crawl working where the name servers are unusable.
 * The price: an /etc/hosts entry that shadows a public name is not seen; --resolve is the crawler's override.
 */
export function createSystemResolver(options: SystemResolverOptions = {}): Resolver {
  // Made at the first name asked for: a crawl that resolves none never loads node:dns.
  let made: DnsPromises.Resolver | undefined;
  const resolver = (): DnsPromises.Resolver => {
    if (made === undefined) {
      made = new (nodeDns().promises.Resolver)({
        timeout: options.queryTimeoutMs ?? 2_500,
        tries: options.tries ?? 2,
      });
      if (options.servers !== undefined) made.setServers([...options.servers]);
    }
    return made;
  };
  const systemLookup = options.systemLookup ?? lookupAll;

  async function askSystem(hostname: string) {
    const found = await systemLookup(hostname);
    const addresses = found.map(
      ({ address, family }): ResolvedAddress => ({ address, family: family === 6 ? 6 : 4 }),
    );
    // getaddrinfo tells no TTL: 0 lets the cache apply its minimum.
    return { addresses, ttlSeconds: 0 };
  }

  return async (hostname) => {
    if (isLocalhostName(hostname)) return askSystem(hostname);
    const [v4, v6] = await Promise.allSettled([
      resolver().resolve4(hostname, { ttl: true }),
      resolver().resolve6(hostname, { ttl: true }),
    ]);
    const records: RecordWithTtl[] = v4.status === 'fulfilled' ? v4.value : [];
    const v4Count = records.length;
    if (v6.status === 'fulfilled') records.push(...v6.value);
    // Not found (NXDOMAIN, no A or AAAA) or no usable name server: let the system try.
    if (records.length === 0) return askSystem(hostname);
    // IPv4 first: it is reachable from more crawl machines; node's happy eyeballs still tries IPv6 soon after.
    const addresses = records.map(
      ({ address }, i): ResolvedAddress => ({ address, family: i < v4Count ? 4 : 6 }),
    );
    const ttlSeconds = Math.min(...records.map((record) => record.ttl));
    return { addresses, ttlSeconds };
  };
}
