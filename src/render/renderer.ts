import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { CrawlOptionError } from '../errors.js';
import { PageCookies, type SharedJar } from './browser-cookies.js';
import { browserPid, processTreeBytes } from './browser-memory.js';
import { type CapturedResponse, PageCapture } from './capture.js';
import { IdleTabs } from './idle-tabs.js';
import { NetworkQuiet } from './network-quiet.js';
import { domElements, guardContext, guardPage } from './page-guards.js';
import { PageRequests, type SubrequestCounts } from './page-requests.js';
import { screenshotOf } from './screenshot.js';
import { servedHeaders } from './served-headers.js';
import type { SubresourceGate } from './subresource-gate.js';
import { SubresourceMemo } from './subresource-memo.js';

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
  /**
   * --render-memory, in bytes: a browser whose processes pass it (browser-memory.ts) is
   * replaced after its open pages; one page's script heap is held to it (at least 1 GB).
   */
  memoryCapBytes: number;
  /** A rendered DOM longer than this (characters) is not kept, as a body past the crawl's --max-body is not. */
  maxHtmlChars: number;
  /** Hears what the pool did that a user may want to know: a browser replaced, or lost. */
  onEvent?: ((line: string, level: 'info' | 'warning') => void) | undefined;
  userAgent: string;
  /**
   * Whether the page may make this request of its own (a script, a stylesheet, an XHR):
   * the crawl's scope, so a rendered page reaches no host the crawl would not.
   */
  allowRequest: (url: string) => boolean;
  /** The page's own requests: their hosts' turns and the page's cap (page-requests.ts); none: sent as the page asks. */
  subresources?: { gate: SubresourceGate; perPage: number } | undefined;
  /** The crawl's cookie jar, one session with each host's context (browser-cookies.ts). */
  cookies?: SharedJar | undefined;
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

export type RenderResult = (
  | { ok: true; html: string; captured?: CapturedResponse[]; screenshot?: Uint8Array }
  /** `error`: a short reason ('render-timeout', 'render-crash', 'render-too-large', 'render'); `message`: what happened. */
  | { ok: false; error: string; message: string }
) & { subrequests?: SubrequestCounts };

/** What a page never gets from the browser: the DOM is what a rendered crawl wants of it. */
const NOT_NEEDED = new Set(['image', 'media', 'font']);

/**
 * A DOM with more elements is not read: serializing it would take the page's deadline (a
 * million elements, about 50 MB of HTML, take half a minute), and its HTML would pass
 * --max-body's default besides. Pages people read have a few thousand.
 */
const MAX_DOM_ELEMENTS = 200_000;

/** Host contexts kept per browser: each keeps its cookies and cache for the host's next page. */
const MAX_CONTEXTS = 32;

/** A host context's memory of its pages' stylesheets, scripts, fonts and images (subresource-memo.ts). */
const MEMO_BYTES = 4 * 2 ** 20;

/**
 * Pages one tab serves before it is closed: its renderer process keeps the memory of the
 * pages it ran (3 to 4 MB each on the bench's site: 180 MB after 30 pages, 70 MB with a
 * garbage collection after each, which took 30 to 45 ms a page), and a new tab starts
 * with a new process, opened while the crawl reads the page (as a tab is blanked). At 5, a
tab's process stays under about 80 MB.
 */
const PAGES_PER_TAB = 5;

/** Sending a kept tab to about:blank takes a few milliseconds; one that takes this long is closed instead. */
const BLANK_TIMEOUT_MS = 5000;

/**
 * What a page leaves in its tab that the next page of the origin would see: its session
 * storage (kept per tab and origin across navigations) and the window's name. The rest of
 * a page (its script's state, timers, listeners, DOM) goes with its document.
 */
const FORGET_PAGE = "try { sessionStorage.clear(); } catch {} window.name = '';";

interface BrowserEntry {
  browser: Browser;
  /** Pages given to this browser, open or done. */
  served: number;
  open: number;
  retired: boolean;
  /** Its process id, for its memory; null: not known, not measured. */
  pid: number | null;
  /** Its processes passed the memory cap: no new page goes to it. */
  overMemory: boolean;
  /** When its memory was last read (ms); at most once a second. */
  measuredAt: number;
  contexts: Map<string, HostContext>;
}

