import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { CrawlOptionError } from '../errors.js';
import { type CapturedResponse, PageCapture } from './capture.js';
import { screenshotOf } from './screenshot.js';

/** How a crawl renders pages. */
export interface RenderSettings {
  /** The Chromium to run (find-browser.ts); never downloaded. */
  executablePath: string;
  /** Pages rendered at once (--render-concurrency). */
  concurrency: number;
  /** After the load event, how long to wait at most for the network to go quiet (--render-wait). */
  waitMs: number;
  /** Cap on one whole page: navigation, load, quiet and reading the DOM. */
  timeoutMs: number;
  /** A browser serves this many pages, then a new one takes over (a leaking page costs no more). */
  recycleAfter: number;
  userAgent: string;
  /**
   * Whether the page may make this request of its own (a script, a stylesheet, an XHR):
   * the crawl's scope, so a rendered page reaches no host the crawl would not.
   */
  allowRequest: (url: string) => boolean;
  /**
   * --requisites with --render: what the page loads within the scope is captured from the
   * browser (capture.ts), images, media and fonts included, rather than fetched again;
   * bodies past `maxBodyBytes` (--max-body) are not kept, and left to the crawl.
   */
  capture?: { maxBodyBytes: number } | null;
  /** --screenshot: a PNG of the rendered page comes with its DOM. */
  screenshot?: boolean;
}

/** The page as the crawl fetched it: the browser is served this instead of asking the host again. */
export interface FetchedDocument {
  url: string;
  status: number;
  headers: Readonly<Record<string, string>>;
  /** Content-decoded. */
  body: Uint8Array;
}

export type RenderResult =
  | { ok: true; html: string; captured?: CapturedResponse[]; screenshot?: Uint8Array }
  /** `error`: a short reason ('render-timeout', 'render-crash', 'render'); `message`: what happened. */
  | { ok: false; error: string; message: string };

/** What a page never gets from the browser: the DOM is what a rendered crawl wants of it. */
const NOT_NEEDED = new Set(['image', 'media', 'font']);

/** Host contexts kept per browser: each keeps its cookies and cache for the host's next page. */
const MAX_CONTEXTS = 32;

/** Headers that describe the bytes as they crossed the network, not the decoded body served here. */
const WIRE_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

interface BrowserEntry {
  browser: Browser;
  /** Pages given to this browser, open or done. */
  served: number;
  open: number;
  retired: boolean;
  contexts: Map<string, { context: BrowserContext; open: number }>;
}

/**
 * A small pool of Chromium pages, after Crawlee's BrowserPool: one browser at a time
 * serving up to `concurrency` pages, a context per host, the browser replaced after
 * `recycleAfter` pages (the old one closes once its pages are done) and at once when it
 * crashes. Every call has a deadline: a browser or a page can hang.
 *
 * A page is not fetched twice. The crawl fetched it (that request was the page's one
 * politeness slot, and the WARC holds its bytes); the browser's navigation is answered
 * with that response, and the page's own requests go out only within the crawl's scope,
 * images, media and fonts not at all.
 */
