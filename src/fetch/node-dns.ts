import type * as Dns from 'node:dns';
import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';

let loaded: typeof Dns | undefined;

/**
 * node:dns, loaded at the first name to resolve rather than at start: a crawl of IP
 * addresses, or a one-page crawl's first moments, do without it (0.8 ms to load).
 */
export function nodeDns(): typeof Dns {
  loaded ??= createRequire(import.meta.url)('node:dns') as typeof Dns;
  return loaded;
}

/** dns.lookup (getaddrinfo), as net.connect's `lookup` option takes it. */
export const systemLookup: LookupFunction = (hostname, options, callback) =>
  // The same overload net.connect calls dns.lookup with: options, then (err, address(es), family).
  (nodeDns().lookup as unknown as LookupFunction)(hostname, options, callback);
