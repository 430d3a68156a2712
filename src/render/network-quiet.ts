import type { Page } from 'playwright-core';

/**
 * How long a rendered page's network must stay quiet (no request under way) after its
 * load event before its DOM is read. Playwright's `networkidle` waits 500 ms, which was
 * 40% of a rendered page's time in `npm run bench:render`; a fetch that a script or a
 * response starts at load is under way well within 250 ms. A page whose requests chain
 * on is waited for until `--render-wait` runs out.
 */
export const QUIET_MS = 250;

/** How often the count is looked at while waiting: a fraction of QUIET_MS. */
const LOOK_EVERY_MS = 25;

/**
 * The requests of one page under way, counted from the browser's own events (a request
 * the crawl refused fails, so it ends too), to tell when its network has gone quiet.
 * Watch before the navigation starts, so the page's first requests are counted.
 */
export class NetworkQuiet {
  private underWay = 0;
  private changedAt = Date.now();
  private readonly started = (): void => this.change(1);
  private readonly ended = (): void => this.change(-1);

  constructor(private readonly page: Page) {
    page.on('request', this.started);
    page.on('requestfinished', this.ended);
    page.on('requestfailed', this.ended);
  }

  /** The page is done: a tab kept for the next page counts that page's requests, not these. */
  stop(): void {
    this.page.off('request', this.started);
    this.page.off('requestfinished', this.ended);
    this.page.off('requestfailed', this.ended);
  }

  private change(by: number): void {
    this.underWay = Math.max(0, this.underWay + by);
    this.changedAt = Date.now();
  }

  /** Resolves once no request has been under way for `quietMs`, or after `capMs` at most. */
  async settle(capMs: number, quietMs = QUIET_MS): Promise<void> {
    const giveUpAt = Date.now() + capMs;
    for (;;) {
      const now = Date.now();
      if (now >= giveUpAt) return;
      const quietFor = this.underWay === 0 ? now - this.changedAt : 0;
      if (quietFor >= quietMs) return;
      const wait = Math.min(giveUpAt - now, quietMs - quietFor, LOOK_EVERY_MS);
      await new Promise((r) => setTimeout(r, Math.max(1, wait)));
    }
  }
}
