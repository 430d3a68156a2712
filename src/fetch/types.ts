/** Public types of the fetcher; the crawl loop and the WARC writer are coded against these. */

import type { CrawlCookies } from './cookie-jar.js';
import type { DnsCache } from './dns-cache.js';
import type { ProxyChoice } from './proxy.js';

/**
 * Decides, at connect time, whether an address may be dialled for a hostname (the hostname is the address
 * itself for an IP-literal URL). false refuses the connection: the fetch fails with 'private-address'.
 */
export type AddressPolicy = (address: string, hostname: string) => boolean;

export interface FetcherOptions {
  userAgent: string;
  /** Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 30_000: request sent -> response headers received. Also the longest gap allowed between body chunks. */
  firstByteTimeoutMs?: number;
  /** Default 60_000: the whole exchange incl. body; defeats slowloris bodies. */
  totalTimeoutMs?: number;
  /** Default 10 MiB, counted AFTER content-decoding (a gzip bomb is cut off), also applied to raw bytes. */
  maxBodyBytes?: number;
  /** 'hostname:port' -> IP address to connect to, like curl --resolve; URL, Host header and TLS servername unchanged. */
  resolve?: ReadonlyMap<string, string>;
  /** Keep-alive pool size per origin, default 8. */
  connectionsPerOrigin?: number;
  /**
   * Connections open at once across all origins, default 256: past it, the idle ones of
   * the origins used longest ago are closed (connections in use never are). Keeps the
   * file descriptors of a crawl of many hosts bounded by its concurrency.
   */
  maxOpenConnections?: number;
  /** Where every hostname is resolved; a crawl shares one. Default: a new DnsCache of its own. */
  dnsCache?: DnsCache;
  /** Vets every address before it is dialled (see privateAddressPolicy). Default: every address allowed. */
  addressPolicy?: AddressPolicy;
  /** Headers sent with every request, after the fetcher's own (names as given). */
  headers?: Readonly<Record<string, string>>;
  /** Headers for one host's requests (a config file's host section), over `headers`. */
  headersFor?: (hostKey: string) => Readonly<Record<string, string>> | undefined;
  /** The crawl's cookie jar: sends its cookies and takes the responses' Set-Cookie. */
  cookies?: CrawlCookies;
  /** Which requests go through which proxy (proxy.ts). Default: none. */
  proxy?: ProxyChoice;
  /** Offer HTTP/2 to https:// servers (ALPN); default HTTP/1.1 only. */
  http2?: boolean;
  /** PEM CA certificates trusted besides Node's own, for the sites. */
  ca?: readonly string[];
  /** PEM CA certificates trusted besides Node's own, for an https:// proxy (curl's --proxy-cacert). */
  proxyCa?: readonly string[];
  /**
   * Hears that a proxy could not be reached (it is named without its login), once until
   * a request through it gets through again: every request through it fails meanwhile,
   * and each failure alone would read as its site's.
   */
  onProxyUnreachable?: (proxy: string, message: string) => void;
}

/** What one request asks besides the fetcher's settings. */
export interface RequestLimits {
  /**
   * Read at most this many body bytes and stop there: a longer body is cut, not failed
   * (the outcome is a success marked `truncated`). For files whose head is all that is
   * used, as robots.txt's first 500 KiB (RFC 9309 2.5).
   */
  readAtMostBytes?: number;
}

/** A conditional GET: the validators the stored copy of the URL came with. */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type FetchErrorReason =
  | 'timeout'
  | 'too-large'
  | 'dns'
  | 'refused'
  | 'reset'
  | 'tls'
  | 'protocol'
  | 'network'
  | 'private-address'
  /**
   * The request could not start by its deadline (the politeness window of its lease):
   * it was not sent. Never recorded: the crawl gives the lease back, no try spent.
   */
  | 'late';

/** Exactly what the WARC writer stores. */
export interface HttpExchange {
  /** The request head as sent, terminated by the empty line. */
  requestHead: Buffer;
  /** Status line + response headers as received (original case and order) minus Transfer-Encoding, + "\r\n". */
  responseHead: Buffer;
  /** Entity body as transferred: chunking removed, content-encoding kept. */
  rawBody: Buffer;
  /** The IP actually connected to, best effort; null through a proxy (its address is not the site's). */
  remoteAddress: string | null;
  /** The proxy the request went through (its URL without user and password), or null. */
  proxy: string | null;
  /** What the exchange spoke: HTTP/1.1, or HTTP/2 (stored in HTTP/1.1 form). */
  protocol: 'http/1.1' | 'h2';
}

export interface FetchSuccess {
  ok: true;
  url: string;
  status: number;
  statusText: string;
  /** Lowercase names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  contentType: string | null;
  /** The Set-Cookie headers, one each (the `headers` record joins them, which breaks them). */
  setCookies: readonly string[];
  /** Content-decoded (gzip, x-gzip, deflate (zlib or raw), br); identity/unknown -> raw. */
  body: Buffer;
  /**
   * The body was cut at the request's readAtMostBytes and the rest never read: `body` (and
   * the exchange's rawBody) hold its head only.
   */
  truncated?: true;
  exchange: HttpExchange;
  startedAt: Date;
  /** From the fetch call to the response's end: connecting, and waiting for a free connection, included. */
  durationMs: number;
  /**
   * From the request's start on its connection to the response's end: the server's time,
   * which politeness scales the gap by (--delay-factor). Connecting, and the HTTP client's
   * own start on a first connection (it compiles its parser then), are not the server's.
   */
  responseMs: number;
}

export interface FetchFailure {
  ok: false;
  url: string;
  error: FetchErrorReason;
  /** Short human detail, e.g. "body over 10485760 bytes after decoding". */
  message: string;
  /** Present when the response headers had arrived (e.g. too-large). */
  status?: number;
  /** No connection was opened (dns, refused, connect timeout): what counts toward retiring a host. */
  connectFailed?: true;
  startedAt: Date;
  durationMs: number;
  /** As FetchSuccess's; the whole time when the request never went out. */
  responseMs: number;
}

export type FetchOutcome = FetchSuccess | FetchFailure;
