/**
 * The Frontier contract. Every store keeps it: sqlite (embedded), postgres, and remote
 * (a cobweb server). It is written for many callers in many processes on many machines:
 * every call is async and batched, nothing assumes the store shares the caller's
 * memory, and every answer that changes state is keyed by an id the store handed out.
 * The crawl loop (src/bunny) makes the crawling calls (lease, release, extend,
 * complete, the records and sites of its pages); the process around it registers the
 * crawler, adds the seeds and leaves. A frontier knows nothing of HTTP or HTML.
 * docs/architecture.md draws the URL state machine these calls drive.
 */

import type { RobotsAnswer, RobotsEntry, RobotsTimes, StoredRobots } from '../fetch/robots/robots-entry.js';
import type { SeenFigures } from '../seen/describe.js';
import type { HostRules } from './policy/host-rules.js';

/**
 * A page to parse for links, a sitemap to read for URLs, or a requisite (--requisites):
 * a file a page needs to be shown, fetched and archived, never parsed for links (a
 * stylesheet's url()s and @imports excepted, which are requisites too).
 */
export type UrlKind = 'page' | 'sitemap' | 'requisite';

/** Who leased a URL: a number from the store's own sequence (registerCrawler). */
export type CrawlerId = number;
/** One hand-out of one URL. A URL leased again (after expiry or a retry) gets a new id. */
export type LeaseId = number;
/** A line the caller must write (pages.jsonl), then acknowledge. */
export type RecordId = number;

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

/** A refused URL (or one given up on without a fetch) that the caller must record. */
export interface PendingRecord extends RejectedLink {
  id: RecordId;
}

/** One URL handed to one crawler. Complete it before `expiresAt`, or extend it. */
export interface Lease {
  id: LeaseId;
  url: string;
  host: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: UrlKind;
  /** 1 for the first try; higher after a retry or an expired lease. */
  attempt: number;
  /** Epoch ms after which the store may hand the URL to someone else. */
  expiresAt: number;
  /**
   * Epoch ms (the store's clock) by which the request must start, or the lease goes back
   * deferred (no request made): the host's next lease is handed out no sooner than one
   * gap after this moment, so a request that started later could crowd it. Absent when
   * the host has no gap, and when it takes one fetch at a time (--per-host 1, the
   * default): its next lease waits for this one's release, and the gap runs from the
   * end of this request, however late it started. Crawlers on other machines need their clocks in sync (NTP).
   */
  startBy?: number;
  /**
   * With --politeness-key ip: the store does not know the host's address yet. The
   * crawler makes no request for this lease: it resolves the host as its fetcher would
   * and completes the lease 'deferred' with the address in the report (noRequest). The
   * host then counts against that address's budget, its first request included. If the
   * host does not resolve, the lease is fetched as usual (and fails at the DNS lookup).
   */
  needsAddress?: true;
  /**
   * The URL was fetched before and is due again (--recrawl-after): when, and the
   * validators its response came with, for a conditional request.
   */
  previous?: PreviousFetch;
}

/** What a store keeps of a URL's last response, to ask for it again conditionally. */
export interface PreviousFetch extends Validators {
  /** Epoch ms of the completion that stored it (the store's clock): what --recrawl-after counts from. */
  fetchedAt: number;
}

/** A response's validators (ETag, Last-Modified), kept with the URL that is done. */
export interface Validators {
  etag?: string;
  lastModified?: string;
  /**
   * Epoch ms of the capture whose payload these validators stand for (its WARC-Date): a
   * 304 keeps the one it confirmed, so its revisit record refers to a record with a payload.
   */
  capturedAt?: number;
}

/** A lease extend() kept alive, and when it runs out now (the store's clock). */
export interface ExtendedLease {
  id: LeaseId;
  expiresAt: number;
}

/** Why the crawl is over for every crawler; null while it is not. */
export type CrawlEnd = 'finished' | 'max-pages';

export interface LeaseOptions {
  /**
   * If nothing is ready, wait up to this long for a host to become ready (a long poll),
   * so a remote caller does not spin. Default 0: answer at once.
   */
  waitMs?: number;
}

export interface LeaseBatch {
  leases: Lease[];
  /**
   * 'finished': nothing queued, nothing leased, no retry waiting. 'max-pages': the
   * crawl's page budget is spent and nothing is leased. Once set, it stays set until
   * someone adds URLs (or the budget is raised).
   */
  ended: CrawlEnd | null;
  /** Epoch ms of the next moment something may become leasable, if the store knows it. */
  nextReadyAt: number | null;
}

