/**
 * The packets of the Cobweb protocol as typed objects (docs/protocol.md). These are the
 * wire shapes, owned by the protocol: the server and the remote frontier map them to
 * their own types. Nothing here knows about sockets.
 */

/** Type codes. 1-10 are the original packets, byte for byte; 16 and up are ours. */
export const PacketCode = {
  DEQUEUE: 1,
  ENQUEUE: 2,
  STOREURL: 3,
  SHOWDATA: 4,
  QUIT: 5,
  MODSTAT: 6,
  LOGDATA: 7,
  READDATA: 8,
  NEWMOD: 9,
  MODINFO: 10,
  AUTH: 16,
  HELLO: 17,
  WELCOME: 18,
  LEASE: 19,
  LEASES: 20,
  COMPLETE: 21,
  COMPLETED: 22,
  RELEASE: 23,
  EXTEND: 24,
  EXTENDED: 25,
  ADD: 26,
  ADDED: 27,
  ACK: 28,
  CLAIMSITE: 29,
  CLAIMED: 30,
  RECORDSITE: 31,
  STATS: 32,
  STATSREPLY: 33,
  MODULE: 34,
  OK: 35,
  ERROR: 36,
  LEAVE: 37,
  CRAWL: 38,
  COOKIES: 39,
  COOKIEJAR: 40,
  SAVECOOKIES: 41,
  ROBOTS: 42,
  ROBOTSREPLY: 43,
  SAVEROBOTS: 44,
  SEEDS: 45,
  SEEDLIST: 46,
  MODCOUNTS: 47,
} as const;

export type TypedPacketName = keyof typeof PacketCode;

/** Every packet length counts the whole packet, the 2-byte length field included. */
export const MAX_PACKET = 65_535;
/** Our packets: length (2), type (1), request id (4), flags (1), then the JSON body. */
export const HEADER_BYTES = 8;
/** Flags bit 0: more fragments of this message follow. Bits 1-7 are reserved and must be 0. */
export const FLAG_MORE = 0x01;
/** Free-form JSON values (page records, module records, site info) nest at most this deep. */
export const MAX_JSON_DEPTH = 32;
/**
 * An ERROR packet is at most this long, so its first byte is 0x00-0x08 and a client reading a
 * text answer (SHOWDATA, MODSTAT, NEWMOD) can tell an ERROR from text, which never starts so.
 */
export const MAX_ERROR_PACKET = 2_048;
/** The protocol version HELLO names and WELCOME confirms. */
export const PROTOCOL_VERSION = 1;

/**
 * A crawl's name (--crawl; HELLO's and CRAWL's `crawl`): 1 to 64 letters, digits, '.',
 * '_' and '-', not starting with '.'. It is a folder's name on a server with folder
 * stores (crawls/NAME), so never '.', '..' or a hidden one, and a row's in PostgreSQL.
 */
export const CRAWL_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;
/** What CRAWL_NAME takes, for messages. */
export const CRAWL_NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', not starting with '.'";
/** The crawl of a server or a store when no --crawl names one: on a server, its data folder itself. */
export const DEFAULT_CRAWL = 'default';

// ---------------------------------------------------------------------------------------------
// The original packets

/** What the original packets carry for a URL: IPv4 address, port, host name, path. */
export interface OriginalTarget {
  /** Dotted IPv4; '0.0.0.0' means not resolved (the bunny resolves the host). */
  addr: string;
  port: number;
  host: string;
  /** Path and query, starting with '/'. */
  path: string;
}

export type OriginalPacket =
  | { type: 'DEQUEUE' }
  | { type: 'ENQUEUE'; target: OriginalTarget }
  | { type: 'STOREURL'; target: OriginalTarget }
  | { type: 'SHOWDATA' }
  | { type: 'QUIT' }
  | { type: 'MODSTAT' }
  | { type: 'LOGDATA'; file: string }
  | { type: 'READDATA'; file: string }
  | { type: 'NEWMOD'; name: string }
  | { type: 'MODINFO'; addr: string; port: number; module: string; info: string };

/** The reply to DEQUEUE: it has no type byte; `target` null is the empty reply `00 00`. */
export interface DequeueReply {
  type: 'DEQUEUE_REPLY';
  target: OriginalTarget | null;
}

// ---------------------------------------------------------------------------------------------
// JSON shapes of our packets

export type UrlKind = 'page' | 'sitemap' | 'requisite';

/** What a fetch taught about a host, for politeness. */
export interface WireReport {
  fetchMs: number;
  crawlDelayMs?: number;
  retryAfterMs?: number;
  connectFailed?: boolean;
  address?: string | null;
  /** No request was made (robots.txt answered from the cache): the slot is free, no gap earned. */
  noRequest?: boolean;
}