/** A host's context on a browser: its pages open now, and what they fetched, kept for the next. */
interface HostContext {
  context: BrowserContext;
  open: number;
  memo: SubresourceMemo;
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
  /** Blank tabs kept for their host's next page, as many as pages render at once. */
  private readonly idle: IdleTabs<HostContext>;
  /** Pages each open tab has served. */
  private readonly tabPages = new WeakMap<Page, number>();

  constructor(private readonly s: RenderSettings) {
    this.idle = new IdleTabs(s.concurrency);
  }

  /**
   * The page's DOM after its scripts ran, serialized. Never throws: a page that fails
   * (a timeout, a crashed renderer or browser) is retried once on a new page after a
   * browser crash, and else answered with why.
   */
  async render(doc: FetchedDocument): Promise<RenderResult> {
    await this.slot();
    const sub = this.s.subresources;
    const requests =
      sub === undefined ? null : new PageRequests(sub.gate, sub.perPage, Date.now() + this.s.timeoutMs);
    let result: RenderResult;
    try {
      try {
        result = await this.renderOnce(doc, requests);
      } catch (err) {
        if (!this.browserGone()) throw err;
        // The browser died under the page (not the page's fault, maybe): once more on a new one.
        requests?.abandon();
        result = await this.renderOnce(doc, requests);
      }
    } catch (err) {
      result = failure(err);
    } finally {
      requests?.end();
      this.active--;
      this.waiting.shift()?.();
    }
    return requests === null ? result : { ...result, subrequests: { ...requests.counts } };
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

  private async renderOnce(doc: FetchedDocument, requests: PageRequests | null): Promise<RenderResult> {
    const entry = await this.browserForPage();
    const host = new URL(doc.url).host;
    entry.open++;
    let page: Page | null = null;
    let held: HostContext | null = null;
    let clean = false;
    try {
      held = await this.contextFor(entry, host);
      held.open++;
      const cookies = this.s.cookies === undefined ? null : new PageCookies(this.s.cookies, held.context);
      await cookies?.toBrowser(doc.url);
      page = (await this.idle.take(held)) ?? (await this.openTab(held.context));
      try {
        const done = await this.drive(page, held, doc, requests, cookies);
        clean = done.clean;
        return done.result;
      } finally {
        await cookies?.toJar().catch(() => {});
      }
    } finally {
      if (page !== null && held !== null) await this.afterPage(entry, held, page, clean);
      if (held !== null) held.open--;
      entry.open--;
      this.measure(entry);
      if (entry.retired && entry.open === 0) this.dispose(entry);
    }
  }

  /** A new tab in the host's context, guarded for as long as it lives. */
  private async openTab(context: BrowserContext): Promise<Page> {
    const page = await withDeadline(context.newPage(), this.s.timeoutMs, 'opening a page');
    guardPage(page);
    return page;
  }

  /**
   * The tab after its page: kept for the host's next page when the page ended well and its
   * browser and context stay, blanked meanwhile (not waited for here: the crawl reads the
   * page as the tab goes blank); closed when the page failed (crashed, too large, cut off
   * at its deadline with its scripts maybe still running), or could not be blanked.
   */
  private async afterPage(entry: BrowserEntry, held: HostContext, page: Page, clean: boolean): Promise<void> {
    const served = (this.tabPages.get(page) ?? 0) + 1;
    this.tabPages.set(page, served);
    const stays =
      clean &&
      !this.closed &&
      !entry.retired &&
      !entry.overMemory &&
      entry.browser.isConnected() &&
      [...entry.contexts.values()].includes(held);
    if (stays && served < PAGES_PER_TAB) return this.idle.put(held, blank(page));
    await page.close().catch(() => {});
    // A tab for the host's next page, opened while the crawl reads this one.
    if (stays)
      this.idle.put(
        held,
        this.openTab(held.context).catch(() => null),
      );
  }

  /**
   * Navigation served from the fetch, load, a quiet network for at most waitMs, the DOM:
   * within timeoutMs. `clean`: the page ended well, its tab may serve the next.
   */
  private async drive(
    page: Page,
    held: HostContext,
    doc: FetchedDocument,
    requests: PageRequests | null,
    cookies: PageCookies | null,
  ): Promise<{ result: RenderResult; clean: boolean }> {
    const deadline = Date.now() + this.s.timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    let served = false;
    // What the memory answered is not archived again: it was when it went out.
    const fromMemory = new Set<string>();
    const capture = this.s.capture
      ? await PageCapture.start(
          page,
          (url) => this.s.allowRequest(url),
          this.s.capture,
          (url) => fromMemory.has(url),
        )
      : null;
    const network = new NetworkQuiet(page);
    const over = (request: Request): void => {
      requests?.over(request);
      void held.memo.learn(request);
    };
    page.on('requestfinished', over);
    page.on('requestfailed', over);
    // Set once the page is done: its tab still runs its scripts until it is blanked, and
    // nothing they ask for may leave (nor anything that was waiting for its host's turn).
    let ended = false;
    const route = async (route: Route): Promise<void> => {
      const request = route.request();
      if (ended) return route.abort('aborted').catch(() => {});
      if (!served && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        served = true;
        return fulfilled(route, doc).catch(() => {});
      }
      // The page sending its window elsewhere is a navigation the crawl did not ask for.
      if (request.isNavigationRequest() && request.frame() === page.mainFrame())
        return route.abort('aborted').catch(() => {});
      // Kept out unless captured: a crawl that only reads the DOM has no use for them.
      const unneeded = capture === null && NOT_NEEDED.has(request.resourceType());
      if (unneeded || !this.s.allowRequest(request.url())) {
        requests?.refuse();
        return route.abort('blockedbyclient').catch(() => {});
      }
      const remembered = held.memo.get(request);
      if (remembered !== null) {
        fromMemory.add(request.url());
        return route.fulfill(remembered).catch(() => {});
      }
      await cookies?.toBrowser(request.url()).catch(() => {});
      if (requests !== null && !(await requests.admit(request)))
        return route.abort('blockedbyclient').catch(() => {});
      if (ended) {
        requests?.over(request);
        return route.abort('aborted').catch(() => {});
      }
      return route.continue().catch(() => {});
    };
    await page.route('**/*', route);
    try {
      return await this.load(page, doc, capture, network, left);
    } finally {
      // The tab may serve the host's next page: nothing of this one's may hear it. Its
      // route stays, refusing, until the tab is blank or closed (afterPage): without it,
      // the page's timers would reach the host unasked while the crawl reads the page.
      ended = true;
      network.stop();
      page.off('requestfinished', over);
      page.off('requestfailed', over);
      await capture?.stop();
    }
  }

  private async load(
    page: Page,
    doc: FetchedDocument,
    capture: PageCapture | null,
    network: NetworkQuiet,
    left: () => number,
  ): Promise<{ result: RenderResult; clean: boolean }> {
    // A page that never stops loading keeps what its scripts built by the deadline.
    let timedOut = false;
    try {
      await page.goto(doc.url, { waitUntil: 'load', timeout: left() });
    } catch (err) {
      if (!isTimeout(err)) throw err;
      timedOut = true;
    }
    // --render-wait 0: the load event is enough (Playwright would read a 0 timeout as none).
    if (!timedOut && this.s.waitMs > 0) {
      await network.settle(Math.min(this.s.waitMs, left()));
    }
    const elements = await withDeadline(domElements(page), Math.max(left(), 1000), 'counting the DOM');
    if (elements > MAX_DOM_ELEMENTS) {
      const message = `the rendered DOM has ${elements} elements, more than ${MAX_DOM_ELEMENTS}: not read`;
      return { result: { ok: false, error: 'render-too-large', message }, clean: false };
    }
    const html = await withDeadline(page.content(), Math.max(left(), 1000), 'reading the DOM');
    if (html.length > this.s.maxHtmlChars) {
      const message = `the rendered DOM is ${html.length} characters, more than --max-body (${this.s.maxHtmlChars})`;
      return { result: { ok: false, error: 'render-too-large', message }, clean: false };
    }
    const shot = this.s.screenshot === true ? await screenshotOf(page, left()) : null;
    const captured = capture === null ? null : await capture.finish(left());
    const result: RenderResult = {
      ok: true,
      html,
      ...(captured === null ? {} : { captured }),
      ...(shot === null ? {} : { screenshot: shot }),
    };
    return { result, clean: !timedOut };
  }

  /** The browser the next page goes to: a new one once the current has served its pages, or died. */
  private async browserForPage(): Promise<BrowserEntry> {
    if (this.closed) throw new Error('the renderer is closed');
    const now = this.current;
    if (now?.browser.isConnected() && now.served < this.s.recycleAfter && !now.overMemory) {
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
      args: [...launchArgs(), scriptHeapArg(this.s.memoryCapBytes)],
    });
    const entry: BrowserEntry = {
      browser,
      served: 0,
      open: 0,
      retired: false,
      pid: await browserPid(browser),
      overMemory: false,
      measuredAt: 0,
      contexts: new Map(),
    };
    this.everyBrowser.add(entry);
    browser.on('disconnected', () => {
      if (this.current === entry) this.current = null;
      this.everyBrowser.delete(entry);
      for (const held of entry.contexts.values()) this.idle.drop(held);
      if (!entry.retired && !this.closed)
        this.s.onEvent?.(
          `the browser quit by itself (crashed or killed) with ${entry.open} pages open: they are rendered once more in a new browser`,
          'warning',
        );
    });
    if (this.closed) {
      await browser.close().catch(() => {});
      throw new Error('the renderer is closed');
    }
    this.current = entry;
    return entry;
  }

