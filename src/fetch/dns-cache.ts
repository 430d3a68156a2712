import { isIP, type LookupFunction } from 'node:net';
import { createSystemResolver, type ResolvedAddress, type Resolver } from './system-resolver.js';

export type { ResolvedAddress, Resolver } from './system-resolver.js';

export interface DnsCacheOptions {
  /** Default: the name servers, then the system's getaddrinfo (see system-resolver.ts). */
  resolver?: Resolver;
  /** Shortest time an answer is kept, default 60_000: a crawl must not re-ask for every page of a 0-TTL host. */
  minTtlMs?: number;
  /** Longest time an answer is kept, default 3_600_000, so that a moved host is followed within the hour. */
  maxTtlMs?: number;
  /** How long a failure is kept, default 60_000, so that a dead name is not asked once per queued URL. */
  negativeTtlMs?: number;
  /** Most names kept, default 100_000; the oldest answer goes first. */
  maxEntries?: number;
  /** Milliseconds clock, for tests. */
  now?: () => number;
}

interface CacheEntry {
  /** The answer, the failure, or the query in flight that every caller shares. */
  readonly answer: Promise<ResolvedAddress[]>;
  /** Until when the entry may be used; Infinity while the query is in flight. */
  expiresAt: number;
}

/** The error node's dns module gives for a name without addresses, so that classifyError says "dns". */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'queryA',
    hostname,
  });
}

function asErrnoException(error: unknown): NodeJS.ErrnoException {
  return error instanceof Error ? error : new Error(String(error));
}

function literalAddress(hostname: string): ResolvedAddress | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  return family === 0 ? null : { address: bare, family: family === 6 ? 6 : 4 };
}

function familyWanted(family: number | 'IPv4' | 'IPv6' | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * Name -> addresses, kept for the answer's TTL (clamped to [minTtlMs, maxTtlMs]). Concurrent callers for one
 * name share one query, and failures are kept for negativeTtlMs (the same error, with its `code`, is thrown
 * again). One cache serves the whole crawl: its lookupFunction() is what every connection resolves through.
 */
export class DnsCache {
  readonly #resolver: Resolver;
  readonly #minTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #negativeTtlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, CacheEntry>();

  constructor(options: DnsCacheOptions = {}) {
    this.#resolver = options.resolver ?? createSystemResolver();
    this.#minTtlMs = options.minTtlMs ?? 60_000;
    this.#maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 60_000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  /** The addresses of a name (IPv4 first with the default resolver); an IP literal is its own answer. The array is frozen: it is the cache's. */
  resolve(hostname: string): Promise<ResolvedAddress[]> {
    const literal = literalAddress(hostname);
    if (literal !== null) return Promise.resolve([literal]);
    const name = hostname.toLowerCase();
    const entry = this.#entries.get(name);
    if (entry !== undefined && entry.expiresAt > this.#now()) return entry.answer;
    return this.#query(name);
  }

  /** A node LookupFunction (as net.connect and undici's connector take), backed by the cache; honours options.all and options.family. */
  lookupFunction(): LookupFunction {
    return (hostname, options, callback) => {
      const family = familyWanted(options.family);
      this.resolve(hostname).then(
        (addresses) => {
          const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
          const first = usable[0];
          if (first === undefined) callback(notFound(hostname), '', family);
          else if (options.all === true) callback(null, usable);
          else callback(null, first.address, first.family);
        },
        (error: unknown) => callback(asErrnoException(error), '', family),
      );
    };
  }

  #query(name: string): Promise<ResolvedAddress[]> {
    const entry: CacheEntry = {
      // The clock starts when the answer arrives, not when the question left.
      answer: this.#ask(name).then(
        ({ addresses, ttlMs }) => {
          entry.expiresAt = this.#now() + ttlMs;
          return addresses;
        },
        (error: unknown) => {
          entry.expiresAt = this.#now() + this.#negativeTtlMs;
          throw error;
        },
      ),
      expiresAt: Number.POSITIVE_INFINITY,
    };
    // Deleting first moves a re-asked name to the end of the Map's order, which is the eviction order.
    this.#entries.delete(name);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(name, entry);
    return entry.answer;
  }

  async #ask(name: string): Promise<{ addresses: ResolvedAddress[]; ttlMs: number }> {
    const { addresses, ttlSeconds } = await this.#resolver(name);
    if (addresses.length === 0) throw notFound(name);
    const ttlMs = Number.isFinite(ttlSeconds) ? ttlSeconds * 1000 : 0;
    return {
      // Frozen: every caller gets this same array.
      addresses: Object.freeze(addresses.map((entry) => Object.freeze({ ...entry }))) as ResolvedAddress[],
      ttlMs: Math.min(Math.max(ttlMs, this.#minTtlMs), this.#maxTtlMs),
    };
  }
}
