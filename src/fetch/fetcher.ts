import {
  createConnector,
  createDialledAddress,
  createTargetCheck,
  defaultPort,
  tlsOptionsOf,
} from './connector.js';
import type { CrawlCookies } from './cookie-jar.js';
import { DnsCache } from './dns-cache.js';
import { privateAddressError } from './errors.js';
import { Exchange, type ExchangeSettings } from './exchange.js';
import { DEFAULT_MAX_OPEN_CONNECTIONS, OriginPools } from './origin-pools.js';
import { NO_PROXY, type ProxyChoice, proxyFor, proxyShown } from './proxy.js';
import { ProxyAgents, type ProxyRoute } from './proxy-agents.js';
import { releaseRequestCapture, retainRequestCapture } from './request-capture.js';
import type {
  FetchErrorReason,
  FetcherOptions,
  FetchFailure,
  FetchOutcome,
  RequestLimits,
  Validators,
} from './types.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
const DEFAULT_TOTAL_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;

const ACCEPT = 'text/html,application/xhtml+xml,*/*;q=0.8';
// Exactly the codings decompress.ts can undo.
const ACCEPT_ENCODING = 'gzip, deflate, br';

function failure(url: string, error: FetchErrorReason, message: string): FetchFailure {
  return { ok: false, url, error, message, startedAt: new Date(), durationMs: 0, responseMs: 0 };
}

/**
 * GET fetcher for the crawler: a keep-alive pool per origin (HTTP/1.1, or HTTP/2 with `http2`), the
 * open connections across all origins bounded (origin-pools.ts), no redirects followed, bodies content-decoded under a size limit, every failure
 * classified; the crawl's headers and cookies sent, and through a proxy when one is chosen.
 * fetch() never rejects.
 */
export class Fetcher {
  readonly #pools: OriginPools;
  readonly #settings: ExchangeSettings;
  readonly #dialled: (hostname: string, port: string) => Promise<string | null>;
  readonly #targetCheck: ReturnType<typeof createTargetCheck>;
  readonly #ownHeaders: readonly string[];
  readonly #headers: Readonly<Record<string, string>>;
  readonly #headersFor: FetcherOptions['headersFor'];
  readonly #cookies: CrawlCookies | undefined;
  readonly #proxy: ProxyChoice;
  /** The proxies' dispatchers, each made at its first request. */
  readonly #proxies: ProxyAgents;
  readonly #onProxyUnreachable: FetcherOptions['onProxyUnreachable'];
  /** Proxies whose last connection could not be opened: told once, until one is. */
  readonly #unreachableProxies = new Set<string>();
  #closed = false;

