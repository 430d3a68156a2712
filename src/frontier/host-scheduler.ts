import { MinHeap } from './heap.js';
import { gapAfterFetch, readyAfterLease } from './politeness.js';
import type { PolitenessSettings } from './types.js';

/** A queued URL as the store holds it. `seq` is its insertion order and row key, unique and growing. */
export interface QueuedUrl {
  url: string;
  host: string;
  depth: number;
  seq: number;
  via: string | null;
  redirects: number;
  attempts: number;
}

/** Where the scheduler reads a host's queue from, a slice at a time, in (depth, seq) order. */
export interface QueueSource {
  load(host: string, after: QueuedUrl | null, limit: number): QueuedUrl[];
}

type Place = 'none' | 'ready' | 'sleeping';

interface HostState {
  key: string;
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
  inFlight: number;
  readyAt: number;
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
 * flight to one host and never sooner than its ready time. It holds only a small slice
 * of each host's queue in memory; the store holds the rest.
 */
export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
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
      const next = this.headOf(h);
      if (next === null) continue;
      if (next.depth !== entry.depth) {
        // A shallower URL arrived (or the hint was off) since the host was queued: re-rank it.
        this.place(h, now);
        continue;
      }
      h.head++;
      h.queued--;
      h.inFlight++;
      h.readyAt = readyAfterLease(now, this.settings);
      out.push(next);
      this.place(h, now);
    }
    return out;
  }

  /** A leased URL is finished; the host may be asked again after the gap it earned. */
  finished(host: string, fetchMs: number, hostDelayMs: number | undefined, now: number): void {
    const h = this.hosts.get(host);
    if (h === undefined) return;
    h.inFlight = Math.max(0, h.inFlight - 1);
    h.readyAt = Math.max(h.readyAt, now + gapAfterFetch(this.settings, fetchMs, hostDelayMs));
    this.place(h, now);
  }

  /** Keeps a host away until `at` (Retry-After, back-off). */
  holdUntil(host: string, at: number, now: number): void {
    const h = this.host(host);
    h.readyAt = Math.max(h.readyAt, at);
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

  hasReady(now: number): boolean {
    this.wake(now);
    for (;;) {
      const top = this.ready.peek();
      if (top === undefined) return false;
      if (top.token === top.host.token) return true;
      this.ready.pop();
    }
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  private host(key: string): HostState {
    let h = this.hosts.get(key);
    if (h === undefined) {
      h = {
        key,
        queued: 0,
        buffer: [],
        head: 0,
        cursor: null,
        unbufferedMinDepth: Number.POSITIVE_INFINITY,
        inFlight: 0,
        readyAt: 0,
        place: 'none',
        rankedDepth: 0,
        token: 0,
      };
      this.hosts.set(key, h);
    }
    return h;
  }

  private headOf(h: HostState): QueuedUrl | null {
    if (h.head >= h.buffer.length) {
      if (h.queued <= 0) return null;
      const slice = this.source.load(h.key, h.cursor, BUFFER_SLICE);
      h.buffer = slice;
      h.head = 0;
      const last = slice[slice.length - 1];
      if (last === undefined) {
        // The store has nothing past the cursor: the count was stale (cannot happen unless
        // the store changed under us). Trust the store.
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

  private place(h: HostState, now: number): void {
    const depth = this.headDepth(h);
    if (h.queued <= 0 || h.inFlight >= this.settings.perHost) {
      if (h.place !== 'none') {
        h.token++;
        h.place = 'none';
      }
      return;
    }
    if (h.readyAt > now) {
      if (h.place === 'sleeping') return;
      h.token++;
      h.place = 'sleeping';
      this.sleeping.push({ host: h, token: h.token, at: h.readyAt });
      return;
    }
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
