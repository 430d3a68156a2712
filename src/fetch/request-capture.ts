import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * Captures the request head exactly as undici wrote it, and the socket it went out on, from undici's
 * 'undici:client:sendHeaders' diagnostics channel (no other undici API exposes either).
 *
 * The channel's message carries undici's internal request object, which cannot be linked to our handler
 * directly. But undici calls the handler's onRequestStart and then publishes sendHeaders synchronously, in
 * the same call (writeH1 in undici's client-h1.js), for the same request. So onRequestStart names the
 * handler that is about to be sent, and the very next message belongs to it; origin and path are checked
 * as well so that a stale entry can never be credited with another request's head.
 */

const SEND_HEADERS_CHANNEL = 'undici:client:sendHeaders';

export interface SentRequestObserver {
  /**
   * Whether undici's request (its origin and path) is this one: the target's origin and
   * path, or through a forwarding proxy, the proxy's origin and the absolute URL.
   */
  isMine(origin: unknown, path: unknown): boolean;
  /** `protocol`: what TLS negotiated ('h2', 'http/1.1'), or null on plain TCP. */
  onRequestSent(head: string, remoteAddress: string | null, protocol: string | null): void;
}

interface SendHeadersMessage {
  request: { origin?: unknown; path?: unknown };
  headers: string;
  socket: { remoteAddress?: string | undefined; alpnProtocol?: string | false | null };
}

function isSendHeadersMessage(message: unknown): message is SendHeadersMessage {
  if (typeof message !== 'object' || message === null) return false;
  const candidate = message as Partial<SendHeadersMessage>;
  return (
    typeof candidate.headers === 'string' &&
    typeof candidate.request === 'object' &&
    candidate.request !== null &&
    typeof candidate.socket === 'object' &&
    candidate.socket !== null
  );
}

let awaitingSend: SentRequestObserver | null = null;
let users = 0;

function onSendHeaders(message: unknown): void {
  const observer = awaitingSend;
  if (observer === null) return;
  awaitingSend = null;
  if (!isSendHeadersMessage(message)) return;
  if (!observer.isMine(message.request.origin, message.request.path)) return;
  const alpn = message.socket.alpnProtocol;
  observer.onRequestSent(
    message.headers,
    message.socket.remoteAddress ?? null,
    typeof alpn === 'string' ? alpn : null,
  );
}

/** Call from onRequestStart: the next request head undici sends is this observer's. */
export function expectRequestSent(observer: SentRequestObserver): void {
  awaitingSend = observer;
}

/** Subscribes while at least one fetcher is open; undici skips the work of publishing when nobody listens. */
export function retainRequestCapture(): void {
  if (users++ === 0) diagnosticsChannel.subscribe(SEND_HEADERS_CHANNEL, onSendHeaders);
}

export function releaseRequestCapture(): void {
  if (users > 0 && --users === 0) {
    diagnosticsChannel.unsubscribe(SEND_HEADERS_CHANNEL, onSendHeaders);
    awaitingSend = null;
  }
}
