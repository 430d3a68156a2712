import { privateAddressPolicy } from '../fetch/address-policy.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { AddressPolicy, FetchOutcome } from '../fetch/types.js';
import type { Frontier } from '../frontier/types.js';

/**
 * The private addresses this crawler may connect to: those the crawl's seeds are on,
 * wherever the seeds were given (whoever seeds an intranet host means to crawl it, but a
 * public page must not lead the crawler inside). The crawl's store keeps the list for
 * every crawler; this is a copy, which the fetcher's policy reads at each connection
 * (so a name that resolves somewhere else later, DNS rebinding, is checked again). A
 * refusal makes the crawler read the list again and try once more: another process
 * may have added seeds since this one last read it.
 */
export class AddressAllowance {
  /** Changed in place: the policy holds this very set. */
  private readonly allowed = new Set<string>();
  private reading: Promise<boolean> | null = null;
  private nextRead: Promise<boolean> | null = null;

  /** What the fetcher checks every address against before it dials it. */
  readonly policy: AddressPolicy;

  private constructor(
    private readonly frontier: Pick<Frontier, 'allowAddresses'>,
    allowPrivate: boolean,
  ) {
    this.policy = privateAddressPolicy({ allowPrivate, seedAddresses: this.allowed });
  }

  /** Gives the crawl the private addresses of this process's seeds, and reads what it allows. */
  static async start(
    frontier: Pick<Frontier, 'allowAddresses'>,
    allowPrivate: boolean,
    seedAddresses: Iterable<string>,
  ): Promise<AddressAllowance> {
    const allowance = new AddressAllowance(frontier, allowPrivate);
    allowance.keep(await frontier.allowAddresses([...seedAddresses]));
    return allowance;
  }

  /**
   * Reads the crawl's list again; true if it allows more than before. A caller must see
   * a read that began after its refusal, so callers arriving during a read share the
   * next one.
   */
  reread(): Promise<boolean> {
    if (this.reading === null) {
      this.reading = this.read().finally(() => {
        this.reading = null;
      });
      return this.reading;
    }
    this.nextRead ??= this.reading
      .catch(() => false)
      .then(() => {
        this.nextRead = null;
        return this.reread();
      });
    return this.nextRead;
  }

  private async read(): Promise<boolean> {
    return this.keep(await this.frontier.allowAddresses([]));
  }

  /** True if `addresses` held one this copy did not; the list only grows. */
  private keep(addresses: readonly string[]): boolean {
    const before = this.allowed.size;
    for (const a of addresses) this.allowed.add(a);
    return this.allowed.size > before;
  }
}

/**
 * A fetcher whose 'private-address' refusals are checked against the crawl's list once
 * more before they stand: a URL is refused the same whichever crawler leased it.
 */
export function allowedFetcher(
  fetcher: Pick<Fetcher, 'fetch' | 'addressOf'>,
  allowance: AddressAllowance,
): Pick<Fetcher, 'fetch' | 'addressOf'> {
  return {
    addressOf: (url) => fetcher.addressOf(url),
    async fetch(url, previous, startBy): Promise<FetchOutcome> {
      const outcome = await fetcher.fetch(url, previous, startBy);
      if (outcome.ok || outcome.error !== 'private-address' || !(await allowance.reread())) return outcome;
      return fetcher.fetch(url, previous, startBy);
    },
  };
}
