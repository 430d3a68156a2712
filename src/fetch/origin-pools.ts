import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { Pool } from './undici-parts.js';

/** Connections kept open at once across all origins, unless the fetcher says otherwise. */
export const DEFAULT_MAX_OPEN_CONNECTIONS = 256;

export interface OriginPoolsOptions {
  /** Each origin's pool's options (connections per origin, timeouts, connect). */
  pool: UndiciPool.Options;
  /**
   * Past this many open connections, the idle ones of the origins used longest ago are
   * closed. Connections in use are never cut: with more requests in flight than this,
   * as many are open.
   */
  maxOpenConnections: number;
}

// Closing an idle pool cannot fail in a way anyone could act on.
const ignore = () => {};

interface Entry {
  pool: InstanceType<typeof Pool>;
  /** Taken out of the map and closing: its connections are on their way out. */
  evicted: boolean;
}

/**
 * undici's Agent keeps one pool per origin, and each pool keeps its idle connections as
 * long as the server's Keep-Alive allows (up to ten minutes): a crawl visiting thousands
 * of hosts holds a socket, a file descriptor, for every host it saw in that time, and
 * dies of EMFILE. This dispatcher does what the Agent does (a keep-alive pool per
 * origin, dropped when it has no connection left) and bounds the open connections
 * across all origins: past the bound, the least recently used idle pools are closed.
 * So sockets are bounded by the requests in flight (the crawl's concurrency) plus the
 * bound, not by the number of hosts seen.
 */
export class OriginPools {
  readonly #options: OriginPoolsOptions;
  /** In order of last use: the first entries are the ones used longest ago. */
  readonly #pools = new Map<string, Entry>();
  /** Connections open across all pools, the evicted ones' included until they close. */
  #open = 0;
  /** Of those, the ones in evicted pools: already closing. */
  #closing = 0;
  #closed = false;

  constructor(options: OriginPoolsOptions) {
    this.#options = options;
  }

  /** Connections open now (for tests and figures). */
  get openConnections(): number {
    return this.#open;
  }

  /** Origins with a pool now. */
  get origins(): number {
    return this.#pools.size;
  }

  /** As a Dispatcher's dispatch(): `opts.origin` picks the pool. */
  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    // As a closed undici dispatcher throws: the fetcher reports it as a failed request.
    if (this.#closed) throw new Error('the fetcher is closed');
    const origin = String(opts.origin);
    let entry = this.#pools.get(origin);
    if (entry === undefined) entry = this.#create(origin);
    else this.#pools.delete(origin);
    // Re-inserted: the map's order is the order of use.
    this.#pools.set(origin, entry);
    return entry.pool.dispatch(opts, handler);
  }

  /** Waits for the requests in flight, then closes every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing = [...this.#pools.values()].map((entry) => entry.pool.close());
    this.#pools.clear();
    await Promise.all(closing);
  }

  #create(origin: string): Entry {
    const pool = new Pool(origin, this.#options.pool);
    const entry: Entry = { pool, evicted: false };
    pool.on('connect', () => {
      this.#open++;
      this.#trim();
    });
    pool.on('disconnect', () => {
      this.#open--;
      if (entry.evicted) this.#closing--;
      else this.#forgetIfUnused(origin, entry);
    });
    pool.on('connectionError', () => {
      if (!entry.evicted) this.#forgetIfUnused(origin, entry);
    });
    return entry;
  }

  /** A pool with no connection and nothing to send is dropped, as undici's Agent drops it. */
  #forgetIfUnused(origin: string, entry: Entry): void {
    const stats = entry.pool.stats;
    if (stats.connected > 0 || stats.size > 0 || this.#pools.get(origin) !== entry) return;
    this.#pools.delete(origin);
    entry.pool.close().catch(ignore);
  }

  /** Closes idle pools, least recently used first, until the open connections are within the bound. */
  #trim(): void {
    let excess = this.#open - this.#closing - this.#options.maxOpenConnections;
    if (excess <= 0) return;
    for (const [origin, entry] of this.#pools) {
      const stats = entry.pool.stats;
      // Busy (or still connecting): in use, never cut.
      if (stats.size > 0 || stats.connected === 0) continue;
      // Out of the map first: a request for this origin from now on gets a new pool.
      this.#pools.delete(origin);
      entry.evicted = true;
      this.#closing += stats.connected;
      entry.pool.close().catch(ignore);
      excess -= stats.connected;
      if (excess <= 0) return;
    }
  }
}
