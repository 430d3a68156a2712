import { CrawlOptionError } from '../errors.js';
import type { CrawlCookies } from '../fetch/cookie-jar.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import { type HostRules, ruleFor } from '../frontier/policy/host-rules.js';
import { gapAfterFetch } from '../frontier/policy/politeness.js';
import { Renderer, type RenderSettings } from '../render/renderer.js';
import { SubresourceGate } from '../render/subresource-gate.js';
import { canonicalize } from '../url/canonicalize.js';
import type { LinkRules } from './links.js';
import type { RenderPart } from './render-step.js';

/** The options --render's part of a crawling process reads. */
export interface RenderOptions {
  render?: 'never' | 'auto' | 'always' | undefined;
  browser?: string | undefined;
  renderConcurrency?: number | undefined;
  renderWaitMs?: number | undefined;
  renderRequests?: number | undefined;
  /** --render-memory: the browser's processes' memory (MB) past which a new browser takes over. */
  renderMemoryMb?: number | undefined;
  /** --requisites: what a rendered page loads is captured from the browser. */
  requisites?: boolean | undefined;
  /** --screenshot: each rendered page's picture in the WARC. */
  screenshot?: boolean | undefined;
  /** --max-body: a rendered DOM, or a captured body, longer than this is not kept. */
  maxBodyBytes: number;
  totalTimeoutMs: number;
  userAgent: string;
  /** Politeness, as the crawl's store applies it to fetches (a bunny's own when the crawl's did not come). */
  delayMs?: number | undefined;
  delayFactor?: number | undefined;
  maxDelayMs: number;
  /** --per-host: requests to one host at once. */
  perHost?: number | undefined;
  hosts?: HostRules | undefined;
  /** --header: a Cookie among them goes into the browser too. */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** Pages a browser renders before a new one takes over (Crawlee's BrowserPool retires one after 100 too). */
const RECYCLE_AFTER_PAGES = 100;

/** The option table's defaults, for a caller that gives none. */
const DEFAULT_DELAY_MS = 1000;
const DEFAULT_DELAY_FACTOR = 2;
const DEFAULT_RENDER_REQUESTS = 100;

/**
 * The hosts' turns for rendered pages' own requests, or null when the crawl renders
 * nothing. Made before the fetcher: the crawl's own fetches take their turns in it too.
 * `robots()`: the crawl's robots.txt cache, for a host's Crawl-delay (null: ignored).
 */
export function subresourceGateOf(
  o: RenderOptions,
  robots: () => RobotsCache | null,
): SubresourceGate | null {
  if (o.render === undefined || o.render === 'never') return null;
  const settings = {
    delayMs: o.delayMs ?? DEFAULT_DELAY_MS,
    delayFactor: o.delayFactor ?? DEFAULT_DELAY_FACTOR,
    maxDelayMs: o.maxDelayMs,
  };
  // The gap the store would give the host after a fetch that took as long: its section's
  // delay, the delay factor, its Crawl-delay (when this process has read its robots.txt).
  return new SubresourceGate((url, lastMs) => {
    const host = URL.parse(url)?.host ?? '';
    const delayMs = ruleFor(o.hosts, host)?.delayMs ?? settings.delayMs;
    const crawlDelayMs = robots()?.cached(url)?.crawlDelayMs ?? 0;
    return gapAfterFetch({ ...settings, delayMs }, lastMs, crawlDelayMs);
  }, o.perHost ?? 1);
}

/** The fetcher, its requests holding their hosts' turns in the gate (none: as it was). */
export function gatedFetcher(
  fetcher: Pick<Fetcher, 'fetch' | 'addressOf'>,
  gate: SubresourceGate | null,
): Pick<Fetcher, 'fetch' | 'addressOf'> {
  if (gate === null) return fetcher;
  return {
    addressOf: (url) => fetcher.addressOf(url),
    async fetch(url, previous, startBy, limits) {
      const release = gate.hold(url);
      try {
        return await fetcher.fetch(url, previous, startBy, limits);
      } finally {
        release();
      }
    },
  };
}

/** The Cookie header the fetcher sends `url`'s host from --header and the host's section, as it merges them. */
function configuredCookie(o: RenderOptions, url: string): string | null {
  const headers = { ...o.headers, ...ruleFor(o.hosts, URL.parse(url)?.host ?? '')?.headers };
  const name = Object.keys(headers).find((n) => n.toLowerCase() === 'cookie');
  return name === undefined ? null : (headers[name] ?? null);
}

/** --render's part of a visit, or null; its renderer starts Chromium at the first page it renders. */
export function renderPartOf(
  o: RenderOptions,
  rules: LinkRules,
  gate: SubresourceGate | null,
  cookies: CrawlCookies,
  capturesKept: boolean,
  onEvent: RenderSettings['onEvent'],
): (RenderPart & { renderer: Renderer }) | null {
  if (o.render === undefined || o.render === 'never' || gate === null) return null;
  if (o.browser === undefined) throw new CrawlOptionError('--render needs a browser: give --browser PATH.');
  const renderer = new Renderer({
    executablePath: o.browser,
    concurrency: o.renderConcurrency ?? 1,
    waitMs: o.renderWaitMs ?? 2_000,
    timeoutMs: o.totalTimeoutMs,
    recycleAfter: RECYCLE_AFTER_PAGES,
    memoryCapBytes: (o.renderMemoryMb ?? 1024) * 2 ** 20,
    maxHtmlChars: o.maxBodyBytes,
    onEvent,
    userAgent: o.userAgent,
    // --requisites: what the page loads is taken from the browser, not fetched again; on a
    // server too, which hands the new ones back to be archived here (docs/protocol.md). Not
    // for a server older than that: it would write them as refused, and none archived.
    capture: o.requisites === true && capturesKept ? { maxBodyBytes: o.maxBodyBytes } : null,
    screenshot: o.screenshot === true,
    // A rendered page reaches only what the crawl's scope would: its files are not pages,
    // so the extension filter does not apply. robots.txt is not asked (docs/architecture.md).
    allowRequest: (url) => {
      const c = canonicalize(url);
      if (!c.ok) return false;
      const refused = rules.filter(c.url);
      return refused === null || refused === 'extension';
    },
    subresources: { gate, perPage: o.renderRequests ?? DEFAULT_RENDER_REQUESTS },
    cookies: {
      cookiesOfHost: (url) => cookies.cookiesOfHost(url),
      merge: (held) => cookies.merge(held),
      configured: (url) => configuredCookie(o, url),
    },
  });
  return { mode: o.render, renderer };
}
