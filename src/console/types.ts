import type { FrontierStats, HostOverview } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';

/** What the process is doing: crawling, holding back new leases, winding down, done. */
export type ConsoleState = 'running' | 'paused' | 'stopping' | 'finished';

/** A bunny connected to a server, as the server counts it. */
export interface BunnyView {
  crawler: number;
  name: string;
  /** Where it connects from. */
  address: string;
  /** Epoch ms of its HELLO. */
  since: number;
  /** URLs leased to it, and completions it sent, since it connected. */
  leased: number;
  completed: number;
}

/** What passed over a server's connections (src/server/traffic.ts). */
export interface TrafficView {
  packets: Record<string, number>;
  errors: Record<string, number>;
  bytesIn: number;
  bytesOut: number;
  connections: number;
}

/**
 * The numbers a crawl or a server hands the console when asked: plain data, read from
 * its own parts. The console never reaches past this.
 */
export interface SourceSnapshot {
  state: Exclude<ConsoleState, 'finished'>;
  store: FrontierStats;
  /** This process's fetches on the network (a crawl); null for a server, whose bunnies fetch. */
  fetching: number | null;
  /** Hosts by state and the busiest, when the store says them and `detail` was asked. */
  hosts: HostOverview | null;
  modules: ModuleStats[];
  /** Bytes written to WARC files this run (a crawl; a server writes none). */
  warcBytes: number | null;
  /** A server's bunnies; null for a crawl. */
  bunnies: BunnyView[] | null;
  traffic: TrafficView | null;
}

/** What adding seed URLs from the console did. */
export interface SeedsAdded {
  /** Queued now. */
  added: number;
  /** The store knew them already. */
  known: number;
  /** Refused by the crawl's rules (scope, filters), with why; recorded like any refused URL. */
  refused: { url: string; reason: string }[];
  /** Not URLs the crawl can fetch, with why. */
  invalid: { text: string; reason: string }[];
}

/** The actions the page offers to whoever has the token. */
export interface ConsoleActions {
  /** No new leases; fetches in flight finish. */
  pause(): void;
  resume(): void;
  /** Stops cleanly, as on Ctrl-C. */
  stop(): void;
  /** Through the path the crawl's own seeds take: canonicalize, filter, the store's add. */
  addSeeds(urls: readonly string[]): Promise<SeedsAdded>;
}

/** What a crawl or a server gives the console: a snapshot to read, and its actions. */
export interface ConsoleSource {
  kind: 'crawl' | 'server';
  /** `detail`: also the hosts (a read of every host row; asked only while someone watches or scrapes). */
  snapshot(detail: boolean): Promise<SourceSnapshot>;
  actions: ConsoleActions;
}
