import { noCounts, type StoreCounts } from '../store-counts.js';
import type { Query } from './database.js';
import { Params, type Part } from './params.js';

const FIELDS = [
  'queued',
  'leased',
  'retrying',
  'done',
  'failed',
  'rejected',
  'staleCompletions',
  'expiredLeases',
] as const;

/**
 * Each count's column in crawl_counts. Three keep the names migration 1 gave them
 * (claimed, stale, expired): the columns are storage, renaming them would take a
 * migration for a name only, and the statements read them under the counts' own names.
 */
const COLUMN: Record<keyof StoreCounts, string> = {
  queued: 'queued',
  leased: 'claimed',
  retrying: 'retrying',
  done: 'done',
  failed: 'failed',
  rejected: 'rejected',
  staleCompletions: 'stale',
  expiredLeases: 'expired',
};

/**
 * Slots of crawl_counts: more than the connections that write at once, so they rarely
 * share one (migration 3 took them from 32 to 256). A crawl has a row for each.
 */
export const COUNT_SLOTS = 256;

/** The crawl's counts, summed over its slots ($1: the crawl); a statement of its own or a subquery of one. */
export const COUNTS_SQL = `SELECT ${FIELDS.map((f) => `coalesce(sum(${COLUMN[f]}), 0)::bigint AS "${f}"`).join(', ')}
  FROM crawl_counts WHERE crawl = $1`;

/** The crawl's counts as this transaction sees them (its own changes written already). */
export async function readCounts(q: Query, crawl: number): Promise<StoreCounts> {
  const [row] = await q<StoreCounts>(COUNTS_SQL, [crawl]);
  return row ?? noCounts();
}

/**
 * The UPDATE that adds a transaction's changes to its connection's slot, to run on its
 * own or in the WITH list of a statement that writes more; null when nothing changed.
 * `more`: SQL of counts only the statement itself knows (the rows it inserted), added too.
 */
export function countsUpdate(
  p: Params,
  crawl: number,
  d: StoreCounts,
  more: Partial<Record<keyof StoreCounts, string>> = {},
): Part {
  const changed = FIELDS.filter((f) => d[f] !== 0 || more[f] !== undefined);
  if (changed.length === 0) return null;
  const sets = changed.map((f) => {
    const terms: string[] = [COLUMN[f]];
    if (d[f] !== 0) terms.push(p.add(d[f]));
    if (more[f] !== undefined) terms.push(`(${more[f]})`);
    return `${COLUMN[f]} = ${terms.join(' + ')}`;
  });
  return `UPDATE crawl_counts SET ${sets.join(', ')}
  WHERE crawl = ${p.add(crawl)} AND slot = pg_backend_pid() % ${COUNT_SLOTS}`;
}

/** Adds a transaction's changes to its connection's slot (nothing when nothing changed). */
export async function addCounts(q: Query, crawl: number, d: StoreCounts): Promise<void> {
  const p = new Params();
  const sql = countsUpdate(p, crawl, d);
  if (sql !== null) await q(sql, p.values);
}

export const CREATE_SLOTS = `INSERT INTO crawl_counts (crawl, slot)
  SELECT $1, s FROM generate_series(0, ${COUNT_SLOTS - 1}) s ON CONFLICT DO NOTHING`;
