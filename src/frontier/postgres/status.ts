/**
 * A link's `status` in crawler_links. 0, 2 and 1 are the seed crawler's codes (queued,
 * claimed, done) and keep their meaning; the rest sit beside them. docs/postgres.md
 * draws the same table.
 */
export const LINK_STATUS = {
  queued: 0,
  done: 1,
  /** Leased to a crawler: leases (hand-outs so far) and lease_expires say which hand-out and until when. */
  claimed: 2,
  failed: 3,
  rejected: 4,
  /** Rejected, its pages.jsonl line not yet acknowledged as written by `holder`. */
  rejectedUnlogged: 5,
  /** Failed without a fetch (its host was given up on), not yet acknowledged as written. */
  failedUnlogged: 6,
  /** Waiting for its retry time (due_at), then queued again. */
  retrying: 7,
} as const;

export const LINK_KIND = { page: 0, sitemap: 1 } as const;
