import type { CrawlerId } from '../types.js';

/**
 * A lease's generation (20 bits, what a lease id carries besides the row): the holder's
 * incarnation in the top 6, a counter in the other 14. A row leased again 16,384 leases
 * after an earlier lease of it that expired shares its generation: a completion that
 * late of the expired one would then be taken for the new one's, as with any counter.
 */
const INCARNATION_BITS = 6;
const INCARNATIONS = 2 ** INCARNATION_BITS;
const COUNTER_SPAN = 2 ** (20 - INCARNATION_BITS);

/** A lease a store held by one process keeps in memory: its URL's row stays queued in the file. */
export interface HeldLease {
  seq: number;
  /** Told apart from the URL's other leases by this (the lease id is seq and gen). */
  gen: number;
  host: string;
  /** Where it goes back in its host's queue (policy/queue-rank.ts). */
  rank: number;
  crawler: CrawlerId;
  expiresAt: number;
  /** The fetch is over and its host's slot given back (release()). */
  released: boolean;
}

/**
 * The leases of a store that one process holds (a held seen set: the crawl command, the
 * server). Nobody else reads the file, so a lease need not be written to it: the row
 * stays queued and only its final state is written, one row write a URL instead of
 * three (leased, released, done). A crash loses nothing: the rows are still queued, and
 * the process that opens the store next leases them again.
 */
export class HeldLeases {
  private readonly bySeq = new Map<number, HeldLease>();
  private readonly perHost = new Map<string, number>();
  private count = 0;

  /**
   * `incarnation` counts the opens of the store by a holder: a lease's generation carries
   * it (its top INCARNATION_BITS), so a lease id handed out before the holder last
   * started is known for one (see fromEarlierHolder).
   */
  constructor(private readonly incarnation: number) {}

  get size(): number {
    return this.bySeq.size;
  }

  /** Leases a queued row; its lease's generation. */
  add(lease: Omit<HeldLease, 'gen' | 'released'>): number {
    this.count = (this.count + 1) % COUNTER_SPAN;
    const gen = (this.incarnation % INCARNATIONS) * COUNTER_SPAN + this.count;
    this.hold({ ...lease, gen, released: false });
    return gen;
  }

  /**
   * Whether a generation was handed out by an earlier holder of the store, which died
   * with its leases (a holder that closes has none left).
   */
  fromEarlierHolder(gen: number): boolean {
    return Math.floor(gen / COUNTER_SPAN) !== this.incarnation % INCARNATIONS;
  }

  /** Holds a lease: one of add's, or one an earlier holder handed out (its generation kept). */
  hold(lease: HeldLease): void {
    this.bySeq.set(lease.seq, lease);
    this.perHost.set(lease.host, (this.perHost.get(lease.host) ?? 0) + 1);
  }

  /** The lease of row `seq` with generation `gen`, if it still holds. */
  get(seq: number, gen: number): HeldLease | undefined {
    const lease = this.bySeq.get(seq);
    return lease !== undefined && lease.gen === gen ? lease : undefined;
  }

  has(seq: number): boolean {
    return this.bySeq.has(seq);
  }

  /** How many of a host's queued rows are leased. */
  countOn(host: string): number {
    return this.perHost.get(host) ?? 0;
  }

  /** The lease is over (completed, expired, given back): its row is the store's again. */
  take(lease: HeldLease): void {
    if (this.bySeq.get(lease.seq) !== lease) return;
    this.bySeq.delete(lease.seq);
    const n = (this.perHost.get(lease.host) ?? 1) - 1;
    if (n > 0) this.perHost.set(lease.host, n);
    else this.perHost.delete(lease.host);
  }

  /** Leases that ran out by `through` (lease-expiry.ts says how late that is). */
  expired(through: number): HeldLease[] {
    const out: HeldLease[] = [];
    for (const lease of this.bySeq.values()) if (lease.expiresAt <= through) out.push(lease);
    return out;
  }

  /** A host's fetches still in flight: its leases not released. */
  inFlightOn(host: string): number {
    let n = 0;
    for (const lease of this.bySeq.values()) if (lease.host === host && !lease.released) n++;
    return n;
  }

  ofCrawler(crawler: CrawlerId): HeldLease[] {
    return [...this.bySeq.values()].filter((lease) => lease.crawler === crawler);
  }

  /** When the first lease runs out, or null with none held. */
  nextExpiry(): number | null {
    let first: number | null = null;
    for (const lease of this.bySeq.values())
      if (first === null || lease.expiresAt < first) first = lease.expiresAt;
    return first;
  }
}
