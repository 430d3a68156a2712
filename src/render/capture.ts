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

/** What Chromium may hold of one page's bodies until they are read. */
const TOTAL_BUFFER_BYTES = 64 * 1024 * 1024;

/** A transfer's heads, counted in encodedDataLength along with its body. */
const HEADS_ALLOWANCE = 64 * 1024;

interface Pending {
  url: string;
  startedAt: Date;
  requestHeaders: Record<string, string>;
  /** Body bytes the browser received, decoded (Network.dataReceived): what a whole body holds. */
  received: number;
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
interface LoadingFinished {
  requestId: string;
  /** Bytes on the wire, heads included. */
  encodedDataLength: number;
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
    private readonly maxBodyBytes: number,
    private readonly fromMemory: (url: string) => boolean,
  ) {}

  /**
   * Starts listening on `page`: before its navigation, so nothing it loads is missed.
   * `fromMemory(url)`: the page was answered from the renderer's memory (subresource-memo.ts),
   * not the network; that response was captured when it went out.
   */
  static async start(
    page: Page,
    keep: (url: string) => boolean,
    limits: { maxBodyBytes: number },
    fromMemory: (url: string) => boolean = () => false,
  ): Promise<PageCapture> {
    const session = await page.context().newCDPSession(page);
    const capture = new PageCapture(session, keep, limits.maxBodyBytes, fromMemory);
    session.on('Network.requestWillBeSent', (e) => capture.requested(e as RequestWillBeSent));
    session.on('Network.requestWillBeSentExtraInfo', (e) => capture.requestExtra(e as RequestExtraInfo));
    session.on('Network.responseReceived', (e) => capture.responded(e as ResponseReceived));
    session.on('Network.dataReceived', (e) =>
      capture.received(e as { requestId: string; dataLength: number }),
    );
    session.on('Network.loadingFinished', (e) => capture.finished(e as LoadingFinished));
    session.on('Network.loadingFailed', (e) =>
      capture.pending.delete((e as { requestId: string }).requestId),
    );
    await session.send('Network.enable', {
      maxTotalBufferSize: Math.max(TOTAL_BUFFER_BYTES, limits.maxBodyBytes),
    });
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
    await this.stop();
    return [...this.done];
  }

  /** Stops listening: the tab may serve another page, whose loads are that page's capture's. */
  async stop(): Promise<void> {
    await this.session.detach().catch(() => {});
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
      received: 0,
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
    // A redirect is followed under the same id; a part of a file (media asks by Range) is not the file.
    if ((r.status >= 300 && r.status < 400) || r.status === 206) return void this.pending.delete(e.requestId);
    p.response = {
      status: r.status,
      statusText: r.statusText,
      headers: { ...r.headers },
      protocol: r.protocol === undefined || r.protocol.startsWith('http/1') ? 'http/1.1' : 'h2',
      remoteAddress: r.remoteIPAddress ?? null,
    };
  }

  private received(e: { requestId: string; dataLength: number }): void {
    const p = this.pending.get(e.requestId);
    if (p !== undefined) p.received += e.dataLength;
  }

  /**
   * A body past --max-body is not kept (not even read when its transfer was already
   * bigger): the crawl fetches the file itself if its parse found it, and records it as
   * too large, as it does any.
   */
  private finished({ requestId, encodedDataLength }: LoadingFinished): void {
    const p = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (p?.response === undefined || encodedDataLength > this.maxBodyBytes + HEADS_ALLOWANCE) return;
    if (this.fromMemory(p.url)) return;
    const response = p.response;
    this.reading.push(
      this.session
        .send('Network.getResponseBody', { requestId })
        .then(({ body, base64Encoded }) => {
          const bytes = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
          // Chromium keeps no body of an image it could not decode, and answers with an
          // empty one: a body shorter than what arrived is not archived, and the crawl
          // fetches the file itself if its parse found it.
          if (bytes.length > this.maxBodyBytes || bytes.length !== p.received) return;
          this.done.push({
            url: p.url,
            startedAt: p.startedAt,
            requestHeaders: p.requestHeaders,
            ...response,
            body: bytes,
          });
        })
        // Evicted from the browser's buffer, or the page went: not captured, fetched by the crawl if named.
        .catch(() => {}),
    );
  }
}