export type Outcome =
  /** Fetched (any HTTP status), with the response's validators for a later conditional GET. */
  | { kind: 'done'; validators?: Validators }
  /** Given up on, with a short reason ('timeout', 'dns', ...). Counts against --max-pages. */
  | { kind: 'failed'; error: string }
  /** Not fetched on purpose (robots.txt said no). Recorded; does not count against --max-pages. */
  | { kind: 'refused'; reason: string }
  /** Try again later: the URL goes back to the queue, not before `afterMs` from now. */
  | { kind: 'retry'; error: string; afterMs: number }
  /**
   * Not fetched, no try spent: back to the queue at once (its host's gap still applies).
   * The slot was used for another request to the host first (its robots.txt).
   */
  | { kind: 'deferred' };

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
  /** No request was made (robots.txt answered from the cache): the slot is free, no gap is earned. */
  noRequest?: boolean;
}

/** The fetch of a leased URL is over; the host may be asked again after the gap it earned. */
export interface Release {
  leaseId: LeaseId;
  report: FetchReport;
}

export interface Completion {
  leaseId: LeaseId;
  outcome: Outcome;
  /** For a lease not released before: what the fetch taught about the host. */
  report?: FetchReport;
  /** Links found on the page, canonical and filtered; the store deduplicates them. */
  outlinks: readonly NewLink[];
  /** Links found and refused; recorded once each. */
  rejected: readonly RejectedLink[];
  /** The page has a form (the `forms` module's mark; kept in the store). */
  hasForm?: boolean;
  /**
   * The URL's pages.jsonl line and what modules emitted for it. A store that keeps the
   * crawl's outputs (a cobweb server) writes them before it completes the lease; a store
   * in the caller's process leaves them to the caller, who wrote them already.
   */
  record?: Record<string, unknown> | null;
  moduleRecords?: readonly { module: string; record: Record<string, unknown> }[];
}

export interface AddResult {
  /** How many of the links were new (not seen before) and queued. */
  added: number;
  /**
   * Lines the caller must write to pages.jsonl, then acknowledge(): new rejected links,
   * and queued URLs of a host given up on (reason 'host-unreachable').
   */
  records: PendingRecord[];
}

export interface CompleteResult extends AddResult {
  /** Leases of the batch that had expired and gone to someone else: refused, nothing changed. */
  stale: LeaseId[];
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
  /** Leased to some crawler and not completed. */
  leased: number;
  /** Waiting for their retry time. */
  retrying: number;
  done: number;
  failed: number;
  rejected: number;
  hosts: number;
  /** Completions refused because their lease had expired and gone to someone else. */
  staleCompletions: number;
  /** Leases that ran out and put their URL back in the queue. */
  expiredLeases: number;
  /** Pages the crawl may still start (--max-pages less final outcomes and leases); null: no limit. */
  budgetLeft: number | null;
  /** The store's seen set, when it says (a server's store passes it on in STATSREPLY). */
  seen?: SeenStats;
}

/** A seen set's figures (src/seen/describe.ts): its kind, its size, and a bloom filter's capacity, m, k and rates. */
export type SeenStats = SeenFigures;

/**
 * Stored URLs a resumed crawl may want back in the queue, because its rules changed or
 * because they are its seeds again. The kinds asked for add up; `among` narrows them.
 */
export interface StoredQuery {
  /** URLs refused for one of these reasons ('depth', 'scope', 'robots', ...). */
  refusedFor?: readonly string[];
  /** URLs refused, whatever the reason. */
  refused?: boolean;
  /** URLs whose fetch failed (--retry-failed). */
  failed?: boolean;
  /** URLs fetched: a response came. */
  done?: boolean;
  /** Only these URLs (the seeds of a resumed crawl). */
  among?: readonly string[];
}

/** A stored URL found by findStored(), with its outcome; `reason` is why it was refused, or its error. */
export interface StoredLink {
  id: RecordId;
  url: string;
  depth: number;
  via: string | null;
  state: 'done' | 'failed' | 'refused';
  reason: string | null;
}

/**
 * The calls a crawling process makes. docs/frontier.md has each one's contract in full
 * (who calls it, how often, what a throw means, what a resolved promise guarantees, how
 * the store pushes back) and where the stores differ. Rules for every call:
 *
 * - A call may reject. The crawl loop takes any rejection as fatal: it leases no more,
 *   and the crawl ends with the error (what was not completed is leased again later).
 *   So a store rejects only when it cannot keep the contract (its file or database is
 *   gone, it was closed, its seen set failed); it waits out what waiting cures
 *   (PostgreSQL restarting, a server being restarted) inside the call.
 * - A call that rejects changed nothing (SQLite, PostgreSQL: its transaction rolled
 *   back), except over the network, where a reply can be lost after the server acted:
 *   the remote store sends it again, and lease ids make that safe.
 * - A call that changes the crawl is durable when its promise resolves, unless its doc
 *   says otherwise (release). The reference store (src/frontier/memory) keeps nothing.
 * - After close(), calls reject.
 */