export interface WireLease {
  /** Opaque to the bunny; echoed in COMPLETE, RELEASE, EXTEND. */
  id: string;
  /** The whole URL, any scheme, IPv6 hosts in brackets. */
  url: string;
  host: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: UrlKind;
  attempt: number;
  /** Epoch ms after which the server may hand the URL to someone else. */
  expiresAt: number;
  /** Optional: instant (the server's clock) by which the request must start, or the lease goes back deferred. */
  startBy?: number;
  /** Optional (--politeness-key ip): resolve the host and give the lease back deferred with its address, making no request. */
  needsAddress?: true;
  /** Optional (--recrawl-after): the URL was fetched before; ask for it with these validators. */
  previous?: WirePrevious;
}

/** A URL's last response, for a conditional GET: when it came, its ETag and Last-Modified. */
export interface WirePrevious extends WireValidators {
  fetchedAt: number;
}

/** A response's validators, kept with the URL that is done, and when the capture they stand for was made. */
export interface WireValidators {
  etag?: string;
  lastModified?: string;
  capturedAt?: number;
}

export type WireOutcome =
  | { kind: 'done'; validators?: WireValidators }
  | { kind: 'failed'; error: string }
  /** Not fetched on purpose (robots.txt said no): recorded, not counted as a page. */
  | { kind: 'refused'; reason: string }
  | { kind: 'retry'; error: string; afterMs: number }
  /** Not fetched (held back by the bunny): back to the queue, the attempt not counted. */
  | { kind: 'deferred' };

export interface WireLink {
  url: string;
  depth: number;
  via: string | null;
  redirects?: number;
  kind?: UrlKind;
}

export interface WireRejected {
  url: string;
  depth: number;
  via: string | null;
  reason: string;
}

export type JsonObject = Record<string, unknown>;

export interface WireModuleRecord {
  module: string;
  record: JsonObject;
}

export interface WireCompletion {
  lease: string;
  outcome: WireOutcome;
  report: WireReport;
  /** The pages.jsonl line for this URL; null when there is none (a retry, a deferral). */
  page: JsonObject | null;
  outlinks: WireLink[];
  rejected: WireRejected[];
  modules: WireModuleRecord[];
  /** The page has a form (the forms module's mark, kept by the store). */
  hasForm?: boolean;
}

/**
 * The rest of a completion that did not fit in the packet of its head: same lease id, more
 * outlinks, rejected links and module records. Only inside split COMPLETE messages.
 */
export interface WireCompletionPart {
  lease: string;
  outlinks: WireLink[];
  rejected: WireRejected[];
  modules: WireModuleRecord[];
}

/** A record the server asks the client to write and acknowledge (ACK) by id. */
export interface WireRecord extends WireRejected {
  id: string;
}

export interface WireRelease {
  lease: string;
  report: WireReport;
}

export interface WireExtended {
  id: string;
  expiresAt: number;
}

export type CrawlEnd = 'finished' | 'max-pages';

/** One cookie of the crawl's jar: its key (domain;path;name) and the cookie, opaque; null: deleted. */
export interface WireCookie {
  key: string;
  value: string | null;
}

export interface WireStats {
  queued: number;
  inFlight: number;
  done: number;
  failed: number;
  rejected: number;
  hosts: number;
  bunnies: number;
  /** Optional: waiting for their retry time. */
  retrying?: number;
  /** Optional: completions refused because their lease had gone to someone else. */
  staleCompletions?: number;
  /** Optional: leases that ran out. */
  expiredLeases?: number;
  /** Optional: pages the crawl may still start; null when there is no limit. */
  budgetLeft?: number | null;
  /** Optional: the crawl's seen set (its kind and size; a bloom filter's capacity and rates). */
  seen?: WireSeen;
}

/** One module's calls in a bunny since its last report; `ms`: the time they took. */
export interface WireModuleCounts {
  name: string;
  calls: number;
  errors: number;
  timeouts: number;
  skipped: number;
  ms: number;
}

export interface WireSeen {
  kind: string;
  size: number;
  capacity?: number;
  fpRate?: number;
  bits?: number;
  hashes?: number;
  estimatedFpRate?: number;
}

/**
 * An origin's robots.txt as the crawl keeps it, on the wire: `text` (the file, as far as
 * a parser reads it) in pieces, so that a file of up to 500 KiB travels split like a list.
 */
export interface WireRobotsEntry {
  state: 'parsed' | 'allow-all' | 'unavailable';
  status: number | null;
  /** 'unavailable' with no answer at all: why (a fetch failure's kind, as pages.jsonl's `error`). */
  failure?: { error: string; message: string; connectFailed?: boolean };
  text: string[];
}

