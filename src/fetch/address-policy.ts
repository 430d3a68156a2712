import { isPrivateAddress } from './ip-ranges.js';
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
