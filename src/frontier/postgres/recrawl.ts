import { RECRAWL_BATCH, recrawlCutoff } from '../policy/recrawl.js';
import { URL_STATE } from '../url-state.js';
import type { Tx } from './tx.js';

const S = URL_STATE;

/** Done links fetched at or before the cutoff, of hosts not given up on, locked. */
const DUE = `SELECT l.id, l.host, l.rank FROM crawler_links l
  JOIN hosts h ON h.crawl = l.crawl AND h.host = l.host
  WHERE l.crawl = $1 AND l.status = ${S.done} AND l.fetched_at <= $2 AND NOT h.retired
  ORDER BY l.fetched_at LIMIT ${RECRAWL_BATCH} FOR UPDATE OF l SKIP LOCKED`;
const TO_QUEUE = `UPDATE crawler_links SET status = ${S.queued}, attempts = 0, updated_at = $2
  WHERE id = ANY($1::int8[])`;

/** requeueDue(): one batch of the URLs due again (policy/recrawl.ts) back in the queue; how many. */
export async function requeueDueBatch(tx: Tx, afterMs: number): Promise<number> {
  const cutoff = recrawlCutoff(tx.now, afterMs);
  if (cutoff === null) return 0;
  const rows = await tx.q<{ id: number; host: string; rank: number }>(DUE, [tx.crawl, cutoff]);
  if (rows.length === 0) return 0;
  await tx.hosts.lock(rows.map((r) => r.host));
  await tx.q(TO_QUEUE, [rows.map((r) => r.id), tx.now]);
  for (const r of rows) {
    tx.hosts.queue(tx.hosts.host(r.host), r.rank);
    tx.delta.done--;
    tx.delta.queued++;
  }
  return rows.length;
}