export interface Bodies {
  AUTH: { token: string };
  /**
   * `crawl`: the crawl the bunny works for (default DEFAULT_CRAWL); the server opens it, new or not.
   * `modules`: the modules whose page hooks the bunny runs of its own (its built-ins);
   * `loadsModules`: it loads the modules the server pushes (MODULE) and runs their page hooks.
   */
  HELLO: {
    name: string;
    protocol: number;
    version?: string;
    crawl?: string;
    modules?: string[];
    loadsModules?: boolean;
  };
  /** `missingModules`: the server's modules with page hooks this bunny runs none of. */
  WELCOME: {
    crawlerId: string;
    protocol: number;
    leaseMs: number;
    settings: JsonObject;
    missingModules?: string[];
  };
  LEASE: { n: number; waitMs: number };
  LEASES: { leases: WireLease[]; ended: CrawlEnd | null; nextReadyAt: number | null };
  COMPLETE: { completions: (WireCompletion | WireCompletionPart)[] };
  COMPLETED: { stale: string[]; records: WireRecord[]; added: number };
  RELEASE: { releases: WireRelease[] };
  EXTEND: { leases: string[] };
  EXTENDED: { leases: WireExtended[]; stale: string[] };
  ADD: { links: WireLink[]; rejected: WireRejected[] };
  ADDED: { added: number; records: WireRecord[] };
  /**
   * `lines` (optional): the pages.jsonl lines of records the client acknowledges, for a
   * server that writes them itself (a captured requisite's line, its WARC records written
   * by the client). A record acknowledged without one is written as refused.
   */
  ACK: { ids: string[]; lines?: JsonObject[] };
  /** `site`: what the client knows of the site (its first response's headers, its robots.txt), for site hooks. */
  CLAIMSITE: { origin: string; address: string | null; site?: JsonObject };
  CLAIMED: { claimed: boolean };
  RECORDSITE: { origin: string; address: string | null; firstSeen: number; info: JsonObject };
  STATS: Record<string, never>;
  STATSREPLY: WireStats;
  MODULE: { name: string; sha256: string; source: string };
  OK: Record<string, never>;
  /** The bunny is stopping: its leases go back to the queue now. */
  LEAVE: Record<string, never>;
  /** The crawl this connection's packets are about (control commands, STATS, the original packets). */
  CRAWL: { crawl: string };
  /** The crawl's cookie jar, asked for at start. */
  COOKIES: Record<string, never>;
  COOKIEJAR: { cookies: WireCookie[] };
  /** What a batch's responses changed in the jar, kept before the batch's COMPLETE. */
  SAVECOOKIES: { cookies: WireCookie[] };
  /** The crawl's robots.txt entry for an origin, or the read for this bunny. */
  ROBOTS: { origin: string };
  /**
   * `answer`: 'known' (the entry's fields follow, held `validForMs` more), 'read' (this bunny
   * reads the file and sends SAVEROBOTS), 'busy' (another bunny is reading it), 'none'
   * (SAVEROBOTS gave the read back).
   */
  ROBOTSREPLY: { answer: 'known' | 'read' | 'busy' | 'none'; validForMs?: number } & Partial<
    Omit<WireRobotsEntry, 'text'>
  > & { text: string[] };
  /** What this bunny read (`read` false: it read nothing, and gives the read back). */
  SAVEROBOTS: { origin: string; read: boolean } & Partial<Omit<WireRobotsEntry, 'text'>> & { text: string[] };
  /** This bunny's seeds' origins and the private addresses they are on; none to ask for the crawl's. */
  SEEDS: { origins: string[]; addresses: string[] };
  /** The crawl's seeds' origins (its scope) and the private addresses it may reach. */
  SEEDLIST: { origins: string[]; addresses: string[] };
  /** A bunny's module calls since its last MODCOUNTS, added to the server's counts (modstat). */
  MODCOUNTS: { modules: WireModuleCounts[] };
  ERROR: { code: number; message: string };
}

export type OurPacketName = keyof Bodies;

/** One of our packets: an 8-byte header and a JSON body. */
export type OurPacketOf<T extends OurPacketName> = {
  type: T;
  /** Pairs a reply with its request; 0 for "no reply wanted" and for pushes. */
  requestId: number;
  /** More fragments of the same message (same type and request id) follow. */
  more: boolean;
  body: Bodies[T];
};

export type OurPacket = { [T in OurPacketName]: OurPacketOf<T> }[OurPacketName];

export type Packet = OriginalPacket | DequeueReply | OurPacket;

