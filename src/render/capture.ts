import type { CDPSession, Page } from 'playwright-core';

/**
 * One response the browser got for a page's own request (a stylesheet, a script, an
 * image, a font, an XHR), as the browser saw it: what a replay needs, taken from the
 * browser rather than fetched a second time.
 */
export interface CapturedResponse {
  url: string;
  /** When the browser sent the request. */
  startedAt: Date;
  requestHeaders: Readonly<Record<string, string>>;
  status: number;
  statusText: string;
  /** As the browser received them; a header sent more than once has its values joined by '\n'. */
  headers: Readonly<Record<string, string>>;
  /** 'h2' when the browser spoke HTTP/2 (or later) to the host. */
  protocol: 'http/1.1' | 'h2';
  remoteAddress: string | null;
  /** Content-decoded: the browser hands back no other form. */
  body: Uint8Array;
}

interface Pending {
  url: string;
  startedAt: Date;
  requestHeaders: Record<string, string>;
  response?: {
    status: number;
    statusText: string;
    headers: Record<string, string>;
    protocol: 'http/1.1' | 'h2';
    remoteAddress: string | null;
  };
}

/** The parts of the DevTools protocol's Network events read here. */
interface RequestWillBeSent {
  requestId: string;
  request: { url: string; method: string; headers: Record<string, string> };
  wallTime: number;
  type?: string;
  redirectResponse?: unknown;
}
interface RequestExtraInfo {
  requestId: string;
  headers: Record<string, string>;
}
interface ResponseReceived {
  requestId: string;
  response: {
    url: string;
    status: number;
    statusText: string;
    headers: Record<string, string>;
    protocol?: string;
    remoteIPAddress?: string;
  };
}

/**
 * What a rendered page loads, read from the browser through the DevTools protocol, as
 * Browsertrix does: each GET the page makes within `keep` (the crawl's scope) whose
 * response the browser got in full (Network.loadingFinished) has its body asked for
 * (Network.getResponseBody) while the page is open. Documents (the page itself, its
 * frames) are pages of the crawl, not captured here; nor are redirects, failed loads, or
 * data: and blob: URLs.
 */
export class PageCapture {
  private readonly pending = new Map<string, Pending>();
  private readonly reading: Promise<void>[] = [];
  private readonly done: CapturedResponse[] = [];

  private constructor(
    private readonly session: CDPSession,
    private readonly keep: (url: string) => boolean,
  ) {}

  /** Starts listening on `page`: before its navigation, so nothing it loads is missed. */
  static async start(page: Page, keep: (url: string) => boolean): Promise<PageCapture> {
    const session = await page.context().newCDPSession(page);
    const capture = new PageCapture(session, keep);
    session.on('Network.requestWillBeSent', (e) => capture.requested(e as RequestWillBeSent));
    session.on('Network.requestWillBeSentExtraInfo', (e) => capture.requestExtra(e as RequestExtraInfo));
    session.on('Network.responseReceived', (e) => capture.responded(e as ResponseReceived));
    session.on('Network.loadingFinished', (e) => capture.finished((e as { requestId: string }).requestId));
    session.on('Network.loadingFailed', (e) =>
      capture.pending.delete((e as { requestId: string }).requestId),
    );
    await session.send('Network.enable', { maxTotalBufferSize: 64 * 1024 * 1024 });
    return capture;
  }

  /**
   * What was captured, once the bodies being read are in (at most `ms` more). Loads
   * still in flight are left out: the crawl fetches them itself, if its parse found them.
   */
  async finish(ms: number): Promise<CapturedResponse[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.all(this.reading), late]).finally(() => clearTimeout(timer));
    await this.session.detach().catch(() => {});
    return [...this.done];
  }

  private requested(e: RequestWillBeSent): void {
    // A redirect's next hop comes under the same id: what the first hop was is dropped.
    if (e.redirectResponse !== undefined) this.pending.delete(e.requestId);
    const url = e.request.url;
    if (e.request.method !== 'GET' || e.type === 'Document') return;
    if (!/^https?:/i.test(url) || !this.keep(url)) return;
    this.pending.set(e.requestId, {
      url,
      startedAt: new Date(e.wallTime * 1000),
      requestHeaders: { ...e.request.headers },
    });
  }

  /** The headers as sent on the wire (cookies included), when the browser tells them. */
  private requestExtra(e: RequestExtraInfo): void {
    const p = this.pending.get(e.requestId);
    if (p !== undefined) p.requestHeaders = { ...e.headers };
  }

  private responded(e: ResponseReceived): void {
    const p = this.pending.get(e.requestId);
    if (p === undefined) return;
    const r = e.response;
    if (r.status >= 300 && r.status < 400) return void this.pending.delete(e.requestId);
    p.response = {
      status: r.status,
      statusText: r.statusText,
      headers: { ...r.headers },
      protocol: r.protocol === undefined || r.protocol.startsWith('http/1') ? 'http/1.1' : 'h2',
      remoteAddress: r.remoteIPAddress ?? null,
    };
  }

  private finished(requestId: string): void {
    const p = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (p?.response === undefined) return;
    const response = p.response;
    this.reading.push(
      this.session
        .send('Network.getResponseBody', { requestId })
        .then(({ body, base64Encoded }) => {
          this.done.push({
            url: p.url,
            startedAt: p.startedAt,
            requestHeaders: p.requestHeaders,
            ...response,
            body: Buffer.from(body, base64Encoded ? 'base64' : 'utf8'),
          });
        })
        // Evicted from the browser's buffer, or the page went: not captured, fetched by the crawl if named.
        .catch(() => {}),
    );
  }
}
