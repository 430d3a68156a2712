import type { CrawlCounts } from '../policy/crawl-budget.js';
import type { Query } from './database.js';

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

/** Slots of crawl_counts: more than the connections that write at once, so they rarely share one. */
export const COUNT_SLOTS = 32;

export function noCounts(): Counts {
  return { queued: 0, claimed: 0, retrying: 0, done: 0, failed: 0, rejected: 0, stale: 0, expired: 0 };
}

const READ = `SELECT ${COLUMNS.map((c) => `coalesce(sum(${c}), 0)::bigint AS ${c}`).join(', ')}
  FROM crawl_counts WHERE crawl = $1`;

/** The crawl's counts as this transaction sees them (its own changes written already). */
export async function readCounts(q: Query, crawl: number): Promise<Counts> {
  const [row] = await q<Counts>(READ, [crawl]);
  return row ?? noCounts();
}

const ADD = `UPDATE crawl_counts SET ${COLUMNS.map((c, i) => `${c} = ${c} + $${i + 2}`).join(', ')}
  WHERE crawl = $1 AND slot = pg_backend_pid() % ${COUNT_SLOTS}`;

/** Adds a transaction's changes to its connection's slot (nothing when nothing changed). */
export async function addCounts(q: Query, crawl: number, d: Counts): Promise<void> {
  if (COLUMNS.every((c) => d[c] === 0)) return;
  await q(ADD, [crawl, ...COLUMNS.map((c) => d[c])]);
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
