import type { Page } from 'playwright-core';

interface Kept<Owner> {
  owner: Owner;
  /** The tab once it is ready for a page (blanked, or opened); null: it could not be, and is closed. */
  tab: Promise<Page | null>;
}

/**
 * Tabs kept open between pages, each in the host context that opened it, at most `max` in
 * all (the oldest closed first): opening a tab costs a new target, its renderer's setup
 * and a round of the DevTools protocol, which the next page of the host need not pay.
 * A tab is put here as it is being made ready (blanked, or opened in place of one that
 * served its pages: renderer.ts), which goes on while the crawl reads the page rendered;
 * the next page of its host waits for that rather than open a tab of its own.
 */
export class IdleTabs<Owner> {
  private readonly kept: Kept<Owner>[] = [];

  constructor(private readonly max: number) {}

  /** A blank tab of `owner`'s, the most recently kept; null: open a new one. */
  async take(owner: Owner): Promise<Page | null> {
    for (;;) {
      const at = this.kept.findLastIndex((k) => k.owner === owner);
      const kept = this.kept[at];
      if (kept === undefined) return null;
      this.kept.splice(at, 1);
      const page = await kept.tab;
      if (page !== null && !page.isClosed()) return page;
    }
  }

  /** Keeps `tab` for `owner`'s next page once ready; past `max`, the oldest kept tab is closed. */
  put(owner: Owner, tab: Promise<Page | null>): void {
    this.kept.push({ owner, tab });
    while (this.kept.length > this.max) {
      const oldest = this.kept.shift();
      void oldest?.tab.then((page) => page?.close()).catch(() => {});
    }
  }

  /** `owner` closed its tabs itself (its context or browser went): they are forgotten. */
  drop(owner: Owner): void {
    for (let i = this.kept.length - 1; i >= 0; i--) if (this.kept[i]?.owner === owner) this.kept.splice(i, 1);
  }
}
