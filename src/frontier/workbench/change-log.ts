import type { CrawlerEntry, KeptState, SiteClaim, StoreChanges, StoreCounters } from '../memory/changes.js';
import type { MemoryHost } from '../memory/memory-hosts.js';
import type { HeldLease, UrlEntry, UrlState } from '../memory/url-entry.js';
import type { BudgetState } from '../policy/politeness.js';
import type { RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds, LeaseId, PreviousFetch, UrlKind } from '../types.js';

/**
 * One change as the journal holds it: a JSON array, its first element the kind. Each
 * names the whole new state of one thing (a URL, a host, a budget, a lease...), so
 * reading them in order, the last one of each thing wins.
 *
 *   ['u', id, url, host, depth, via, redirects, kind, ...state]  a URL first seen
 *   ['e', id, ...state]                a URL's new state (state: see stateOf)
 *   ['v', id, url, ...]                a URL back from the final files, whole, as 'u'
 *   ['h', host, taken, retired, budget]
 *   ['b', key, BudgetState]
 *   ['l', id, urlId, crawler, expiresAt, released]  ['x', id]: the lease ended
 *   ['c', id, name, left]  ['s', origin, SiteClaim]  ['k', key, value | null]
 *   ['r', origin, RobotsRow]  ['o', CrawlSeeds]  ['n', StoreCounters]
 */
export type Change = unknown[];

/** A URL's changing fields, in the order the 'u' and 'e' records carry them. */
function stateOf(e: UrlEntry): unknown[] {
  return [
    e.state,
    e.attempts,
    e.reason,
    e.unlogged ? 1 : 0,
    e.holder,
    e.retryAt,
    e.previous ?? null,
    e.depth,
    e.via,
  ];
}

/** A new store's counters. */
export const STARTING_COUNTERS: StoreCounters = {
  nextLeaseId: 1,
  staleCompletions: 0,
  expiredLeases: 0,
  nextDueLook: 0,
};

/** A URL whole, as first seen (or in a snapshot, or in a final file); 'v' when it came back from a final file. */
export function urlChange(e: UrlEntry, kind: 'u' | 'v' = 'u'): Change {
  return [kind, e.id, e.url, e.host, e.depth, e.via, e.redirects, e.kind, ...stateOf(e)];
}

/** The URL a 'u' or 'v' change holds. */
export function entryOfChange(c: Change): UrlEntry {
  const entry = {
    id: c[1] as number,
    url: c[2] as string,
    host: c[3] as string,
    depth: c[4] as number,
    via: c[5] as string | null,
    redirects: c[6] as number,
    kind: c[7] as UrlKind,
  } as UrlEntry;
  setState(entry, c.slice(8));
  return entry;
}

/** Sets a URL's changing fields from a 'u', 'v' or 'e' change's state (stateOf). */
export function setState(entry: UrlEntry, s: unknown[]): void {
  entry.state = s[0] as UrlState;
  entry.attempts = s[1] as number;
  entry.reason = s[2] as string | null;
  entry.unlogged = s[3] === 1;
  entry.holder = s[4] as CrawlerId | null;
  entry.retryAt = s[5] as number;
  const previous = s[6] as PreviousFetch | null;
  if (previous === null) delete entry.previous;
  else entry.previous = previous;
  entry.depth = s[7] as number;
  entry.via = s[8] as string | null;
}

function hostChange(h: KeptState['hosts'][number]): Change {
  return ['h', h.host, h.taken, h.retired ? 1 : 0, h.budget];
}

/** A lease, by its URL's id: a live lease (HeldLease) holds its URL, a kept one the id. */
function leaseChange(l: Omit<KeptState['leases'][number], 'entryId'>, entryId: number): Change {
  return ['l', l.id, entryId, l.crawler, l.expiresAt, l.released ? 1 : 0];
}

function crawlerChange(id: CrawlerId, c: CrawlerEntry): Change {
  return ['c', id, c.name, c.left];
}

/**
 * Gathers what one call of the engine changed (StoreChanges) and hands it on as one
 * line of JSON: each thing once, in its last state, so a call that touched a URL three
 * times writes it once.
 */
