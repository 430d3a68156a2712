import { privateAddressPolicy } from '../fetch/address-policy.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { AddressPolicy, FetchOutcome } from '../fetch/types.js';
import type { CrawlSeeds, Frontier } from '../frontier/types.js';
import { originOf } from '../url/host.js';
import { type LinkRules, linkRulesFrom } from './links.js';

/** Hosts a crawler learned are out of the crawl's scope after reading the list again, kept at most. */
const OUT_OF_SCOPE_KEPT = 10_000;

/**
 * This crawler's copy of the crawl's seeds, wherever they were given: their origins,
 * the crawl's scope (--scope host or domain), and the private addresses they are on,
 * the only ones the crawl may reach (whoever seeds an intranet host means to crawl it,
 * but a public page must not lead the crawler inside). The crawl's store keeps the
 * list for every crawler. The fetcher's policy reads the addresses at each connection
 * (so a name that resolves somewhere else later, DNS rebinding, is checked again), and
 * the link rules hold the origins. The copy is read again when something another
 * process's seeds may explain comes up: a connection refused as a private address, a
 * leased URL out of the scope this crawler knows. Then the link rules (and the parse
 * workers') take the new origins, and a refused connection is tried once more.
 */
export class CrawlSeedList {
  /** Changed in place: the policy holds this very set. */
  private readonly addresses = new Set<string>();
  private readonly origins = new Set<string>();
  private readonly outOfScope = new Set<string>();
  private reading: Promise<boolean> | null = null;
  private nextRead: Promise<boolean> | null = null;
  /** What the fetcher checks every address against before it dials it. */
  readonly policy: AddressPolicy;

  private constructor(
    private readonly frontier: Pick<Frontier, 'crawlSeeds'>,
    private readonly rules: LinkRules,
    allowPrivate: boolean,
    /** Told when the link rules took new origins (the parse workers must take them too). */
    private readonly onRulesChanged: () => void,
  ) {
    this.policy = privateAddressPolicy({ allowPrivate, seedAddresses: this.addresses });
  }

  /**
   * Gives the crawl this process's seeds (their origins, and the private addresses
   * `seedAddresses` they are on), and takes the crawl's.
   */
  static async start(parts: {
    frontier: Pick<Frontier, 'crawlSeeds'>;
    rules: LinkRules;
    allowPrivate: boolean;
    seeds: readonly string[];
    seedAddresses: Iterable<string>;
    onRulesChanged: () => void;
  }): Promise<CrawlSeedList> {
    const list = new CrawlSeedList(parts.frontier, parts.rules, parts.allowPrivate, parts.onRulesChanged);
    for (const o of parts.rules.spec?.filter.seeds ?? []) list.origins.add(originOf(o));
    const origins = [...new Set(parts.seeds.map(originOf))];
    list.keep(await parts.frontier.crawlSeeds({ origins, addresses: [...parts.seedAddresses] }));
    return list;
  }

  /**
   * Before a leased URL is visited: one out of the scope this crawler knows was put in
   * the crawl by another process's seeds (or a module, or the console): the list is
   * read again, so that its links are judged by the crawl's scope.
   */
  async knowScopeOf(url: string): Promise<void> {
    if (this.rules.filter(url) !== 'scope') return;
    const origin = originOf(url);
    if (this.outOfScope.has(origin)) return;
    await this.reread();
    if (this.rules.filter(url) !== 'scope') return;
    if (this.outOfScope.size >= OUT_OF_SCOPE_KEPT) this.outOfScope.clear();
    this.outOfScope.add(origin);
  }

  /**
   * Reads the crawl's list again; true if it holds more than before. A caller must see
   * a read that began after what made it ask, so callers arriving during a read share
   * the next one.
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
    return this.keep(await this.frontier.crawlSeeds({ origins: [], addresses: [] }));
  }

  /** Takes what the crawl has; true if it held something this copy did not. The list only grows. */
  private keep(all: CrawlSeeds): boolean {
    const before = this.addresses.size;
    for (const a of all.addresses) this.addresses.add(a);
    const fresh = all.origins.filter((o) => !this.origins.has(o));
    for (const o of fresh) this.origins.add(o);
    const spec = this.rules.spec;
    if (fresh.length > 0 && spec !== undefined && spec.filter.scope !== 'any') {
      // The same rules object everywhere it is held (the loop, the sitemaps, the modules):
      // changed in place, so every holder judges links by the crawl's scope from now on.
      Object.assign(
        this.rules,
        linkRulesFrom({ ...spec, filter: { ...spec.filter, seeds: [...spec.filter.seeds, ...fresh] } }),
      );
      this.outOfScope.clear();
      this.onRulesChanged();
    }
    return this.addresses.size > before || fresh.length > 0;
  }
}

/**
 * A fetcher whose 'private-address' refusals are checked against the crawl's list once
 * more before they stand: a URL is refused the same whichever crawler leased it.
 */
export function allowedFetcher(
  fetcher: Pick<Fetcher, 'fetch' | 'addressOf'>,
  seeds: CrawlSeedList,
): Pick<Fetcher, 'fetch' | 'addressOf'> {
  return {
    addressOf: (url) => fetcher.addressOf(url),
    async fetch(url, previous, startBy, limits): Promise<FetchOutcome> {
      const outcome = await fetcher.fetch(url, previous, startBy, limits);
      if (outcome.ok || outcome.error !== 'private-address' || !(await seeds.reread())) return outcome;
      return fetcher.fetch(url, previous, startBy, limits);
    },
  };
}
