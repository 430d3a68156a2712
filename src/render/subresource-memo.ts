import type { Request } from 'playwright-core';
import { servedHeaders } from './served-headers.js';

/**
 * A page's own request answered from memory: what `route.fulfill` takes. The body is
 * decoded, so the headers say nothing of how it crossed the network.
 */
export interface Remembered {
  status: 200;
  headers: Record<string, string>;
  body: Buffer;
}

/** The kinds of request a browser's cache would serve again to the next page of a host. */
const STATIC_TYPES = new Set(['stylesheet', 'script', 'font', 'image']);

interface Entry extends Remembered {
  /** When it stops being fresh (ms since the epoch). */
  staleAt: number;
}

/**
 * What a host context's pages fetched of their stylesheets, scripts, fonts and images,
 * kept in memory to answer the context's next pages, as the browser's HTTP cache would
 * if Playwright's routing did not turn it off. Only what a browser would reuse without
 * asking the server: a GET answered 200, fresh by its Cache-Control max-age, Expires or
 * Last-Modified (RFC 9111's heuristic), not no-store, no-cache or private, no Set-Cookie,
 * varying on nothing but its encoding. An answer from memory is not a request: it takes
 * no host turn and is not captured again (the crawl archived it when it went out).
 * Bounded by `maxBytes` of bodies, the least recently used going first.
 */
export class SubresourceMemo {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The remembered answer to `request`, fresh, or null: it goes to the network. */
  get(request: Request): Remembered | null {
    if (!wanted(request) || request.headers().range !== undefined) return null;
    const url = request.url();
    const entry = this.entries.get(url);
    if (entry === undefined) return null;
    this.forget(url);
    if (entry.staleAt <= Date.now()) return null;
    this.keep(url, entry);
    return { status: entry.status, headers: entry.headers, body: entry.body };
  }

  /** After `request` finished: its response is kept when a browser's cache would keep it. */
  async learn(request: Request): Promise<void> {
    if (!wanted(request) || this.entries.has(request.url())) return;
    try {
      const response = await request.response();
      if (response === null || response.status() !== 200 || response.fromServiceWorker()) return;
      const headers = await response.allHeaders();
      const fresh = freshnessMs(headers, Date.now());
      if (fresh <= 0 || headers['set-cookie'] !== undefined || !varyOk(headers.vary)) return;
      const body = await response.body();
      if (body.length > this.maxBytes / 4) return;
      this.forget(request.url());
      this.keep(request.url(), {
        status: 200,
        headers: servedHeaders(headers),
        body,
        staleAt: Date.now() + fresh,
      });
    } catch {
      // The page went before its body was read: nothing kept, the next page fetches it.
    }
  }

  private keep(url: string, entry: Entry): void {
    this.entries.set(url, entry);
    this.bytes += entry.body.length;
    for (const [oldest, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= e.body.length;
    }
  }

  private forget(url: string): void {
    const entry = this.entries.get(url);
    if (entry === undefined) return;
    this.entries.delete(url);
    this.bytes -= entry.body.length;
  }
}

function wanted(request: Request): boolean {
  return request.method() === 'GET' && STATIC_TYPES.has(request.resourceType());
}

/** A response that varies on a request header other than its encoding is not reused. */
function varyOk(vary: string | undefined): boolean {
  if (vary === undefined) return true;
  return vary.split(',').every((v) => v.trim().toLowerCase() === 'accept-encoding' || v.trim() === '');
}

/**
 * How long a response with these (lower-cased) headers stays fresh in a private cache
 * from `now`, RFC 9111: max-age less its Age, else Expires less Date, else a tenth of the
 * time since its Last-Modified; 0 when it may not be reused without asking. `private`,
 * which a browser would keep, is not kept here: it is meant for one user, and the
 * cookies a crawl's pages send change as its pages set them.
 */
export function freshnessMs(headers: Readonly<Record<string, string>>, now: number): number {
  const directives = new Map<string, string>();
  for (const part of (headers['cache-control'] ?? '').split(',')) {
    const [name = '', value = ''] = part.split('=', 2);
    if (name.trim() !== '') directives.set(name.trim().toLowerCase(), value.trim().replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache') || directives.has('private')) return 0;
  const age = Math.max(0, Number(headers.age ?? 0) || 0) * 1000;
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) {
    const seconds = Number(maxAge);
    return Number.isFinite(seconds) ? Math.max(0, seconds * 1000 - age) : 0;
  }
  const date = dateOf(headers.date) ?? now;
  const expires = headers.expires;
  // An Expires the cache cannot read means already expired.
  if (expires !== undefined) return Math.max(0, (dateOf(expires) ?? 0) - date - age);
  const modified = dateOf(headers['last-modified']);
  if (modified !== undefined && modified < date) return Math.max(0, (date - modified) / 10 - age);
  return 0;
}

function dateOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