export class Renderer {
  private current: BrowserEntry | null = null;
  private launching: Promise<BrowserEntry> | null = null;
  private readonly everyBrowser = new Set<BrowserEntry>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly s: RenderSettings) {}

  /**
   * The page's DOM after its scripts ran, serialized. Never throws: a page that fails
   * (a timeout, a crashed renderer or browser) is retried once on a new page after a
   * browser crash, and else answered with why.
   */
  async render(doc: FetchedDocument): Promise<RenderResult> {
    await this.slot();
    try {
      try {
        return await this.renderOnce(doc);
      } catch (err) {
        if (!this.browserGone()) throw err;
        // The browser died under the page (not the page's fault, maybe): once more on a new one.
        return await this.renderOnce(doc);
      }
    } catch (err) {
      return failure(err);
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.everyBrowser];
    this.everyBrowser.clear();
    this.current = null;
    await Promise.all(all.map((e) => e.browser.close().catch(() => {})));
  }

  private async slot(): Promise<void> {
    if (this.active >= this.s.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  private browserGone(): boolean {
    return this.current === null || !this.current.browser.isConnected();
  }

  private async renderOnce(doc: FetchedDocument): Promise<RenderResult> {
    const entry = await this.browserForPage();
    const host = new URL(doc.url).host;
    entry.open++;
    let page: Page | null = null;
    let held: { context: BrowserContext; open: number } | null = null;
    try {
      held = await this.contextFor(entry, host);
      held.open++;
      page = await withDeadline(held.context.newPage(), this.s.timeoutMs, 'opening a page');
      return await this.drive(page, doc);
    } finally {
      if (page !== null) await page.close().catch(() => {});
      if (held !== null) held.open--;
      entry.open--;
      if (entry.retired && entry.open === 0) this.dispose(entry);
    }
  }

  /** Navigation served from the fetch, load, a quiet network for at most waitMs, the DOM: within timeoutMs. */
  private async drive(page: Page, doc: FetchedDocument): Promise<RenderResult> {
    const deadline = Date.now() + this.s.timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    let served = false;
    const capture = this.s.capture
      ? await PageCapture.start(page, this.s.allowRequest, this.s.capture)
      : null;
    // A dialog would stop the page's scripts until answered; a pop-up is a page of its own.
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
    page.on('popup', (popup) => void popup.close().catch(() => {}));
    await page.route('**/*', (route) => {
      const request = route.request();
      if (!served && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        served = true;
        return fulfilled(route, doc);
      }
      // The page sending its window elsewhere is a navigation the crawl did not ask for.
      if (request.isNavigationRequest() && request.frame() === page.mainFrame())
        return route.abort('aborted');
      // Kept out unless captured: a crawl that only reads the DOM has no use for them.
      const unneeded = capture === null && NOT_NEEDED.has(request.resourceType());
      if (unneeded || !this.s.allowRequest(request.url())) return route.abort('blockedbyclient');
      return route.continue();
    });
    // A page that never stops loading keeps what its scripts built by the deadline.
    let timedOut = false;
    try {
      await page.goto(doc.url, { waitUntil: 'load', timeout: left() });
    } catch (err) {
      if (!isTimeout(err)) throw err;
      timedOut = true;
    }
    if (!timedOut) {
      await page
        .waitForLoadState('networkidle', { timeout: Math.min(this.s.waitMs, left()) })
        .catch(() => {});
    }
    const html = await withDeadline(page.content(), Math.max(left(), 1000), 'reading the DOM');
    const shot = this.s.screenshot === true ? await screenshotOf(page, left()) : null;
    const captured = capture === null ? null : await capture.finish(left());
    return {
      ok: true,
      html,
      ...(captured === null ? {} : { captured }),
      ...(shot === null ? {} : { screenshot: shot }),
    };
  }

  /** The browser the next page goes to: a new one once the current has served its pages, or died. */
  private async browserForPage(): Promise<BrowserEntry> {
    if (this.closed) throw new Error('the renderer is closed');
    const now = this.current;
    if (now?.browser.isConnected() && now.served < this.s.recycleAfter) {
      now.served++;
      return now;
    }
    if (now !== null) {
      now.retired = true;
      this.current = null;
      if (now.open === 0 || !now.browser.isConnected()) this.dispose(now);
    }
    this.launching ??= this.launch().finally(() => {
      this.launching = null;
    });
    const entry = await this.launching;
    entry.served++;
    return entry;
  }

  private async launch(): Promise<BrowserEntry> {
    const { chromium } = await loadPlaywright();
    const browser = await chromium.launch({
      executablePath: this.s.executablePath,
      headless: true,
      timeout: 30_000,
      args: launchArgs(),
    });
    const entry: BrowserEntry = { browser, served: 0, open: 0, retired: false, contexts: new Map() };
    this.everyBrowser.add(entry);
    browser.on('disconnected', () => {
      if (this.current === entry) this.current = null;
      this.everyBrowser.delete(entry);
    });
    if (this.closed) {
      await browser.close().catch(() => {});
      throw new Error('the renderer is closed');
    }
    this.current = entry;
    return entry;
  }

  /** The host's context on this browser; the least recent idle one goes when there are too many. */
  private async contextFor(
    entry: BrowserEntry,
    host: string,
  ): Promise<{ context: BrowserContext; open: number }> {
    const known = entry.contexts.get(host);
    if (known !== undefined) {
      entry.contexts.delete(host);
      entry.contexts.set(host, known);
      return known;
    }
    if (entry.contexts.size >= MAX_CONTEXTS) {
      for (const [name, held] of entry.contexts) {
        if (held.open > 0) continue;
        entry.contexts.delete(name);
        void held.context.close().catch(() => {});
        break;
      }
    }
    const context = await withDeadline(
      entry.browser.newContext({
        userAgent: this.s.userAgent,
        acceptDownloads: false,
        serviceWorkers: 'block',
        viewport: { width: 1280, height: 1000 },
      }),
      this.s.timeoutMs,
      'opening a context',
    );
    const held = { context, open: 0 };
    entry.contexts.set(host, held);
    return held;
  }

  private dispose(entry: BrowserEntry): void {
    this.everyBrowser.delete(entry);
    void entry.browser.close().catch(() => {});
  }
}

/** The navigation answered with the crawl's response: its status and headers, its decoded body. */
function fulfilled(route: Route, doc: FetchedDocument): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(doc.headers)) {
    if (!WIRE_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return route.fulfill({ status: doc.status, headers, body: Buffer.from(doc.body) });
}

function launchArgs(): string[] {
  const args = [
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--mute-audio',
  ];
  // Chromium refuses to start its sandbox as root (a container's usual user).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}

/**
 * playwright-core, loaded by a crawl that renders. Required, not imported: the command
 * line's bundle runs as a script compiled from V8's code cache, where a dynamic import()
 * of a package has no loader to go to (yaml and pg load the same way).
 */
async function loadPlaywright(): Promise<typeof import('playwright-core')> {
  try {
    return createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new CrawlOptionError(
      '--render needs the playwright-core package, which is not installed: npm install playwright-core (no browser is downloaded with it).',
    );
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

function failure(err: unknown): RenderResult {
  const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
  if (isTimeout(err)) return { ok: false, error: 'render-timeout', message };
  if (/crash|closed|disconnected|Target page, context or browser has been closed/i.test(message))
    return { ok: false, error: 'render-crash', message };
  return { ok: false, error: 'render', message };
}

/** `promise`, or a TimeoutError after `ms`. */
function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`${what} took more than ${ms} ms`);
      err.name = 'TimeoutError';
      reject(err);
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
