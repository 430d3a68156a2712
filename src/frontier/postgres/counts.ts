import type { CrawlCounts } from '../policy/crawl-budget.js';
import type { Query } from './database.js';
import { Params, type Part } from './params.js';

/** The crawl's counts, or the changes one transaction makes to them. */
export interface Counts {
  queued: number;
  claimed: number;
  retrying: number;
  done: number;
  failed: number;
  rejected: number;
  stale: number;
  expired: number;
}

const COLUMNS = ['queued', 'claimed', 'retrying', 'done', 'failed', 'rejected', 'stale', 'expired'] as const;

/**
 * Slots of crawl_counts: more than the connections that write at once, so they rarely
 * share one (migration 3 took them from 32 to 256). A crawl has a row for each.
 */
export const COUNT_SLOTS = 256;

export function noCounts(): Counts {
  return { queued: 0, claimed: 0, retrying: 0, done: 0, failed: 0, rejected: 0, stale: 0, expired: 0 };
}

/** The crawl's counts, summed over its slots ($1: the crawl); a statement of its own or a subquery of one. */
export const COUNTS_SQL = `SELECT ${COLUMNS.map((c) => `coalesce(sum(${c}), 0)::bigint AS ${c}`).join(', ')}
  FROM crawl_counts WHERE crawl = $1`;

/** The crawl's counts as this transaction sees them (its own changes written already). */
export async function readCounts(q: Query, crawl: number): Promise<Counts> {
  const [row] = await q<Counts>(COUNTS_SQL, [crawl]);
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
  d: Counts,
  more: Partial<Record<keyof Counts, string>> = {},
): Part {
  const changed = COLUMNS.filter((c) => d[c] !== 0 || more[c] !== undefined);
  if (changed.length === 0) return null;
  const sets = changed.map((c) => {
    const terms: string[] = [c];
    if (d[c] !== 0) terms.push(p.add(d[c]));
    if (more[c] !== undefined) terms.push(`(${more[c]})`);
    return `${c} = ${terms.join(' + ')}`;
  });
  return `UPDATE crawl_counts SET ${sets.join(', ')}
  WHERE crawl = ${p.add(crawl)} AND slot = pg_backend_pid() % ${COUNT_SLOTS}`;
}

/** Adds a transaction's changes to its connection's slot (nothing when nothing changed). */
export async function addCounts(q: Query, crawl: number, d: Counts): Promise<void> {
  const p = new Params();
  const sql = countsUpdate(p, crawl, d);
  if (sql !== null) await q(sql, p.values);
}

export function plus(a: Counts, b: Counts): Counts {
  const out = noCounts();
  for (const c of COLUMNS) out[c] = a[c] + b[c];
  return out;
}

/** What the end-of-crawl and budget rules (policy/crawl-budget.ts) read. */
export function crawlCountsOf(c: Counts): CrawlCounts {
  return { queued: c.queued, leased: c.claimed, retrying: c.retrying, final: c.done + c.failed };
}

export const CREATE_SLOTS = `INSERT INTO crawl_counts (crawl, slot)
  SELECT $1, s FROM generate_series(0, ${COUNT_SLOTS - 1}) s ON CONFLICT DO NOTHING`;
