import { defaultPort } from './connector.js';
import type { DnsCache } from './dns-cache.js';
import { isPrivateAddress } from './ip-ranges.js';
import { resolveLookupOf } from './resolve-map.js';
import type { AddressPolicy } from './types.js';

/**
 * The crawl's rule: private addresses are refused unless allowPrivate, or the address is one a seed itself is
 * on (whoever seeds an intranet host means to crawl it, but a public page must not lead the crawler inside).
 */
export function privateAddressPolicy(options: {
  allowPrivate: boolean;
  seedAddresses: ReadonlySet<string>;
}): AddressPolicy {
  if (options.allowPrivate) return () => true;
  const { seedAddresses } = options;
  return (address) => !isPrivateAddress(address) || seedAddresses.has(address);
}

/**
 * The private addresses some URLs (the seeds) are on, as the connector would reach
 * them: through the --resolve map, else DNS. A name that does not resolve adds none:
 * its own fetch will record the failure.
 */
export async function privateAddressesOf(
  urls: readonly string[],
  resolve: ReadonlyMap<string, string> | undefined,
  dns: DnsCache,
): Promise<Set<string>> {
  const addresses = new Set<string>();
  const mappedOf = resolveLookupOf(resolve);
  for (const u of urls) {
    const url = new URL(u);
    const mapped = mappedOf?.(url.hostname, url.port || defaultPort(url.protocol));
    let found: string[] = [];
    try {
      // URL.hostname keeps an IPv6 literal's brackets; a resolver wants the bare address.
      found =
        mapped !== undefined
          ? [mapped]
          : (await dns.resolve(url.hostname.replace(/^\[|\]$/g, ''))).map((a) => a.address);
    } catch {}
    for (const a of found) if (isPrivateAddress(a)) addresses.add(a);
  }
  return addresses;
}
