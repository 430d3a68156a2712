import type { Page } from 'playwright-core';

interface Kept<Owner> {
  owner: Owner;
  page: Page;
  /** Resolves once the tab is blank: true, it may serve a page; false, it was closed. */
  ready: Promise<boolean>;
}

/**
 * Tabs kept open between pages, each in the host context that opened it, at most `max` in
 * all (the oldest closed first): opening a tab costs a new target, its renderer's setup
 * and a round of the DevTools protocol, which the next page of the host need not pay.
 * A tab is put here as it is being blanked (renderer.ts), which goes on while the crawl
 * reads the page it rendered; the next page of its host waits for that, not a new tab.
 */
export class IdleTabs<Owner> {
  private readonly tabs: Kept<Owner>[] = [];

  constructor(private readonly max: number) {}

  /** A blank tab of `owner`'s, the most recently kept; null: open a new one. */
  async take(owner: Owner): Promise<Page | null> {
    for (;;) {
      const at = this.tabs.findLastIndex((t) => t.owner === owner);
      const kept = this.tabs[at];
      if (kept === undefined) return null;
      this.tabs.splice(at, 1);
      if ((await kept.ready) && !kept.page.isClosed()) return kept.page;
    }
  }

  /** Keeps `page` for `owner`'s next page once `ready`; past `max`, the oldest kept tab is closed. */
  put(owner: Owner, page: Page, ready: Promise<boolean>): void {
    this.tabs.push({ owner, page, ready });
    while (this.tabs.length > this.max) {
      const oldest = this.tabs.shift();
      void oldest?.ready.then(() => oldest.page.close()).catch(() => {});
    }
  }

  /** `owner` closed its tabs itself (its context or browser went): they are forgotten. */
  drop(owner: Owner): void {
    for (let i = this.tabs.length - 1; i >= 0; i--) if (this.tabs[i]?.owner === owner) this.tabs.splice(i, 1);
  }
}
