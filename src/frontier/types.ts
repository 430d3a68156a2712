/**
 * The Frontier contract (docs/architecture.md, DESIGN.md). Every store keeps it:
 * sqlite (embedded, this issue), postgres and remote (later issues). The crawl loop
 * is written against this interface only; a frontier knows nothing of HTTP or HTML.
 */

/** A page to parse for links, or a sitemap to read for URLs. */
export type UrlKind = 'page' | 'sitemap';

/** A URL the crawl wants fetched: canonical, filtered, not yet known to be seen. */
export interface NewLink {
  url: string;
  depth: number;
  /** The page it was found on; null for seeds and module-enqueued URLs. */
  via: string | null;
  /** Consecutive redirect hops that led here (0 for an ordinary link). */
  redirects?: number;
  /** Default 'page'. */
  kind?: UrlKind;
}

/** A URL the crawl decided not to fetch. It is remembered as seen, so it is recorded once. */
export interface RejectedLink {
  url: string;
  depth: number;
  via: string | null;
  /** Short machine-readable reason: 'scope', 'exclude', 'include', 'extension', 'depth', 'too-long', ... */
  reason: string;
}

/** One URL handed to a bunny. It must be completed, or its lease expires and it is queued again. */
export interface Lease {
  url: string;
  host: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: UrlKind;
  /** 1 for the first try; higher after a retry or an expired lease. */
  attempt: number;
}

export type Outcome =
  /** Fetched (any HTTP status). */
  | { kind: 'done' }
  /** Given up on, with a short reason ('timeout', 'dns', 'robots', ...). */
  | { kind: 'failed'; error: string }
  /** Try again later: the URL goes back to the queue, not before `afterMs` from now. */
  | { kind: 'retry'; error: string; afterMs: number };

export interface Completion {
  url: string;
  host: string;
  outcome: Outcome;
  /** What the fetch taught about the host, if release() was not called with it. */
  report: FetchReport;
  /** Links found on the page, canonical and filtered; the frontier deduplicates them. */
  outlinks: readonly NewLink[];
  /** Links found and refused; recorded once each. */
  rejected: readonly RejectedLink[];
}

export interface AddResult {
  /** How many of the links were new (not seen before). */
  added: number;
  /**
   * URLs the caller must record (pages.jsonl): new rejected links, and queued URLs of a
   * host given up on (reason 'host-unreachable').
   */
  newRejected: RejectedLink[];
}

/** A site (scheme://host:port) the crawl has reached, and what modules said of it. */
export interface SiteFacts {
  origin: string;
  address: string | null;
  /** Epoch ms of its first response. */
  firstSeen: number;
  /** Per module name: what its onSite hook returned. */
  info: Record<string, unknown>;
}

export interface FrontierStats {
  queued: number;
  inFlight: number;
  done: number;
  failed: number;
  rejected: number;
  hosts: number;
}

export interface Frontier {
  /**
   * Adds links (and records rejections) durably: once the promise resolves, a crash loses none.
   * The newly rejected links in the result must be recorded by the caller before its next
   * call to add() or complete(); the frontier re-offers any that were never acknowledged
   * that way through `unloggedRejections()` after a crash.
   */
  add(links: readonly NewLink[], rejected?: readonly RejectedLink[]): Promise<AddResult>;
  /** Up to n URLs whose hosts are ready, breadth-first by depth, never over the per-host limit. */
  lease(n: number, bunny: string): Promise<Lease[]>;
  /**
   * The fetch of a leased URL is over: its host may be asked again (after the gap it
   * earned) while the page's outputs are still being written. The URL stays leased
   * until complete(). A store may ignore this; complete() frees a host not yet released.
   */
  release(lease: Lease, report: FetchReport): void;
  /** Completes a batch in one durable step: statuses, freed hosts, and the pages' outlinks. */
  complete(batch: readonly Completion[]): Promise<AddResult>;
  /** Rejections stored but never recorded because the process died first. */
  unloggedRejections(): Promise<RejectedLink[]>;
  /** Whether the site was recorded before (by this run or an earlier one). */
  knownSite(origin: string): Promise<boolean>;
  /** Records a site durably, once; a second call for the same origin changes nothing. */
  recordSite(site: SiteFacts): Promise<void>;
  /** Every site recorded, for `show` and `log`. */
  sites(): Promise<SiteFacts[]>;
  /** Epoch ms at which a host with queued URLs becomes ready, or null if none is waiting. */
  nextReadyAt(): number | null;
  stats(): Promise<FrontierStats>;
  close(): Promise<void>;
}

/** How far apart requests to one host must be, and when to give up on a host. */
export interface PolitenessSettings {
  /** Fetches in flight to one host (or address) at once. */
  perHost: number;
  /** Least gap in ms between two requests to one host. */
  delayMs: number;
  /** The gap is at least this many times the last fetch's duration. */
  delayFactor: number;
  /** The gap (Crawl-delay included) is at most this. */
  maxDelayMs: number;
  /** First wait after a failed connection; doubles with each failure in a row. */
  backoffMs: number;
  maxBackoffMs: number;
  /** After this many failed connections in a row, the host's queued URLs are failed. */
  retireAfter: number;
  /** 'ip': hosts on one address share one budget. */
  key: 'host' | 'ip';
  /** URLs of one host the crawl will take at most; more are refused ('host-budget'). */
  maxPagesPerHost: number;
  /** How long a lease lasts before the URL goes back to the queue. */
  leaseMs: number;
}

/** What a bunny learned from a fetch that matters to politeness. */
export interface FetchReport {
  fetchMs: number;
  /** Crawl-delay of the host's robots.txt, if any. */
  crawlDelayMs?: number;
  /** The host asked us to stay away this long (Retry-After on a 429 or 503). */
  retryAfterMs?: number;
  /** The connection could not be opened (dns, refused, connect timeout). */
  connectFailed?: boolean;
  /** The address the fetch connected to, for --politeness-key ip. */
  address?: string | null;
}
