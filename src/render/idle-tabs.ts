import type { Page } from 'playwright-core';

/**
 * Tabs kept open between pages, each in the host context that opened it, at most `max` in
 * all (the oldest closed first): opening a tab costs a new target, its renderer's setup
 * and a round of the DevTools protocol, which the next page of the host need not pay.
 * A tab here is blank (about:blank), its page's listeners and route gone (renderer.ts).
 */
export class IdleTabs<Owner> {
  private readonly tabs: { owner: Owner; page: Page }[] = [];

  constructor(private readonly max: number) {}

  /** An open tab of `owner`'s, the most recently kept; null: open a new one. */
  take(owner: Owner): Page | null {
    for (let i = this.tabs.length - 1; i >= 0; i--) {
      const tab = this.tabs[i];
      if (tab === undefined || tab.owner !== owner) continue;
      this.tabs.splice(i, 1);
      if (!tab.page.isClosed()) return tab.page;
    }
    return null;
  }

  /** Keeps `page` for `owner`'s next page; past `max`, the oldest kept tab is closed. */
  put(owner: Owner, page: Page): void {
    this.tabs.push({ owner, page });
    while (this.tabs.length > this.max) {
      const oldest = this.tabs.shift();
      void oldest?.page.close().catch(() => {});
    }
  }

  /** `owner` closed its tabs itself (its context or browser went): they are forgotten. */
  drop(owner: Owner): void {
    for (let i = this.tabs.length - 1; i >= 0; i--) if (this.tabs[i]?.owner === owner) this.tabs.splice(i, 1);
  }
}
