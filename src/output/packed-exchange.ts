import type { FetchSuccess } from '../fetch/types.js';
import type { Span } from '../worker.js';
import type { WarcExchange } from './warc-writer.js';

/**
 * A fetched exchange with all its bytes in one ArrayBuffer of its own: the request
 * head, the response head, the body as transferred and, when it was content-encoded,
 * the decoded body. Made once per fetch (one copy), then moved, never copied, from
 * thread to thread: to a parse worker and back, then to the WARC thread.
 */
export interface PackedExchange {
  url: string;
  date: Date;
  remoteAddress: string | null;
  /** Detached (empty) while another thread holds it. */
  buffer: ArrayBuffer;
  requestHead: Span;
  responseHead: Span;
  rawBody: Span;
  /** The content-decoded body: the same span as rawBody when the body was not encoded. */
  body: Span;
  /** What the WARC records say besides the bytes (WarcExchange's fields of the same names). */
  proxy?: string | null;
  protocol?: 'http/1.1' | 'h2';
  notModified?: { refersToDate: Date };
  truncated?: 'length';
  /** Not an exchange: one `resource` record of this Content-Type, its block the body (a screenshot). */
  resource?: { contentType: string };
}

/** A resource the crawl made itself (a screenshot): one record, no request, no HTTP head. */
export function packResource(url: string, date: Date, contentType: string, body: Uint8Array): PackedExchange {
  const bytes = new Uint8Array(body.length);
  bytes.set(body);
  const none = { offset: 0, length: 0 };
  const all = { offset: 0, length: body.length };
  return {
    url,
    date,
    remoteAddress: null,
    buffer: bytes.buffer,
    requestHead: none,
    responseHead: none,
    rawBody: all,
    body: all,
    resource: { contentType },
  };
}

/**
 * An exchange the crawl did not make but saw (a browser's, --render with --requisites):
 * its heads as written out in HTTP/1.1 form, its body as the browser decoded it.
 */
export function packParts(parts: {
  url: string;
  date: Date;
  remoteAddress: string | null;
  protocol: 'http/1.1' | 'h2';
  requestHead: Uint8Array;
  responseHead: Uint8Array;
  body: Uint8Array;
}): PackedExchange {
  const bytes = new Uint8Array(parts.requestHead.length + parts.responseHead.length + parts.body.length);
  bytes.set(parts.requestHead, 0);
  bytes.set(parts.responseHead, parts.requestHead.length);
  bytes.set(parts.body, parts.requestHead.length + parts.responseHead.length);
  const body = { offset: parts.requestHead.length + parts.responseHead.length, length: parts.body.length };
  return {
    url: parts.url,
    date: parts.date,
    remoteAddress: parts.remoteAddress,
    protocol: parts.protocol,
    buffer: bytes.buffer,
    requestHead: { offset: 0, length: parts.requestHead.length },
    responseHead: { offset: parts.requestHead.length, length: parts.responseHead.length },
    rawBody: body,
    body,
  };
}

export function packExchange(outcome: FetchSuccess): PackedExchange {
  const { requestHead, responseHead, rawBody } = outcome.exchange;
  const decoded = outcome.body === rawBody ? null : outcome.body;
  const size = requestHead.length + responseHead.length + rawBody.length + (decoded?.length ?? 0);
  const bytes = new Uint8Array(size);
  let offset = 0;
  const put = (part: Uint8Array): Span => {
    bytes.set(part, offset);
    const span = { offset, length: part.length };
    offset += part.length;
    return span;
  };
  const request = put(requestHead);
  const response = put(responseHead);
  const raw = put(rawBody);
  return {
    url: outcome.url,
    date: outcome.startedAt,
    remoteAddress: outcome.exchange.remoteAddress,
    proxy: outcome.exchange.proxy,
    protocol: outcome.exchange.protocol,
    buffer: bytes.buffer,
    requestHead: request,
    responseHead: response,
    rawBody: raw,
    body: decoded === null ? raw : put(decoded),
    ...(outcome.truncated === true ? { truncated: 'length' as const } : {}),
  };
}

/** A view (no copy) of one part of a packed exchange. */
export function partOf(packed: PackedExchange, span: Span): Buffer {
  return Buffer.from(packed.buffer, span.offset, span.length);
}

/** The exchange as the WARC writer takes it, as views of the packed bytes. */
export function warcExchangeOf(packed: PackedExchange): WarcExchange {
  return {
    url: packed.url,
    date: packed.date,
    remoteAddress: packed.remoteAddress,
    requestHead: partOf(packed, packed.requestHead),
    responseHead: partOf(packed, packed.responseHead),
    rawBody: partOf(packed, packed.rawBody),
    proxy: packed.proxy ?? null,
    protocol: packed.protocol ?? 'http/1.1',
    ...(packed.notModified === undefined ? {} : { notModified: packed.notModified }),
    ...(packed.truncated === undefined ? {} : { truncated: packed.truncated }),
    ...(packed.resource === undefined ? {} : { resource: packed.resource }),
  };
}
