import { MinHeap } from './heap.js';
import { readyAfterLease } from './politeness.js';
import type { PolitenessSettings } from './types.js';

/** A queued URL as the store holds it. `seq` is its insertion order and row key, unique and growing. */
export interface QueuedUrl {
  url: string;
  host: string;
  depth: number;
  seq: number;
  via: string | null;
  redirects: number;
  /** URL_KIND in the store: 0 page, 1 sitemap. */
  kind: number;
  attempts: number;
}

/** Where the scheduler reads a host's queue from, a slice at a time, in (depth, seq) order. */
export interface QueueSource {
  load(host: string, after: QueuedUrl | null, limit: number): QueuedUrl[];
}

type Place = 'none' | 'ready' | 'sleeping';

/**
 * What politeness is counted against: one host, or (with --politeness-key ip) every
 * host on one address. Fetches in flight, the next time a request may start, and the
 * run of failed connections all belong to the budget, not to a host.
 */
interface Budget {
  key: string;
  inFlight: number;
  readyAt: number;
  connectFailures: number;
  members: Set<HostState>;
  /** Members with queued URLs waiting for a slot of this budget. */
  parked: Set<HostState>;
}

interface HostState {
  key: string;
  budget: Budget;
  /** This host's own fetches in flight (they move with it if its budget changes). */
  inFlight: number;
  /** URLs of this host queued in the store (buffered or not), not leased. */
  queued: number;
  /**
   * Queued URLs with (depth, seq) <= cursor, in order. Everything past the cursor is
   * still only in the store, so a URL is never both buffered and loaded again.
   */
  buffer: QueuedUrl[];
  head: number;
  cursor: QueuedUrl | null;
  /** Lowest depth among queued URLs not yet buffered; a hint for ordering hosts. */
  unbufferedMinDepth: number;
  retired: boolean;
  place: Place;
  /** The depth a host was ranked at when it entered the ready heap. */
  rankedDepth: number;
  /** Bumped whenever the host moves, so stale heap entries are skipped (lazy deletion). */
  token: number;
}

interface ReadyEntry {
  host: HostState;
  token: number;
  depth: number;
  turn: number;
}

interface SleepEntry {
  host: HostState;
  token: number;
  at: number;
}

const BUFFER_SLICE = 64;

function before(a: QueuedUrl, b: QueuedUrl): boolean {
  return a.depth < b.depth || (a.depth === b.depth && a.seq < b.seq);
}

/**
 * Picks which URL to fetch next: breadth-first by depth across all hosts whose turn
 * has come, round-robin among hosts at the same depth, never more than `perHost` in
 * flight per budget and never sooner than its ready time. It holds only a small slice
 * of each host's queue in memory; the store holds the rest.
 */
