import { STATUS_CODES } from 'node:http';
import type { CrawlerId, Lease, NewLink, PendingRecord, RejectedLink } from '../frontier/types.js';
import { type PackedExchange, packParts } from '../output/packed-exchange.js';
import type { PageRecord } from '../output/pages-log.js';
import { decodeBody } from '../parse/charset.js';
import { cssUrls } from '../parse/css-urls.js';
import type { CapturedResponse } from '../render/capture.js';
import { type LinkRules, routeLinks } from './links.js';
import type { ProcessedPage } from './page-processor.js';
import { blankDraft, sealed } from './page-record.js';

/**
 * The reason a captured requisite is handed to the store as a refused link: the store
 * marks it seen (so the crawl never fetches it again) and, when it is new to the crawl,
 * hands it back as a record to write; the crawl loop then writes the capture itself.
 */
export const CAPTURED = 'captured';

/** A requisite a rendered page loaded, taken from the browser: its exchange and what its line says. */
export interface CapturedRequisite {
  /** Canonical. */
  url: string;
  packed: PackedExchange;
  status: number;
  contentType: string | null;
  bytes: number;
  fetchedAt: Date;
  /** A stylesheet's url()s and @imports, counted as a fetched one's are. */
  outlinks: number;
}

/** Headers that describe the bytes as they crossed the network: the body kept is the decoded one. */
const WIRE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

/**
 * The page's completion with what its rendering loaded: each capture within the crawl's
 * rules goes to the store as a 'captured' refusal instead of a requisite to fetch (and
 * leaves the page's links, where its parse found it too), and a captured stylesheet's
 * url()s and @imports the browser did not load are requisites to fetch, as they would be
 * had the crawl fetched the stylesheet. Captures the rules refuse are dropped.
 */
export function withCaptured(
  lease: Lease,
  page: ProcessedPage,
  responses: readonly CapturedResponse[],
  rules: LinkRules,
): { page: ProcessedPage; captured: CapturedRequisite[] } {
  if (responses.length === 0 || page.record === null) return { page, captured: [] };
  const captured: CapturedRequisite[] = [];
  const urls = new Set<string>();
  for (const r of responses) {
    const routed = routeLinks([r.url], lease.url, lease, rules, 'requisite').accepted[0];
    if (routed === undefined || urls.has(routed.url)) continue;
    urls.add(routed.url);
    captured.push(requisiteOf(routed.url, r));
  }
  if (captured.length === 0) return { page, captured };
  const depth = lease.depth + 1;
  const refusals: RejectedLink[] = captured.map((c) => ({
    url: c.url,
    depth,
    via: lease.url,
    reason: CAPTURED,
  }));
  const named: NewLink[] = [];
  const namedRefused: RejectedLink[] = [];
  for (let i = 0; i < captured.length; i++) {
    const c = captured[i] as CapturedRequisite;
    const css = cssLinks(c, rules, { url: c.url, depth });
    c.outlinks = css.count;
    for (const l of css.accepted) if (!urls.has(l.url)) named.push(l);
    namedRefused.push(...css.rejected);
  }
  const before = page.completion;
  return {
    page: {
      ...page,
      completion: {
        ...before,
        outlinks: [...before.outlinks.filter((l) => !urls.has(l.url)), ...named],
        rejected: [...before.rejected, ...refusals, ...namedRefused],
      },
    },
    captured,
  };
}

/** The pages.jsonl line of a capture the store said is new to the crawl. */
export function capturedLine(r: PendingRecord, c: CapturedRequisite, crawler: CrawlerId): PageRecord {
  const draft = blankDraft({ url: r.url, depth: r.depth, via: r.via, kind: 'requisite' });
  draft.status = c.status;
  draft.contentType = c.contentType;
  draft.bytes = c.bytes;
  draft.outlinks = c.outlinks;
  draft.hasForm = false;
  draft.fetchedAt = c.fetchedAt.toISOString();
  draft.captured = true;
  return sealed(draft, crawler);
}

function requisiteOf(url: string, r: CapturedResponse): CapturedRequisite {
  const contentType = headerOf(r.headers, 'content-type');
  return {
    url,
    packed: packParts({
      url,
      date: r.startedAt,
      remoteAddress: r.remoteAddress,
      protocol: r.protocol,
      requestHead: requestHead(r),
      responseHead: responseHead(r),
      body: r.body,
    }),
    status: r.status,
    contentType,
    bytes: r.body.length,
    fetchedAt: r.startedAt,
    outlinks: 0,
  };
}

/** A captured stylesheet's url()s and @imports, routed as the crawl routes a fetched one's. */
function cssLinks(
  c: CapturedRequisite,
  rules: LinkRules,
  from: { url: string; depth: number },
): { accepted: NewLink[]; rejected: RejectedLink[]; count: number } {
  const type = c.contentType?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/css' || c.status < 200 || c.status >= 300)
    return { accepted: [], rejected: [], count: 0 };
  const { text } = decodeBody(bodyOf(c.packed), c.contentType);
  const routed = routeLinks(cssUrls(text), c.url, from, rules, 'requisite');
  return { accepted: routed.accepted, rejected: routed.rejected, count: routed.urls.length };
}

function bodyOf(p: PackedExchange): Uint8Array {
  return new Uint8Array(p.buffer, p.body.offset, p.body.length);
}

/** The request as the browser sent it, in HTTP/1.1 form (an HTTP/2 request's pseudo-headers become its request line and Host). */
function requestHead(r: CapturedResponse): Uint8Array {
  const u = new URL(r.url);
  let head = `GET ${u.pathname}${u.search} HTTP/1.1\r\n`;
  if (headerOf(r.requestHeaders, 'host') === null) head += `Host: ${u.host}\r\n`;
  for (const [name, value] of Object.entries(r.requestHeaders)) {
    if (name.startsWith(':')) continue;
    for (const v of value.split('\n')) head += `${name}: ${v}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/**
 * The response head as the browser got it, for the body it decoded: no Content-Encoding
 * or Transfer-Encoding, the body's own Content-Length (as Browsertrix and warcio write
 * a browser's response).
 */
function responseHead(r: CapturedResponse): Uint8Array {
  // HTTP/2 has no reason phrase: the usual one is written, as HTTP/1.1 would send it.
  let head = `HTTP/1.1 ${r.status} ${r.statusText || STATUS_CODES[r.status] || ''}\r\n`;
  for (const [name, value] of Object.entries(r.headers)) {
    if (WIRE_HEADERS.has(name.toLowerCase())) continue;
    for (const v of value.split('\n')) head += `${name}: ${v}\r\n`;
  }
  head += `Content-Length: ${r.body.length}\r\n\r\n`;
  return Buffer.from(head, 'latin1');
}

function headerOf(headers: Readonly<Record<string, string>>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return null;
}