  constructor(options: FetcherOptions) {
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const firstByteTimeoutMs = options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    this.#settings = {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      totalTimeoutMs: options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
      timeouts: { connectTimeoutMs, firstByteTimeoutMs },
    };
    this.#ownHeaders = [
      'user-agent',
      options.userAgent,
      'accept',
      ACCEPT,
      'accept-encoding',
      ACCEPT_ENCODING,
    ];
    this.#headers = options.headers ?? {};
    this.#headersFor = options.headersFor;
    this.#cookies = options.cookies;
    this.#proxy = options.proxy ?? NO_PROXY;
    this.#onProxyUnreachable = options.onProxyUnreachable;
    const tls = tlsOptionsOf({ allowH2: options.http2 === true, ...(options.ca ? { ca: options.ca } : {}) });
    const dialling = {
      connectTimeoutMs,
      lookup: (options.dnsCache ?? new DnsCache()).lookupFunction(),
      ...(options.resolve !== undefined ? { resolve: options.resolve } : {}),
      ...(options.addressPolicy !== undefined ? { addressPolicy: options.addressPolicy } : {}),
      ...tls,
    };
    const connect = createConnector(dialling);
    this.#dialled = createDialledAddress(dialling);
    this.#targetCheck = createTargetCheck(dialling);
    const agentOptions = {
      connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
      pipelining: 1,
      headersTimeout: firstByteTimeoutMs,
      // A body that stalls as long as the headers may take is as dead as headers that never come.
      bodyTimeout: firstByteTimeoutMs,
      ...(options.http2 === true ? { allowH2: true } : {}),
    };
    const maxOpenConnections = options.maxOpenConnections ?? DEFAULT_MAX_OPEN_CONNECTIONS;
    this.#pools = new OriginPools({ pool: { ...agentOptions, connect }, maxOpenConnections });
    this.#proxies = new ProxyAgents({
      agent: agentOptions,
      connectTimeoutMs,
      targetCa: tls.ca,
      proxyCa: options.proxyCa,
      maxOpenConnections,
    });
    retainRequestCapture();
  }

  /**
   * GETs `url`; with `validators`, as a conditional GET (a 304 then means the stored
   * copy holds). With `startBy`, the request is sent only if it can go out by then
   * (else the outcome is the failure 'late', and the host saw nothing). `limits`: this
   * request's own (a body read only up to a cut).
   */
  fetch(
    url: string,
    validators?: Validators,
    startBy?: number,
    limits?: RequestLimits,
  ): Promise<FetchOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.resolve(failure(url, 'network', 'invalid URL'));
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return Promise.resolve(failure(url, 'network', `unsupported scheme ${parsed.protocol}`));
    }
    const proxy = proxyFor(parsed, this.#proxy);
    if (proxy === null) {
      const direct = {
        dispatcher: this.#pools,
        origin: parsed.origin,
        path: parsed.pathname + parsed.search,
        headers: [],
      };
      return this.#send(url, parsed, validators, null, direct, startBy, limits);
    }
    return this.#viaProxy(url, parsed, validators, proxy, startBy, limits);
  }

  /**
   * The proxy dials the site, so the private-address guard is applied here first, on
   * the address the site's name has here; a name that does not resolve here is left to
   * the proxy (a company's proxy may know names its network does not).
   */
  async #viaProxy(
    url: string,
    parsed: URL,
    validators: Validators | undefined,
    proxy: string,
    startBy: number | undefined,
    limits: RequestLimits | undefined,
  ) {
    const check = await this.#targetCheck(parsed.hostname, parsed.port || defaultPort(parsed.protocol));
    if (check.verdict === 'refused') {
      const refusal = privateAddressError(check.address, parsed.hostname);
      return failure(url, 'private-address', refusal.message);
    }
    const route = await this.#proxies.route(proxy, parsed);
    return this.#send(url, parsed, validators, proxy, route, startBy, limits);
  }

  #send(
    url: string,
    parsed: URL,
    validators: Validators | undefined,
    proxy: string | null,
    route: ProxyRoute,
    startBy?: number,
    limits?: RequestLimits,
  ): Promise<FetchOutcome> {
    const headers = [...this.#requestHeaders(url, parsed, validators), ...route.headers];
    const shownProxy = proxy === null ? null : proxyShown(proxy);
    return new Promise<FetchOutcome>((deliver) => {
      const taken = (outcome: FetchOutcome) => {
        // A 407 is the proxy's own answer, not the site's: a failure, as a refused CONNECT is.
        if (proxy !== null && outcome.ok && outcome.status === 407) {
          deliver({
            ...failure(
              url,
              'network',
              'the proxy answered 407 Proxy Authentication Required: check the login in --proxy',
            ),
            startedAt: outcome.startedAt,
            durationMs: outcome.durationMs,
            responseMs: outcome.responseMs,
          });
          return;
        }
        if (outcome.ok && outcome.setCookies.length > 0) this.#cookies?.take(url, outcome.setCookies);
        if (shownProxy !== null) {
          deliver(this.#proxyHeard(shownProxy, outcome));
          return;
        }
        deliver(outcome);
      };
      const exchange = new Exchange(
        url,
        parsed,
        this.#settings,
        { headers, proxy: shownProxy, startBy, readAtMostBytes: limits?.readAtMostBytes },
        taken,
      );
      try {
        route.dispatcher.dispatch(
          { origin: route.origin, path: route.path, method: 'GET', headers: headers as string[] },
          exchange,
        );
      } catch (error) {
        exchange.failWith(error);
      }
    });
  }

  /**
   * Through a proxy, every connection this fetcher opens is to the proxy: a connection
   * that could not be opened is the proxy's failure, not the site's, and says so. The
   * first of a run of them is told to onProxyUnreachable.
   */
  #proxyHeard(proxy: string, outcome: FetchOutcome): FetchOutcome {
    if (outcome.ok || outcome.connectFailed !== true) {
      this.#unreachableProxies.delete(proxy);
      return outcome;
    }
    const message = `the proxy ${proxy} could not be reached: ${outcome.message}`;
    if (!this.#unreachableProxies.has(proxy)) {
      this.#unreachableProxies.add(proxy);
      this.#onProxyUnreachable?.(proxy, outcome.message);
    }
    return { ...outcome, message };
  }

  /** The fetcher's own headers, the crawl's, the host's, the jar's cookies and the validators. */
  #requestHeaders(url: string, parsed: URL, validators: Validators | undefined): string[] {
    const extra: Record<string, string> = { ...this.#headers, ...this.#headersFor?.(parsed.host) };
    const jar = this.#cookies?.header(url) ?? null;
    const cookieName = Object.keys(extra).find((n) => n.toLowerCase() === 'cookie');
    if (jar !== null) {
      if (cookieName === undefined) extra.cookie = jar;
      else extra[cookieName] = `${extra[cookieName]}; ${jar}`;
    }
    if (validators?.etag !== undefined) extra['if-none-match'] = validators.etag;
    if (validators?.lastModified !== undefined) extra['if-modified-since'] = validators.lastModified;
    const list = [...this.#ownHeaders];
    for (const [name, value] of Object.entries(extra)) {
      // An Accept of the crawl's replaces the fetcher's own.
      const own = list.findIndex((n, i) => i % 2 === 0 && n === name.toLowerCase());
      if (own !== -1) list.splice(own, 2);
      list.push(name, value);
    }
    return list;
  }

  /**
   * The address a new connection for `url` would dial first (the resolve map, an IP
   * literal, or the DNS cache's first allowed answer); null when there is none. Asking
   * warms the DNS cache the connection then uses.
   */
  addressOf(url: string): Promise<string | null> {
    const parsed = URL.parse(url);
    if (parsed === null) return Promise.resolve(null);
    return this.#dialled(parsed.hostname, parsed.port || defaultPort(parsed.protocol));
  }

  /** Waits for exchanges in flight, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await Promise.all([this.#pools.close(), this.#proxies.close()]);
    } finally {
      releaseRequestCapture();
    }
  }
}
