import { createConnector, createDialledAddress, defaultPort } from './connector.js';
import { DnsCache } from './dns-cache.js';
import { Exchange, type ExchangeSettings } from './exchange.js';
import { releaseRequestCapture, retainRequestCapture } from './request-capture.js';
import type { FetchErrorReason, FetcherOptions, FetchFailure, FetchOutcome } from './types.js';
import { Agent } from './undici-parts.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
const DEFAULT_TOTAL_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;

const ACCEPT = 'text/html,application/xhtml+xml,*/*;q=0.8';
// Exactly the codings decompress.ts can undo.
const ACCEPT_ENCODING = 'gzip, deflate, br';

function failure(url: string, error: FetchErrorReason, message: string): FetchFailure {
  return { ok: false, url, error, message, startedAt: new Date(), durationMs: 0 };
}

/**
 * HTTP/1.1 GET fetcher for the crawler: one undici Agent with a keep-alive pool per origin, no redirects
 * followed, bodies content-decoded under a size limit, every failure classified. fetch() never rejects.
 */
export class Fetcher {
  readonly #agent: InstanceType<typeof Agent>;
  readonly #settings: ExchangeSettings;
  readonly #dialled: (hostname: string, port: string) => Promise<string | null>;
  #closed = false;

  constructor(options: FetcherOptions) {
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const firstByteTimeoutMs = options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    this.#settings = {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      totalTimeoutMs: options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
      timeouts: { connectTimeoutMs, firstByteTimeoutMs },
      requestHeaders: ['user-agent', options.userAgent, 'accept', ACCEPT, 'accept-encoding', ACCEPT_ENCODING],
    };
    const dialling = {
      connectTimeoutMs,
      lookup: (options.dnsCache ?? new DnsCache()).lookupFunction(),
      ...(options.resolve !== undefined ? { resolve: options.resolve } : {}),
      ...(options.addressPolicy !== undefined ? { addressPolicy: options.addressPolicy } : {}),
    };
    const connect = createConnector(dialling);
    this.#dialled = createDialledAddress(dialling);
    this.#agent = new Agent({
      connect,
      connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
      pipelining: 1,
      headersTimeout: firstByteTimeoutMs,
      // A body that stalls as long as the headers may take is as dead as headers that never come.
      bodyTimeout: firstByteTimeoutMs,
    });
    retainRequestCapture();
  }

  fetch(url: string): Promise<FetchOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.resolve(failure(url, 'network', 'invalid URL'));
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return Promise.resolve(failure(url, 'network', `unsupported scheme ${parsed.protocol}`));
    }
    return new Promise<FetchOutcome>((deliver) => {
      const exchange = new Exchange(url, parsed, this.#settings, deliver);
      try {
        this.#agent.dispatch(
          {
            origin: exchange.origin,
            path: exchange.path,
            method: 'GET',
            headers: this.#settings.requestHeaders as string[],
          },
          exchange,
        );
      } catch (error) {
        exchange.failWith(error);
      }
    });
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
      await this.#agent.close();
    } finally {
      releaseRequestCapture();
    }
  }
}