  /** The host's context on this browser; the least recent idle one goes when there are too many. */
  private async contextFor(entry: BrowserEntry, host: string): Promise<HostContext> {
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
        this.idle.drop(held);
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
    await withDeadline(guardContext(context), this.s.timeoutMs, 'setting up a context');
    const held: HostContext = { context, open: 0, memo: new SubresourceMemo(MEMO_BYTES) };
    entry.contexts.set(host, held);
    return held;
  }

  /**
   * After a page: the browser's processes' memory, at most once a second; past the cap,
   * the browser gets no new page and closes when its open pages are done (as at recycleAfter).
   */
  private measure(entry: BrowserEntry): void {
    const now = Date.now();
    if (entry.pid === null || entry.retired || entry.overMemory || now - entry.measuredAt < 1000) return;
    entry.measuredAt = now;
    const bytes = processTreeBytes(entry.pid);
    if (bytes <= this.s.memoryCapBytes) return;
    entry.overMemory = true;
    this.s.onEvent?.(
      `the browser is replaced: its processes hold ${mb(bytes)} MB, more than --render-memory ${mb(this.s.memoryCapBytes)} MB`,
      'info',
    );
  }

  private dispose(entry: BrowserEntry): void {
    this.everyBrowser.delete(entry);
    for (const held of entry.contexts.values()) this.idle.drop(held);
    void entry.browser.close().catch(() => {});
  }
}