/** Who sends a packet: 'client' packets go to the server, 'server' packets to clients. */
export const SENDER: Record<TypedPacketName, 'client' | 'server'> = {
  DEQUEUE: 'client',
  ENQUEUE: 'client',
  STOREURL: 'client',
  SHOWDATA: 'client',
  QUIT: 'client',
  MODSTAT: 'client',
  LOGDATA: 'client',
  READDATA: 'client',
  NEWMOD: 'client',
  MODINFO: 'client',
  AUTH: 'client',
  HELLO: 'client',
  WELCOME: 'server',
  LEASE: 'client',
  LEASES: 'server',
  COMPLETE: 'client',
  COMPLETED: 'server',
  RELEASE: 'client',
  EXTEND: 'client',
  EXTENDED: 'server',
  ADD: 'client',
  ADDED: 'server',
  ACK: 'client',
  CLAIMSITE: 'client',
  CLAIMED: 'server',
  RECORDSITE: 'client',
  STATS: 'client',
  STATSREPLY: 'server',
  MODULE: 'server',
  OK: 'server',
  ERROR: 'server',
  LEAVE: 'client',
  CRAWL: 'client',
  COOKIES: 'client',
  COOKIEJAR: 'server',
  SAVECOOKIES: 'client',
  ROBOTS: 'client',
  ROBOTSREPLY: 'server',
  SAVEROBOTS: 'client',
  SEEDS: 'client',
  SEEDLIST: 'server',
  MODCOUNTS: 'client',
};

/**
 * The request id rule of each of our packets: 'required' (nonzero: the packet has a reply or
 * is one), 'optional' (0 = no reply wanted, nonzero = answer OK when done), 'zero' (a push),
 * 'any' (ERROR: 0 when it answers no request).
 */
export const REQUEST_ID_RULE: Record<OurPacketName, 'required' | 'optional' | 'zero' | 'any'> = {
  AUTH: 'optional',
  HELLO: 'required',
  WELCOME: 'required',
  LEASE: 'required',
  LEASES: 'required',
  COMPLETE: 'required',
  COMPLETED: 'required',
  RELEASE: 'optional',
  EXTEND: 'required',
  EXTENDED: 'required',
  ADD: 'required',
  ADDED: 'required',
  ACK: 'optional',
  CLAIMSITE: 'required',
  CLAIMED: 'required',
  RECORDSITE: 'optional',
  STATS: 'required',
  STATSREPLY: 'required',
  MODULE: 'zero',
  OK: 'required',
  ERROR: 'any',
  LEAVE: 'required',
  CRAWL: 'optional',
  COOKIES: 'required',
  COOKIEJAR: 'required',
  SAVECOOKIES: 'required',
  ROBOTS: 'required',
  ROBOTSREPLY: 'required',
  SAVEROBOTS: 'required',
  SEEDS: 'required',
  SEEDLIST: 'required',
  MODCOUNTS: 'optional',
};

/** Packets whose message may be split over several packets (the MORE flag). */
export const SPLITTABLE: ReadonlySet<OurPacketName> = new Set<OurPacketName>([
  'LEASES',
  'COMPLETE',
  'COMPLETED',
  'RELEASE',
  'EXTEND',
  'EXTENDED',
  'ADD',
  'ADDED',
  'ACK',
  'MODULE',
  'COOKIEJAR',
  'SAVECOOKIES',
  'ROBOTSREPLY',
  'SAVEROBOTS',
  'SEEDS',
  'SEEDLIST',
]);

/** The reply type of each request that has its own; requests with an optional reply get OK. */
export const REPLY_OF: Partial<Record<OurPacketName, OurPacketName>> = {
  HELLO: 'WELCOME',
  LEASE: 'LEASES',
  COMPLETE: 'COMPLETED',
  EXTEND: 'EXTENDED',
  ADD: 'ADDED',
  CLAIMSITE: 'CLAIMED',
  STATS: 'STATSREPLY',
  AUTH: 'OK',
  RELEASE: 'OK',
  ACK: 'OK',
  RECORDSITE: 'OK',
  LEAVE: 'OK',
  CRAWL: 'OK',
  COOKIES: 'COOKIEJAR',
  SAVECOOKIES: 'OK',
  ROBOTS: 'ROBOTSREPLY',
  SAVEROBOTS: 'ROBOTSREPLY',
  SEEDS: 'SEEDLIST',
  MODCOUNTS: 'OK',
};

const NAME_OF_CODE = new Map<number, TypedPacketName>(
  Object.entries(PacketCode).map(([name, code]) => [code, name as TypedPacketName]),
);

export function packetName(code: number): TypedPacketName | undefined {
  return NAME_OF_CODE.get(code);
}

export function isOurType(name: TypedPacketName): name is OurPacketName {
  return PacketCode[name] >= 16;
}