export class ChangeLog implements StoreChanges {
  private readonly entries = new Set<UrlEntry>();
  private readonly returnedEntries = new Set<UrlEntry>();
  private readonly leases = new Map<LeaseId, HeldLease>();
  private readonly ended = new Set<LeaseId>();
  private readonly hosts = new Set<MemoryHost>();
  private readonly budgets = new Map<string, BudgetState>();
  private other: Change[] = [];
  private lastCounters = '';
  /** URLs up to this id have been written whole once; later ones are new. */
  private written: number;

  constructor(
    /** Takes one call's line; resolves once it is kept. */
    private readonly write: (line: string) => Promise<void>,
    /** What was read back: the highest URL id written whole, and the counters as they stand. */
    kept: { lastId: number; counters: StoreCounters } = { lastId: 0, counters: STARTING_COUNTERS },
  ) {
    this.written = kept.lastId;
    this.lastCounters = JSON.stringify(kept.counters);
  }

  entry(e: UrlEntry): void {
    this.entries.add(e);
  }
  returned(e: UrlEntry): void {
    this.returnedEntries.add(e);
  }
  lease(l: HeldLease): void {
    this.leases.set(l.id, l);
  }
  leaseEnded(id: LeaseId): void {
    this.leases.delete(id);
    this.ended.add(id);
  }
  host(h: MemoryHost): void {
    this.hosts.add(h);
  }
  budget(key: string, state: BudgetState): void {
    this.budgets.set(key, state);
  }
  crawler(id: CrawlerId, c: CrawlerEntry): void {
    this.other.push(crawlerChange(id, c));
  }
  site(origin: string, claim: SiteClaim): void {
    this.other.push(['s', origin, claim]);
  }
  cookie(key: string, value: string | null): void {
    this.other.push(['k', key, value]);
  }
  robots(origin: string, row: RobotsRow): void {
    this.other.push(['r', origin, row]);
  }
  seeds(seeds: CrawlSeeds): void {
    this.other.push(['o', seeds]);
  }

  commit(counters: StoreCounters): Promise<void> | null {
    const out: Change[] = [];
    // New URLs in id order first: a reader sees each one whole before any change of it.
    const before = this.written;
    const fresh = [...this.entries].filter((e) => e.id > before).sort((a, b) => a.id - b.id);
    for (const e of fresh) {
      out.push(urlChange(e));
      this.written = e.id;
    }
    for (const e of this.returnedEntries) out.push(urlChange(e, 'v'));
    for (const e of this.entries)
      if (e.id <= before && !this.returnedEntries.has(e)) out.push(['e', e.id, ...stateOf(e)]);
    for (const h of this.hosts) out.push(hostChange(h));
    for (const [key, b] of this.budgets) out.push(['b', key, b]);
    for (const l of this.leases.values()) out.push(leaseChange(l, l.entry.id));
    for (const id of this.ended) out.push(['x', id]);
    out.push(...this.other);
    const c = JSON.stringify(counters);
    if (c !== this.lastCounters) out.push(['n', counters]);
    this.clear();
    if (out.length === 0) return null;
    this.lastCounters = c;
    return this.write(JSON.stringify(out));
  }

  private clear(): void {
    this.entries.clear();
    this.returnedEntries.clear();
    this.leases.clear();
    this.ended.clear();
    this.hosts.clear();
    this.budgets.clear();
    this.other = [];
  }
}

/** The lines of a snapshot: everything the engine holds, as the changes that would make it. */
export function* snapshotChanges(s: KeptState): Generator<Change> {
  for (const e of s.entries) yield urlChange(e);
  for (const h of s.hosts) yield hostChange(h);
  for (const [key, b] of s.budgets) yield ['b', key, b];
  for (const l of s.leases) yield leaseChange(l, l.entryId);
  for (const [id, c] of s.crawlers) yield crawlerChange(id, c);
  for (const [origin, claim] of s.sites) yield ['s', origin, claim];
  for (const [key, value] of s.cookies) yield ['k', key, value];
  for (const [origin, row] of s.robots) yield ['r', origin, row];
  yield ['o', s.seeds];
  yield ['n', s.counters];
}