/** `page` cleared of what its page left and sent to about:blank; null: it could not be, and is closed. */
async function blank(page: Page): Promise<Page | null> {
  try {
    await withDeadline(page.evaluate(FORGET_PAGE), BLANK_TIMEOUT_MS, 'clearing a tab');
    await page.goto('about:blank', { timeout: BLANK_TIMEOUT_MS });
    // Nothing of the page is left to ask: its route goes. A handler still waiting (a host's
    // turn, a cookie) finds it gone; its error is the page's, which is over, and must not
    // reach the process as an unhandled one.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    return page;
  } catch {
    await page.close().catch(() => {});
    return null;
  }
}

/** The navigation answered with the crawl's response: its status and headers, its decoded body. */
function fulfilled(route: Route, doc: FetchedDocument): Promise<void> {
  // Content-Disposition would make an attachment a download, not a page: the crawl has its bytes already.
  const headers = servedHeaders(doc.headers, ['content-disposition']);
  return route.fulfill({ status: doc.status, headers, body: Buffer.from(doc.body) });
}

/**
 * One page's JavaScript heap, held to the browser's memory cap (at least 1024 MB; at 512 MB
 * a page of 50 MB of DOM thrashes its collector past any deadline): a page that eats memory
 * crashes its own renderer ('render-crash') before it takes the machine.
 */
function scriptHeapArg(memoryCapBytes: number): string {
  return `--js-flags=--max-old-space-size=${Math.max(1024, Math.floor(memoryCapBytes / 2 ** 20))}`;
}

function mb(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
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