export interface Frontier extends FrontierCookies, FrontierHostDecisions {
  /**
   * Set by a store whose owner keeps the crawl's outputs itself (a cobweb server): it
   * writes the pages.jsonl lines and module records completions carry and the records of
   * refused URLs (add and complete hand none back), and it runs site hooks when a site
   * is claimed, recording the site at once.
   */
  readonly keepsOutputs?: boolean;
  /**
   * How long a crawl loop gathers finished pages into one complete() call and free
   * slots into one lease() call, when a store wants longer than the loop's own (5 ms and
   * 2 ms): each call to a server is a packet each way and a transaction there.
   */
  readonly gatherMs?: { complete: number; lease: number };
  /**
   * A crawler id from the store's own sequence; every pages.jsonl line carries it.
   * Called once per crawler, when a crawling process starts (Crawler.start). Ids are
   * never given twice and grow. The stores that share a file or a database also give
   * back now the leases and site claims of crawlers that are gone (left, dead on this
   * machine, or not heard from for a lease time). Over a server the id is the
   * connection's, given at HELLO.
   */
  registerCrawler(name: string): Promise<CrawlerId>;
  /**
   * Adds links (and records rejections) durably: once the promise resolves, a crash
   * loses none. The store asks its seen set which links are new and queues those; a URL
   * already seen, queued or not, changes nothing. Called for seeds, URLs typed into the
   * console, a server's ENQUEUE and site hooks, and the links of a page whose completion
   * was refused as stale; a page's own links come with complete(). Resolves late when
   * the seen set answers late (drum: after its merge), which slows the caller.
   * Links refused by the store's own rules (a retired host, --max-pages-per-host) and
   * new rejections come back as `records` for the caller to write and acknowledge()
   * (none with `keepsOutputs`).
   */
  add(links: readonly NewLink[], rejected: readonly RejectedLink[], crawler: CrawlerId): Promise<AddResult>;
  /**
   * Up to n URLs whose hosts are ready, breadth-first by depth, never more in flight
   * per host than allowed, and never past the crawl's page budget, whichever crawler
   * asks. Leases to one host (or address) are handed out at least its gap plus its
   * start window apart, so two requests that start by their leases' `startBy` start at
   * least the gap apart.
   *
   * Called by the crawl loop whenever slots are free (free slots gathered for 2 ms into
   * one call), several calls possibly unanswered at once; lease calls also give back
   * expired leases and queue retries come due. Three answers: leases; no lease and
   * `ended` null, "nothing is ready yet" (ask again at `nextReadyAt`, or when a fetch
   * ends or a completion is stored); or `ended` set, "the crawl is over" for every
   * crawler (the store decides it, a crawler never guesses). With `waitMs` the call
   * waits (a long poll) until something is leasable, the crawl is over, or the time is
   * spent, so an idle crawler does not spin: that wait is the store's backpressure.
   */
  lease(n: number, crawler: CrawlerId, options?: LeaseOptions): Promise<LeaseBatch>;
  /**
   * The fetches are over: their hosts may be asked again after the gap each earned,
   * while the pages' outputs are still being written. The URLs stay leased until
   * complete(). A release of a lease that is no longer held changes nothing.
   * Called by the crawl loop for the fetches that ended since its last call, and not
   * awaited: the SQLite and PostgreSQL stores keep releases for their next transaction
   * (or commit them alone after 5 ms) and resolve when it commits. Not durable on its
   * own: a release lost in a crash only frees a slot that the lease's end frees anyway.
   */
  release(batch: readonly Release[]): Promise<void>;
  /**
   * Keeps long fetches' leases alive; resolves to the leases still held (the others are
   * gone), each with its new expiry by the store's clock. Called by the lease keeper for
   * every lease held (in flight or being written) once half its time has passed, all
   * that are due in one call. A lease not returned is lost: its completion will be stale.
   */
  extend(leaseIds: readonly LeaseId[]): Promise<ExtendedLease[]>;
  /**
   * Completes a batch in one durable step: outcomes, freed hosts, and the pages'
   * outlinks. A completion of a lease that expired and was handed to someone else is
   * refused, counted (staleCompletions) and changes nothing. Called by the crawl loop
   * once per written batch (64 pages or 5 ms), after the batch's WARC records and
   * pages.jsonl lines are written, one call at a time. Once it resolves the outcomes
   * survive a crash; a kill before leaves the URLs leased, fetched again once their
   * leases are given back (the lines are then written twice, never lost). `stale` lists the
   * refused completions: their links were not taken, and the loop adds them with add().
   * Resolves late when the seen set answers late (drum), which holds the next batch:
   * the loop's writing slows to the seen set's pace, and leasing with it.
   */
  complete(batch: readonly Completion[], crawler: CrawlerId): Promise<CompleteResult>;
  /**
   * The records were written: they are not handed out again. Called after the caller
   * wrote the lines add(), complete() or reclaimRecords() handed it. Unknown ids change
   * nothing. `lines`: the lines written, for a store that keeps the crawl's outputs (a
   * server, which hands back only captured requisites' records and writes their lines);
   * any other store ignores them.
   */
  acknowledge(ids: readonly RecordId[], lines?: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * Records handed to a crawler that died before acknowledging them, or to nobody; they
   * are this caller's now. Called once when a crawl or bunny on a store starts. A live
   * crawler's records are never handed to another. Over a server: none (it writes them).
   */
  reclaimRecords(crawler: CrawlerId): Promise<PendingRecord[]>;
  /**
   * True for exactly one caller per origin: that caller runs the site's hooks and then
   * calls recordSite(), unless the store's owner runs them itself (a cobweb server, with
   * `facts`: what the caller knows of the site, the module API's ModuleSite). A claim
   * whose crawler died before recording can be claimed again. Called by the crawl loop
   * for each site new to it in a written batch, when modules are loaded; false is the
   * usual answer and no error. Over a server it resolves once the hooks have run.
   */
  claimSite(origin: string, crawler: CrawlerId, facts?: Record<string, unknown>): Promise<boolean>;
  /**
   * Stores what the site's hooks found; completes the claim, which is never given
   * again. Called after the hooks ran, before the batch that met the site is completed.
   */
  recordSite(site: SiteFacts): Promise<void>;
  /**
   * The crawl's counts now, whoever made them. Called by the console, the progress line,
   * `show`, a server's STATS and the end-of-run summary: often, never on the crawl's
   * path. Read only; it waits for nothing and may miss a group not yet committed.
   */
  stats(): Promise<FrontierStats>;
  /**
   * Gives every lease of this crawler back at once (it is stopping or disconnected),
   * each URL queued again with one more attempt counted; the crawler counts as gone
   * from now on (its records and site claims may be reclaimed). Called once, when a
   * crawling process closes; a crawler that never calls it (killed) loses its leases
   * when they run out, or sooner when another crawler starts and finds it dead.
   */
  leave(crawler: CrawlerId): Promise<void>;
  /**
   * Commits what is waiting (releases, a group), wakes waiting lease calls, and lets go
   * of the file, the pool or the connection. Called once by the store's owner, after
   * the crawlers left. Calls after it reject.
   */
  close(): Promise<void>;
}

/**
 * What the process that owns a store (cobweb crawl, cobweb server) asks of it besides
 * crawling: the sites for `show` and `log`, and the stored URLs a resumed crawl may want
 * back. Crawlers talking to a server do not get these.
 */
export interface FrontierAdmin {
  /** Every site recorded, for `show` and `log`. */
  sites(): Promise<SiteFacts[]>;
  /**
   * Refused or failed URLs, in store order after `after` (an id; 0 to start), at most
   * `limit`: the caller checks them against its current rules and requeue()s the ones
   * it now wants.
   */
  findStored(query: StoredQuery, after: RecordId, limit: number): Promise<StoredLink[]>;
  /**
   * Queues refused or failed URLs once more (ids from findStored); resolves to how many
   * were queued. `asSeeds`: at depth 0 with no referrer, as the seeds they are given as.
   */
  requeue(ids: readonly RecordId[], options?: { asSeeds?: boolean }): Promise<number>;
  /** The hosts with the most URLs queued, most first, for `show`. */
  hostQueues(limit: number): Promise<{ host: string; queued: number }[]>;
  /**
   * --recrawl-after: the URLs fetched longer ago than `afterMs` by the store's clock
   * (policy/recrawl.ts) are queued again, each lease then carrying `previous`; resolves
   * to how many. Called when a run starts; while it runs, a store given
   * `recrawlAfterMs` in its settings does the same in its lease calls.
   */
  requeueDue(afterMs: number): Promise<number>;
}

export type { RobotsAnswer, RobotsEntry, StoredRobots };

/**
 * What the crawl decides about a host once, for all its crawlers, whatever their number
 * and wherever they run: its robots.txt rules (one crawler reads the file, every one
 * obeys what it read), and its scope and the private addresses it may reach (those of
 * its seeds, whichever process was given them). Politeness and back-off are the store's already
 * (lease, release). A crawler keeps copies, and asks again when a copy expires.
 */
export interface FrontierHostDecisions {
  /**
   * The crawl's robots.txt entry for an origin (scheme://host:port), asked by a crawler
   * with no fresh copy of its own: 'known', with how long it still holds; 'read', this
   * crawler reads the file now (the store holds the read for it for a lease time and
   * answers 'busy' to the others meanwhile); 'busy', another crawler is reading it, so
   * the caller fetches nothing from the origin yet and gives its lease back deferred.
   */
  robots(origin: string, crawler: CrawlerId): Promise<RobotsAnswer>;
  /**
   * What the crawler that got 'read' read. The store keeps it (a file for the TTL; an
   * unreachable one until it is tried again, with the rules read before kept meanwhile,
   * RFC 9309 2.4) and answers what it now holds. null gives the read back unread (its
   * request could not start in time), and null comes back. Durable when it resolves.
   */
  recordRobots(origin: string, entry: RobotsEntry | null, crawler: CrawlerId): Promise<StoredRobots | null>;
  /**
   * Adds seeds' origins and the private addresses they are on to the crawl's, and
   * answers all the crawl has: the origins are its scope (--scope host or domain
   * follows links to them), the addresses the private ones it may connect to. Called
   * with its seeds by whichever process is given seeds, and with none by a crawler
   * that meets what another process's seeds may explain (a connection refused as
   * 'private-address', a leased URL out of the scope it knows). Durable when it resolves.
   */
  crawlSeeds(add: CrawlSeeds): Promise<CrawlSeeds>;
}

/** The crawl's seeds as every crawler needs them: their origins, and the private addresses they are on. */
export interface CrawlSeeds {
  origins: readonly string[];
  addresses: readonly string[];
}

/** A cookie as a store keeps it: a key (domain, path, name) and the cookie, opaque to the store. */
export interface StoredCookie {
  key: string;
  /** null: the cookie is gone (expired, deleted by its site). */
  value: string | null;
}

/**
 * The crawl's cookie jar, kept by every store (a server keeps its bunnies' in its own),
 * so a resumed crawl keeps its session. A crawler reads it once at start and saves the
 * changes its responses made before it completes their leases; crawlers running at once
 * each hold their own copy, and the last change saved of a cookie is the one kept.
 */
export interface FrontierCookies {
  /** Every cookie kept, in no particular order. */
  cookies(): Promise<StoredCookie[]>;
  /** Durable when it resolves; a null value deletes the key. */
  saveCookies(changes: readonly StoredCookie[]): Promise<void>;
}

/** One host as the console shows it: its queue, its politeness budget's state. */
export interface HostView {
  host: string;
  queued: number;
  /** Requests in flight against its politeness budget (the host, or its address with --politeness-key ip). */
  inFlight: number;
  /** Epoch ms when it may next be leased; null while it is at its --per-host limit. */
  readyAt: number | null;
  /** The gap between two request starts it last earned. */
  gapMs: number;
}

/** The hosts in numbers: with a fetch in flight, waiting with URLs queued, given up on. */
export interface HostOverview {
  active: number;
  waiting: number;
  retired: number;
  /** The busiest hosts: most in flight, then most queued. */
  busiest: HostView[];
}

/** What a store can say of its hosts for the console and /metrics (optional: the SQLite and PostgreSQL stores say it; a server's bunnies do not). */
export interface FrontierHosts {
  hostOverview(limit: number): Promise<HostOverview>;
}

/** A store this process owns: the contract and the owner's calls. */
export type LocalFrontier = Frontier & FrontierAdmin;

/** How far apart requests to one host must be, when to give up on a host, and the crawl's limits. */
export interface FrontierSettings {
  /** Fetches in flight to one host (or address) at once. */
  perHost: number;
  /** Least gap in ms between the starts of two requests to one host (or address). */
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
  /** Final outcomes the whole crawl may reach, across all crawlers (--max-pages). */
  maxPages: number;
  /** Per-host sections (policy/host-rules.ts): their delayMs, perHost and maxPages hold for their hosts. */
  hosts?: HostRules;
  /** How long a robots.txt entry holds (RFC 9309 2.4); default 24 h, and an unreachable file 1 h. */
  robots?: RobotsTimes;
  /**
   * --recrawl-after: done URLs fetched longer ago than this are queued again by the lease
   * calls of the running crawl (policy/recrawl.ts dueLookNeeded); absent: never.
   */
  recrawlAfterMs?: number;
}