export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  private readonly budgets = new Map<string, Budget>();
  private readonly ready = new MinHeap<ReadyEntry>(
    (a, b) => a.depth < b.depth || (a.depth === b.depth && a.turn < b.turn),
  );
  private readonly sleeping = new MinHeap<SleepEntry>((a, b) => a.at < b.at);
  private turn = 0;

  constructor(
    private readonly settings: PolitenessSettings,
    private readonly source: QueueSource,
  ) {}

  /** Tells the scheduler a host has `count` queued URLs in the store, the lowest at `minDepth`. */
  restore(host: string, count: number, minDepth: number, now: number): void {
    const h = this.host(host);
    h.queued += count;
    h.unbufferedMinDepth = Math.min(h.unbufferedMinDepth, minDepth);
    this.place(h, now);
  }

  /** A URL was queued in the store (new, or back from an expired lease or a retry). */
  queued(url: QueuedUrl, now: number): void {
    const h = this.host(url.host);
    if (h.retired) return;
    h.queued++;
    if (h.cursor !== null && !before(h.cursor, url)) {
      this.insertBuffered(h, url);
    } else {
      h.unbufferedMinDepth = Math.min(h.unbufferedMinDepth, url.depth);
    }
    this.place(h, now);
  }

  /** Leases up to n URLs. */
  take(n: number, now: number): QueuedUrl[] {
    this.wake(now);
    const out: QueuedUrl[] = [];
    while (out.length < n) {
      const entry = this.ready.pop();
      if (entry === undefined) break;
      const h = entry.host;
      if (entry.token !== h.token) continue;
      h.place = 'none';
      const b = h.budget;
      if (b.inFlight >= this.settings.perHost || b.readyAt > now) {
        // Another host of the same budget took its turn since this one was ranked.
        this.place(h, now);
        continue;
      }
      const next = this.headOf(h);
      if (next === null) continue;
      if (next.depth !== entry.depth) {
        // A shallower URL arrived (or the hint was off) since the host was ranked.
        this.place(h, now);
        continue;
      }
      h.head++;
      h.queued--;
      h.inFlight++;
      b.inFlight++;
      b.readyAt = readyAfterLease(now, this.settings);
      out.push(next);
      this.place(h, now);
    }
    return out;
  }

  /** A leased URL's fetch is over; its budget may be used again after `gapMs`. */
  finished(host: string, gapMs: number, now: number): void {
    const h = this.hosts.get(host);
    if (h === undefined) return;
    const b = h.budget;
    h.inFlight = Math.max(0, h.inFlight - 1);
    b.inFlight = Math.max(0, b.inFlight - 1);
    b.readyAt = Math.max(b.readyAt, now + gapMs);
    this.unpark(b, now);
    this.place(h, now);
  }

  /** Keeps a host's budget away until `at` (Retry-After, back-off). */
  holdUntil(host: string, at: number, now: number): void {
    const h = this.host(host);
    h.budget.readyAt = Math.max(h.budget.readyAt, at);
    this.place(h, now);
  }

  /** Counts a failed connection; returns how many in a row the budget has now. */
  connectFailed(host: string): number {
    const b = this.host(host).budget;
    b.connectFailures++;
    return b.connectFailures;
  }

  /** Failed connections in a row of the host's budget. */
  connectFailures(host: string): number {
    return this.hosts.get(host)?.budget.connectFailures ?? 0;
  }

  connected(host: string): void {
    const h = this.hosts.get(host);
    if (h !== undefined) h.budget.connectFailures = 0;
  }

  /**
   * Gives up on a host and every host sharing its budget: nothing of theirs is leased
   * again this run. Returns the hosts retired (the store fails their queued URLs).
   */
  retire(host: string): string[] {
    const h = this.hosts.get(host);
    if (h === undefined) return [];
    const retired: string[] = [];
    for (const m of h.budget.members) {
      if (m.retired) continue;
      m.retired = true;
      m.queued = 0;
      m.buffer = [];
      m.head = 0;
      m.token++;
      m.place = 'none';
      retired.push(m.key);
    }
    return retired;
  }

  isRetired(host: string): boolean {
    return this.hosts.get(host)?.retired === true;
  }

  /**
   * --politeness-key ip: the host was found at `address`, so from now on it shares one
   * budget with every other host there. Its fetches in flight move along with it.
   */
  setAddress(host: string, address: string, now: number): void {
    const h = this.host(host);
    const key = `ip:${address}`;
    if (h.budget.key === key) return;
    const from = h.budget;
    const to = this.budget(key);
    from.members.delete(h);
    from.parked.delete(h);
    from.inFlight = Math.max(0, from.inFlight - h.inFlight);
    to.members.add(h);
    to.inFlight += h.inFlight;
    to.readyAt = Math.max(to.readyAt, from.readyAt);
    h.budget = to;
    if (from.members.size === 0) this.budgets.delete(from.key);
    else this.unpark(from, now);
    h.token++;
    h.place = 'none';
    this.place(h, now);
  }

  /** When the next sleeping host wakes, or null if none sleeps. */
  nextWake(): number | null {
    for (;;) {
      const top = this.sleeping.peek();
      if (top === undefined) return null;
      if (top.token === top.host.token) return top.at;
      this.sleeping.pop();
    }
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  private host(key: string): HostState {
    let h = this.hosts.get(key);
    if (h === undefined) {
      const budget = this.budget(key);
      h = {
        key,
        budget,
        inFlight: 0,
        queued: 0,
        buffer: [],
        head: 0,
        cursor: null,
        unbufferedMinDepth: Number.POSITIVE_INFINITY,
        retired: false,
        place: 'none',
        rankedDepth: 0,
        token: 0,
      };
      budget.members.add(h);
      this.hosts.set(key, h);
    }
    return h;
  }

  private budget(key: string): Budget {
    let b = this.budgets.get(key);
    if (b === undefined) {
      b = { key, inFlight: 0, readyAt: 0, connectFailures: 0, members: new Set(), parked: new Set() };
      this.budgets.set(key, b);
    }
    return b;
  }

  private headOf(h: HostState): QueuedUrl | null {
    if (h.head >= h.buffer.length) {
      if (h.queued <= 0) return null;
      const slice = this.source.load(h.key, h.cursor, BUFFER_SLICE);
      h.buffer = slice;
      h.head = 0;
      const last = slice[slice.length - 1];
      if (last === undefined) {
        // The store has nothing past the cursor: the count was stale. Trust the store.
        h.queued = 0;
        return null;
      }
      h.cursor = last;
      h.unbufferedMinDepth = Number.POSITIVE_INFINITY;
    }
    return h.buffer[h.head] ?? null;
  }

  private headDepth(h: HostState): number {
    const b = h.buffer[h.head];
    return b === undefined ? h.unbufferedMinDepth : Math.min(b.depth, h.unbufferedMinDepth);
  }

  private insertBuffered(h: HostState, url: QueuedUrl): void {
    if (h.head > 0) {
      h.buffer = h.buffer.slice(h.head);
      h.head = 0;
    }
    let i = h.buffer.length;
    while (i > 0 && before(url, h.buffer[i - 1] as QueuedUrl)) i--;
    h.buffer.splice(i, 0, url);
  }

  private unpark(b: Budget, now: number): void {
    if (b.parked.size === 0 || b.inFlight >= this.settings.perHost) return;
    const waiting = [...b.parked];
    b.parked.clear();
    for (const m of waiting) this.place(m, now);
  }

  private place(h: HostState, now: number): void {
    const b = h.budget;
    if (h.retired || h.queued <= 0 || b.inFlight >= this.settings.perHost) {
      if (h.place !== 'none') {
        h.token++;
        h.place = 'none';
      }
      if (!h.retired && h.queued > 0) b.parked.add(h);
      return;
    }
    if (b.readyAt > now) {
      if (h.place === 'sleeping') return;
      h.token++;
      h.place = 'sleeping';
      this.sleeping.push({ host: h, token: h.token, at: b.readyAt });
      return;
    }
    const depth = this.headDepth(h);
    const rank = Number.isFinite(depth) ? depth : 0;
    // Already ranked no deeper than its head: keep its place in line.
    if (h.place === 'ready' && h.rankedDepth <= rank) return;
    h.token++;
    h.place = 'ready';
    h.rankedDepth = rank;
    this.ready.push({ host: h, token: h.token, depth: rank, turn: this.turn++ });
  }

  private wake(now: number): void {
    for (;;) {
      const top = this.sleeping.peek();
      if (top === undefined || top.at > now) return;
      this.sleeping.pop();
      if (top.token !== top.host.token) continue;
      top.host.place = 'none';
      this.place(top.host, now);
    }
  }
}
