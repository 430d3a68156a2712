import { queueRank } from '../policy/queue-rank.js';
import type { CrawlerId, PendingRecord, RecordId, StoredLink, StoredQuery } from '../types.js';
import { liveCrawlers } from './crawlers.js';
import { kindOf, URL_STATE } from './schema.js';
import type { StoredRow } from './statements.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

// URLs that will not be fetched: the records waiting to be written (refused, failed),
// and the final ones a later run asks for again (--retry-failed, revisits).

/** A final state as findStored() names it. */
const STORED_STATE: Record<number, StoredLink['state']> = {
  [URL_STATE.done]: 'done',
  [URL_STATE.failed]: 'failed',
  [URL_STATE.rejected]: 'refused',
};

/** acknowledge(): the records are written; they are final now. */
export function acknowledge(s: Store, ids: readonly RecordId[]): void {
  for (const id of ids) s.st.acknowledge.run(id);
}

/** reclaimRecords(): records not yet written, but those a live crawler other than this one holds. */
export function reclaimRecords(s: Store, crawler: CrawlerId, tx: Tx): PendingRecord[] {
  const live = liveCrawlers(s, tx.now);
  const rows = s.st.unlogged.all() as (PendingRecord & { holder: number | null })[];
  const mine: PendingRecord[] = [];
  for (const { holder, ...r } of rows) {
    if (holder !== null && holder !== crawler && live.has(holder)) continue;
    s.st.setHolder.run(crawler, r.id);
    mine.push(r);
  }
  return mine;
}

export function findStored(s: Store, query: StoredQuery, after: RecordId, limit: number): StoredLink[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const reasons = query.refusedFor ?? [];
  if (query.refused === true) where.push(`state = ${URL_STATE.rejected}`);
  else if (reasons.length > 0) {
    where.push(`(state = ${URL_STATE.rejected} AND error IN (${reasons.map(() => '?').join(', ')}))`);
    params.push(...reasons);
  }
  if (query.failed === true) where.push(`state = ${URL_STATE.failed}`);
  if (query.done === true) where.push(`state = ${URL_STATE.done}`);
  if (where.length === 0 || query.among?.length === 0) return [];
  const among = query.among ?? [];
  const rows = s.db
    .prepare(
      `SELECT seq AS id, url, depth, via, state, error AS reason FROM urls
         WHERE seq > ? AND (${where.join(' OR ')})
         ${among.length > 0 ? `AND url IN (${among.map(() => '?').join(', ')})` : ''}
         ORDER BY seq LIMIT ?`,
    )
    .all(after, ...params, ...among, limit) as (Omit<StoredLink, 'state'> & { state: number })[];
  return rows.map((r) => ({ ...r, state: STORED_STATE[r.state] ?? 'refused' }));
}

/** requeue(): failed or refused URLs queued again (as seeds: at depth 0); how many. */
export function requeueStored(
  s: Store,
  ids: readonly RecordId[],
  options: { asSeeds?: boolean },
  tx: Tx,
): number {
  let n = 0;
  for (const id of ids) {
    const row = s.st.storedRow.get(id) as StoredRow | undefined;
    if (row === undefined || (row.state !== URL_STATE.failed && row.state !== URL_STATE.rejected)) continue;
    (options.asSeeds === true ? s.st.requeueSeed : s.st.requeueFinal).run(id);
    if (row.state === URL_STATE.failed) tx.delta.failed--;
    else tx.delta.rejected--;
    const h = tx.hosts.host(row.host);
    if (h.retired) {
      // Asked for again on purpose: the host gets a fresh start.
      h.retired = false;
      tx.hosts.setBudget(h.budget, { ...tx.hosts.budget(h.budget), failures: 0 });
    }
    tx.hosts.queue(h, options.asSeeds === true ? queueRank(kindOf(row.kind), 0) : row.rank);
    s.heads?.forget(row.host);
    tx.delta.queued++;
    n++;
  }
  return n;
}
