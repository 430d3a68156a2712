import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { type ContentCoding, LimitedDecoder, parseContentEncoding } from './decompress.js';
import { classifyError, FetcherError, type TimeoutSettings } from './errors.js';
import {
  buildRequestHead,
  buildResponseHead,
  h2RequestHead,
  headerRecord,
  type RawHeaderList,
  setCookiesOf,
} from './http-head.js';
import { expectRequestSent, type SentRequestObserver } from './request-capture.js';
import type { FetchErrorReason, FetchOutcome, FetchSuccess } from './types.js';

/** What every exchange of one fetcher shares. */
export interface ExchangeSettings {
  maxBodyBytes: number;
  totalTimeoutMs: number;
  timeouts: TimeoutSettings;
}

/** What is this request's own. */
export interface ExchangeRequest {
  /** Flat name/value list, as handed to undici. */
  headers: readonly string[];
  /** The proxy it goes through (its URL), or null. */
  proxy: string | null;
  /**
   * Epoch ms by which the request must go out (its lease's politeness window), checked
   * when undici is about to write it, after any connecting: later, it is not sent.
   */
  startBy?: number | undefined;
  /**
   * Reads at most this many body bytes (after decoding, and as raw bytes) and then stops
   * reading: the outcome is a success with the body cut there, marked `truncated`. For a
   * file whose head is all the crawler uses (robots.txt); without it, a body over the
   * limit is the failure 'too-large'.
   */
  readAtMostBytes?: number | undefined;
}

type Controller = Dispatcher.DispatchController;

const EMPTY = Buffer.alloc(0);

/** A Proxy-Authorization line of a request head, as undici writes it. */
const PROXY_LOGIN_LINE = /^proxy-authorization:[^\r\n]*\r\n/gim;

/** A flat name/value list without its Proxy-Authorization. */
function withoutProxyLogin(headers: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if ((headers[i] as string).toLowerCase() !== 'proxy-authorization')
      kept.push(headers[i] as string, headers[i + 1] as string);
  }
  return kept;
}

function concatChunks(chunks: readonly Buffer[], totalBytes: number): Buffer {
  if (chunks.length === 0) return EMPTY;
  // One chunk: hand it out as it is rather than copying it.
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, totalBytes);
}

/** undici's HTTP/1.1 parser gives Buffers; the other shapes the type allows are converted, just in case. */
function rawHeaderList(raw: Controller['rawHeaders'], parsed: IncomingHttpHeaders): RawHeaderList {
  if (Array.isArray(raw)) {
    if (raw.length === 0 || Buffer.isBuffer(raw[0])) return raw as Buffer[];
    return (raw as string[]).map((item) => Buffer.from(item, 'latin1'));
  }
  const list: Buffer[] = [];
  for (const [name, value] of Object.entries(raw ?? parsed)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) {
      list.push(Buffer.from(name, 'latin1'), Buffer.from(item, 'latin1'));
    }
  }
  return list;
}

/** Statuses whose Content-Length does not announce a body in this response. */
function hasNoBody(status: number): boolean {
  return status === 204 || status === 304;
}

/**
 * One GET exchange, driven by undici through its dispatch-handler interface. We use the controller API of
 * undici 7 (onRequestStart / onResponseStart / onResponseData / onResponseEnd / onResponseError): the
 * legacy callbacks (onConnect, onHeaders, ...) are deprecated in v7's types, and the controller still
 * exposes the raw header Buffers (controller.rawHeaders: original case and order) plus the status text.
 * The controller's abort() destroys the connection at once, which is how the limits cut a body off.
 *
 * Exactly one outcome is delivered, by whichever comes first: the response end, an error, a limit, or the
 * total timer. Later events are ignored.
 */
export class Exchange implements Dispatcher.DispatchHandler, SentRequestObserver {
  readonly origin: string;
  readonly path: string;
  readonly #url: URL;
  /** The URL as the caller passed it, echoed back in the outcome. */
  readonly #requestedUrl: string;
  readonly #settings: ExchangeSettings;
  readonly #request: ExchangeRequest;
  /** The body limit of this exchange: the request's own cut, else the fetcher's. */
  readonly #maxBodyBytes: number;
  /** Whether a body over #maxBodyBytes is cut (kept up to it) rather than failed. */
  readonly #cuts: boolean;
  /** Set once a body was cut: what undici reports after that (the aborted connection) is not heard. */
  #cut = false;
  readonly #deliver: (outcome: FetchOutcome) => void;
  readonly #startedAt = new Date();
  readonly #startTime = performance.now();
  /** When the request went out on its connection (onRequestStart): where the server's time begins. */
  #sentTime: number | null = null;
  readonly #totalTimer: NodeJS.Timeout;
  #done = false;
  #controller: Controller | null = null;

