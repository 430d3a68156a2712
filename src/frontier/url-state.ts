/**
 * A URL's state in a store: the state machine of docs/architecture.md, one numbering for
 * both stores (SQLite's urls.state, PostgreSQL's crawler_links.status). 0, 2 and 1 are
 * the seed crawler's codes from the design (queued, leased, done) and keep their
 * meaning; the rest sit beside them. SQLite stores of schema 3 and before numbered
 * leased 1 and done 2: schema 4 swapped them (src/frontier/sqlite/schema.ts).
 */
export const URL_STATE = {
  queued: 0,
  done: 1,
  /** Leased to a crawler: which hand-out and until when are the store's to keep. */
  leased: 2,
  failed: 3,
  rejected: 4,
  /** Rejected, its pages.jsonl line not yet acknowledged as written (by its holder). */
  rejectedUnlogged: 5,
  /** Failed without a fetch (its host was given up on), not yet acknowledged as written. */
  failedUnlogged: 6,
  /** Waiting for its retry time (due_at), then queued again. */
  retrying: 7,
} as const;

/** What a stored URL is: a page, a sitemap to read for more URLs, or a page's requisite. */
export const URL_KIND = { page: 0, sitemap: 1, requisite: 2 } as const;

/** A kind as a store's column holds it. */
export function kindCode(kind: 'page' | 'sitemap' | 'requisite' | undefined): number {
  return URL_KIND[kind ?? 'page'];
}

/** A store's kind column as a lease says it (an unknown code is a page). */
export function kindOf(code: number): 'page' | 'sitemap' | 'requisite' {
  return code === URL_KIND.sitemap ? 'sitemap' : code === URL_KIND.requisite ? 'requisite' : 'page';
}
