import type { CrawlerEntry, KeptState, SiteClaim, StoreCounters, UrlsOnDisk } from '../memory/changes.js';
import type { UrlEntry } from '../memory/url-entry.js';
import type { BudgetState } from '../policy/politeness.js';
import type { RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds, LeaseId } from '../types.js';
import { type Change, entryOfChange, STARTING_COUNTERS, setState } from './change-log.js';

/** A journal or snapshot line that is not what the workbench store writes. */
export class JournalReadError extends Error {
  override name = 'JournalReadError';
}

/**
 * Builds the engine's KeptState from snapshot and journal lines, read in the order they
 * were written, after the URL files: a URL in memory in a snapshot, or back from a file in
 * a journal, is the engine's, not the files'.
 */
export class KeptReader {
  private readonly entries = new Map<number, UrlEntry>();
  private lastId: number;
  private readonly vias = new Map<string, string>();
  private readonly hosts = new Map<string, KeptState['hosts'][number]>();
  private readonly budgets = new Map<string, BudgetState>();
  private readonly leases = new Map<LeaseId, KeptState['leases'][number]>();
  private readonly crawlers = new Map<CrawlerId, CrawlerEntry>();
  private readonly sites = new Map<string, SiteClaim>();
  private readonly cookies = new Map<string, string>();
  private readonly robots = new Map<string, RobotsRow>();
  private seeds: CrawlSeeds = { origins: [], addresses: [] };
  private counters: StoreCounters = STARTING_COUNTERS;

  constructor(
    /** The URL files, read first. */
    private readonly disk: UrlsOnDisk,
    private readonly finalFingerprints: BigUint64Array,
    /** The highest URL id in them. */
    lastId: number,
  ) {
    this.lastId = lastId;
  }

  /** One line: an array of changes (a call's, or a slice of a snapshot). */
  line(text: string, where: string): void {
    let changes: Change[];
    try {
      changes = JSON.parse(text) as Change[];
    } catch {
      throw new JournalReadError(`${where}: not a line of JSON`);
    }
    if (!Array.isArray(changes)) throw new JournalReadError(`${where}: not a list of changes`);
    for (const c of changes) this.apply(c, where);
  }

  /** One string for every URL found on one page (each line holds its own copy of it). */
  private shared(via: string | null): string | null {
    if (via === null) return null;
    const known = this.vias.get(via);
    if (known !== undefined) return known;
    this.vias.set(via, via);
    return via;
  }

  /**
   * A URL of the files changed in a journal: a queued URL the engine read back to lease
   * (which it does not journal) is the engine's again, as its line says before the change.
   */
  private fromDisk(id: number): UrlEntry | undefined {
    if (!Number.isInteger(id) || this.disk.stateOf(id) === null) return undefined;
    const entry = this.disk.read(id);
    this.disk.takeBack(id);
    this.entries.set(id, entry);
    return entry;
  }

  kept(): KeptState {
    return {
      entries: [...this.entries.values()],
      lastId: this.lastId,
      finalFingerprints: this.finalFingerprints,
      hosts: [...this.hosts.values()],
      budgets: [...this.budgets],
      leases: [...this.leases.values()],
      crawlers: [...this.crawlers],
      sites: [...this.sites],
      cookies: [...this.cookies],
      robots: [...this.robots],
      seeds: this.seeds,
      counters: this.counters,
    };
  }

  private apply(c: Change, where: string): void {
    const [kind, a, b, d, e, f] = c;
    switch (kind) {
      case 'u':
      case 'v': {
        const id = a as number;
        if (!Number.isInteger(id) || id < 1) throw new JournalReadError(`${where}: URL id ${id}`);
        if (kind === 'u' && this.entries.has(id))
          throw new JournalReadError(`${where}: URL ${id} added twice`);
        const entry = entryOfChange(c);
        entry.via = this.shared(entry.via);
        this.entries.set(id, entry);
        if (this.disk.stateOf(id) !== null) this.disk.takeBack(id);
        this.lastId = Math.max(this.lastId, id);
        return;
      }
      case 'e': {
        const entry = this.entries.get(a as number) ?? this.fromDisk(a as number);
        if (entry === undefined) throw new JournalReadError(`${where}: a change of URL ${a}, never added`);
        setState(entry, c.slice(2));
        entry.via = this.shared(entry.via);
        return;
      }
      case 'h':
        this.hosts.set(a as string, {
          host: a as string,
          taken: b as number,
          retired: d === 1,
          budget: e as string,
        });
        return;
      case 'b':
        this.budgets.set(a as string, b as BudgetState);
        return;
      case 'l':
        this.leases.set(a as LeaseId, {
          id: a as LeaseId,
          entryId: b as number,
          crawler: d as CrawlerId,
          expiresAt: e as number,
          released: f === 1,
        });
        return;
      case 'x':
        this.leases.delete(a as LeaseId);
        return;
      case 'c':
        this.crawlers.set(a as CrawlerId, { name: b as string, left: d as boolean });
        return;
      case 's':
        this.sites.set(a as string, b as SiteClaim);
        return;
      case 'k':
        if (b === null) this.cookies.delete(a as string);
        else this.cookies.set(a as string, b as string);
        return;
      case 'r':
        this.robots.set(a as string, b as RobotsRow);
        return;
      case 'o':
        this.seeds = a as CrawlSeeds;
        return;
      case 'n':
        this.counters = a as StoreCounters;
        return;
      default:
        throw new JournalReadError(`${where}: unknown change ${JSON.stringify(kind)}`);
    }
  }
}