  #requestHead: Buffer | null = null;
  #remoteAddress: string | null = null;
  #protocol: string | null = null;

  #status = 0;
  #statusText = '';
  #headers: Record<string, string> = {};
  #setCookies: string[] = [];
  #responseHead: Buffer = EMPTY;
  readonly #rawChunks: Buffer[] = [];
  #rawBytes = 0;
  #rawBody: Buffer = EMPTY;
  #decoder: LimitedDecoder | null = null;

  constructor(
    requestedUrl: string,
    url: URL,
    settings: ExchangeSettings,
    request: ExchangeRequest,
    deliver: (outcome: FetchOutcome) => void,
  ) {
    this.#request = request;
    this.#requestedUrl = requestedUrl;
    this.#url = url;
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    this.#settings = settings;
    this.#cuts = request.readAtMostBytes !== undefined;
    this.#maxBodyBytes = request.readAtMostBytes ?? settings.maxBodyBytes;
    this.#deliver = deliver;
    // Our own timer: undici's timeouts restart with every chunk, so they cannot stop a slow-drip body.
    this.#totalTimer = setTimeout(
      () => this.#fail('timeout', `no complete response within ${settings.totalTimeoutMs} ms`),
      settings.totalTimeoutMs,
    );
  }

  onRequestStart(controller: Controller, _context: unknown): void {
    if (this.#done) {
      // Settled while queued or connecting (total timeout): do not send the request at all.
      controller.abort(new FetcherError('timeout', 'exchange already ended'));
      return;
    }
    this.#controller = controller;
    const startBy = this.#request.startBy;
    if (startBy !== undefined && Date.now() > startBy) {
      this.#fail('late', `not sent: it could not start by its deadline (${Date.now() - startBy} ms late)`);
      return;
    }
    this.#sentTime = performance.now();
    expectRequestSent(this);
  }

  isMine(origin: unknown, path: unknown): boolean {
    if (origin === this.origin && path === this.path) return true;
    // Through a forwarding proxy: undici sends the absolute URL to the proxy's origin.
    return this.#request.proxy !== null && path === this.origin + this.path;
  }

  onRequestSent(head: string, remoteAddress: string | null, protocol: string | null): void {
    this.#protocol = protocol;
    // undici's HTTP/2 head is its header list alone: stored in HTTP/1.1 form, as WARC holds exchanges.
    // Its HTTP/1.1 head string ends before the empty line that closes it.
    // The proxy's password is not the site's business, nor the archive's.
    const kept = this.#request.proxy === null ? head : head.replace(PROXY_LOGIN_LINE, '');
    this.#requestHead =
      protocol === 'h2' ? h2RequestHead(kept, this.path) : Buffer.from(`${kept}\r\n`, 'latin1');
    // Through a proxy, the socket's far end is the proxy, not the site.
    this.#remoteAddress = this.#request.proxy === null ? remoteAddress : null;
  }

  onResponseStart(
    controller: Controller,
    status: number,
    headers: IncomingHttpHeaders,
    statusText?: string,
  ): void {
    // 1xx interim responses (e.g. 103 Early Hints) are followed by the real one.
    if (this.#done || status < 200) return;
    const raw = rawHeaderList(controller.rawHeaders, headers);
    this.#status = status;
    this.#statusText = statusText ?? '';
    this.#headers = headerRecord(raw);
    this.#setCookies = setCookiesOf(raw);
    this.#responseHead = buildResponseHead(status, this.#statusText, raw);

    const declaredLength = Number.parseInt(this.#headers['content-length'] ?? '', 10);
    // A body to be cut is read up to the cut, whatever its announced length.
    if (declaredLength > this.#maxBodyBytes && !hasNoBody(status) && !this.#cuts) {
      this.#fail('too-large', `body over ${this.#maxBodyBytes} bytes (Content-Length: ${declaredLength})`);
      return;
    }
    const codings = parseContentEncoding(this.#headers['content-encoding']);
    if (codings !== null) this.#decoder = this.#createDecoder(codings);
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.#done || this.#cut) return;
    if (this.#rawBytes + chunk.length > this.#maxBodyBytes) {
      if (this.#cuts) this.#cutRaw(chunk.subarray(0, this.#maxBodyBytes - this.#rawBytes));
      else this.#fail('too-large', `body over ${this.#maxBodyBytes} bytes`);
      return;
    }
    this.#rawBytes += chunk.length;
    // Kept without copying: undici hands out a fresh slice of each socket read, never reused.
    this.#rawChunks.push(chunk);
    this.#decoder?.write(chunk);
  }

  onResponseEnd(_controller: Controller, _trailers: IncomingHttpHeaders): void {
    if (this.#done || this.#cut) return;
    this.#rawBody = concatChunks(this.#rawChunks, this.#rawBytes);
    if (this.#decoder === null) this.#succeed(this.#rawBody);
    else this.#decoder.end();
  }

  // The controller is undefined when undici fails a request before it started (refused, DNS, ...).
  onResponseError(_controller: Controller | undefined, error: Error): void {
    if (this.#done || this.#cut) return;
    const { reason, message, connectFailed } = classifyError(error, this.#settings.timeouts);
    this.#fail(reason, message, connectFailed);
  }

  /** For a dispatch that threw instead of reporting through onResponseError. */
  failWith(error: unknown): void {
    const { reason, message, connectFailed } = classifyError(error, this.#settings.timeouts);
    this.#fail(reason, message, connectFailed);
  }

  /**
   * The raw bytes reached a cut: `last` is the part of the chunk within it. Nothing more
   * is read (the connection is dropped); what was decoded so far is the body.
   */
  #cutRaw(last: Buffer): void {
    this.#cut = true;
    this.#rawChunks.push(last);
    this.#rawBytes += last.length;
    this.#rawBody = concatChunks(this.#rawChunks, this.#rawBytes);
    this.#dropConnection();
    if (this.#decoder === null) {
      this.#succeed(this.#rawBody);
      return;
    }
    this.#decoder.write(last);
    // The decoders flush what they have at an early end (decompress.ts): the cut body.
    this.#decoder.end();
  }

  /** The decoded body reached a cut: its first #maxBodyBytes are the body. */
  #cutDecoded(head: Buffer): void {
    this.#cut = true;
    this.#rawBody = concatChunks(this.#rawChunks, this.#rawBytes);
    this.#dropConnection();
    this.#succeed(head);
  }

  /** Stops reading a body we have enough of: the connection is closed, not left to stream on. */
  #dropConnection(): void {
    this.#controller?.abort(new FetcherError('too-large', `body cut at ${this.#maxBodyBytes} bytes`));
  }

  #createDecoder(codings: readonly ContentCoding[]): LimitedDecoder {
    return new LimitedDecoder(codings, this.#maxBodyBytes, {
      onOverLimit: (limitBytes, head) => {
        if (this.#cuts) this.#cutDecoded(head());
        else this.#fail('too-large', `body over ${limitBytes} bytes after decoding`);
      },
      onError: (error) =>
        this.#fail('protocol', `cannot decode ${codings.join(', ')} body: ${error.message}`),
      onEnd: (body) => this.#succeed(body),
    });
  }

  /** The exchange is over: how long it took in all, and how long its server took (see FetchSuccess). */
  #finish(): { durationMs: number; responseMs: number } {
    this.#done = true;
    clearTimeout(this.#totalTimer);
    const now = performance.now();
    return { durationMs: now - this.#startTime, responseMs: now - (this.#sentTime ?? this.#startTime) };
  }

  #succeed(body: Buffer): void {
    if (this.#done) return;
    const { durationMs, responseMs } = this.#finish();
    const outcome: FetchSuccess = {
      ok: true,
      url: this.#requestedUrl,
      status: this.#status,
      statusText: this.#statusText,
      headers: this.#headers,
      contentType: this.#headers['content-type'] ?? null,
      body,
      setCookies: this.#setCookies,
      ...(this.#cut ? { truncated: true as const } : {}),
      exchange: {
        requestHead:
          this.#requestHead ?? buildRequestHead(this.#url, withoutProxyLogin(this.#request.headers)),
        responseHead: this.#responseHead,
        rawBody: this.#rawBody,
        remoteAddress: this.#remoteAddress,
        proxy: this.#request.proxy,
        protocol: this.#protocol === 'h2' ? 'h2' : 'http/1.1',
      },
      startedAt: this.#startedAt,
      durationMs,
      responseMs,
    };
    // undici hands the connection back to the pool from a setImmediate that it schedules just after this
    // callback; a fetch to the same origin issued before then would open a second connection instead of
    // reusing this one. So the outcome is delivered from a setImmediate queued after undici's.
    queueMicrotask(() => setImmediate(this.#deliver, outcome));
  }

  #fail(reason: FetchErrorReason, message: string, connectFailed?: true): void {
    if (this.#done) return;
    const { durationMs, responseMs } = this.#finish();
    this.#decoder?.destroy();
    // Destroys the connection (a no-op once the response is complete): nothing more is read from it, so an
    // endless body or a bomb stops here. Queued requests are aborted in onRequestStart instead.
    this.#controller?.abort(new FetcherError(reason, message));
    this.#deliver({
      ok: false,
      url: this.#requestedUrl,
      error: reason,
      message,
      ...(this.#status > 0 ? { status: this.#status } : {}),
      ...(connectFailed === true ? { connectFailed } : {}),
      startedAt: this.#startedAt,
      durationMs,
      responseMs,
    });
  }
}
