import { queueRank } from '../policy/queue-rank.js';
import type { RecordId, StoredLink, StoredQuery } from '../types.js';
import { kindOf, URL_STATE } from '../url-state.js';
import type { Query } from './database.js';
import { fingerprintText } from './link-inserts.js';
import type { Tx } from './tx.js';

const S = URL_STATE;

/** A final status as findStored() names it. */
const STORED_STATE: Record<number, StoredLink['state']> = {
  [S.done]: 'done',
  [S.failed]: 'failed',
  [S.rejected]: 'refused',
};

/**
 * findStored(): the crawl's URLs with a final outcome of the kinds asked for (they add
 * up), after `after` in store order. `among` narrows them to those URLs, looked up by
 * fingerprint (the crawl's unique index) and then by the URL itself, so another URL of
 * the same fingerprint is not taken for it. Records not yet acknowledged as written are
 * not final yet, and are not found.
 */
export async function findStored(
  q: Query,
  crawl: number,
  query: StoredQuery,
  after: RecordId,
  limit: number,
): Promise<StoredLink[]> {
  const params: unknown[] = [crawl, after, limit];
  const param = (value: unknown) => `$${params.push(value)}`;
  const kinds: string[] = [];
  const reasons = query.refusedFor ?? [];
  if (query.refused === true) kinds.push(`status = ${S.rejected}`);
  else if (reasons.length > 0)
    kinds.push(`(status = ${S.rejected} AND error = ANY(${param(reasons)}::text[]))`);
  if (query.failed === true) kinds.push(`status = ${S.failed}`);
  if (query.done === true) kinds.push(`status = ${S.done}`);
  const among = query.among;
  if (kinds.length === 0 || among?.length === 0) return [];
  const narrowed =
    among === undefined
      ? ''
      : `AND fingerprint = ANY(${param(among.map(fingerprintText))}::int8[]) AND url = ANY(${param(among)}::text[])`;
  const rows = await q<Omit<StoredLink, 'state'> & { status: number }>(
    `SELECT id, url, depth, via, status, error AS reason FROM crawler_links
     WHERE crawl = $1 AND id > $2 AND (${kinds.join(' OR ')}) ${narrowed}
     ORDER BY id LIMIT $3`,
    params,
  );
  return rows.map(({ status, ...r }) => ({ ...r, state: STORED_STATE[status] ?? 'refused' }));
}

/**
 * requeue(): refused or failed URLs go back to the queue with their tries forgotten;
 * `asSeeds` puts them at depth 0 with no referrer, as the seeds they are given as now.
 * A host given up on gets a fresh start, since its URLs are asked for on purpose.
 * Resolves to how many were queued.
 */
export async function requeueStored(
  tx: Tx,
  ids: readonly RecordId[],
  options: { asSeeds?: boolean },
): Promise<number> {
  const asSeeds = options.asSeeds === true;
  const rows = await tx.q<{ id: number; host: string; rank: number; kind: number; status: number }>(
    `SELECT id, host, rank, kind, status FROM crawler_links WHERE crawl = $1 AND id = ANY($2::int8[])
       AND status IN (${S.failed}, ${S.rejected}) ORDER BY id FOR UPDATE`,
    [tx.crawl, ids],
  );
  if (rows.length === 0) return 0;
  await tx.hosts.lock(rows.map((r) => r.host));
  await tx.q(
    `UPDATE crawler_links SET status = ${S.queued}, error = NULL, attempts = 0, updated_at = $2
       ${asSeeds ? ', depth = 0, via = NULL' : ''}
     WHERE id = ANY($1::int8[])`,
    [rows.map((r) => r.id), tx.now],
  );
  for (const r of rows) {
    if (r.status === S.failed) tx.delta.failed--;
    else tx.delta.rejected--;
    const h = tx.hosts.host(r.host);
    if (h.retired) {
      h.retired = false;
      tx.hosts.setBudget(h.budget, { ...tx.hosts.budget(h.budget), failures: 0 });
    }
    tx.hosts.queue(h, asSeeds ? queueRank(kindOf(r.kind), 0) : r.rank);
    tx.delta.queued++;
  }
  return rows.length;
}
