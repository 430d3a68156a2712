import { REQUISITE_RANK } from '../policy/queue-rank.js';
import type { StoreCounts } from '../store-counts.js';
import { URL_STATE } from './schema.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

// Crawl passes (--passes): the store leases only URLs shallower than the pass's depth
// (Store.passDepth, set by setPassDepth) and says when the pass is over. A host's
// min_rank is a depth, or a requisite's depth past REQUISITE_RANK (policy/queue-rank.ts).
// A requisite queued behind a deeper page of its host is not seen by these: it is
// leased in the pass of that page's depth.

/** The shallowest depth still waiting (queued or retrying), or null: where the next pass starts. */
export function shallowestWaiting(s: Store): number | null {
  const host = s.db
    .prepare(
      `SELECT min(CASE WHEN min_rank >= ${REQUISITE_RANK} THEN min_rank - ${REQUISITE_RANK} ELSE min_rank END)
         FROM hosts WHERE queued > 0 AND retired = 0`,
    )
    .pluck()
    .get() as number | null;
  const retry = s.db
    .prepare(`SELECT min(depth) FROM urls WHERE state = ${URL_STATE.retrying}`)
    .pluck()
    .get() as number | null;
  const known = [host, retry].filter((d): d is number => d !== null);
  return known.length === 0 ? null : Math.min(...known);
}

/** With a pass under way: 'finished' once nothing shallower than its depth is queued, leased or retrying. */
export function passEnd(s: Store, after: StoreCounts, tx: Tx): 'finished' | null {
  if (!Number.isFinite(s.passDepth) || after.leased > 0) return null;
  // The hosts read below must see this transaction's claims.
  tx.hosts.flush();
  const queued = s.db
    .prepare(
      `SELECT 1 FROM hosts WHERE queued > 0 AND retired = 0
         AND (min_rank < ? OR min_rank BETWEEN ${REQUISITE_RANK} AND ? - 1) LIMIT 1`,
    )
    .get(s.passDepth, REQUISITE_RANK + s.passDepth);
  if (queued !== undefined) return null;
  const retrying = s.db
    .prepare(`SELECT 1 FROM urls WHERE state = ${URL_STATE.retrying} AND depth < ? LIMIT 1`)
    .get(s.passDepth);
  return retrying === undefined ? 'finished' : null;
}
