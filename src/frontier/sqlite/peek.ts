import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { FrontierStats } from '../types.js';

/**
 * What a report says of a store: its counts, read without opening it for writing, and
 * its crawlers (no budget and no seen set: those live in a running crawl, not the file).
 */
export interface StoreTotals extends Omit<FrontierStats, 'budgetLeft' | 'seen'> {
  crawlers: number;
}

/**
 * The counts of a store on disk, read-only (a crawl may be running on it: WAL readers
 * do not disturb it). null when there is no store file.
 */
export function peekStore(file: string): StoreTotals | null {
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const t = db
      .prepare(
        `SELECT queued, leased, retrying, done, failed, rejected, stale AS staleCompletions,
           expired AS expiredLeases FROM totals WHERE id = 1`,
      )
      .get() as Record<string, number> | undefined;
    const hosts = db.prepare(`SELECT count(*) FROM hosts`).pluck().get() as number;
    const crawlers = db.prepare(`SELECT count(*) FROM crawlers`).pluck().get() as number;
    return {
      queued: t?.queued ?? 0,
      leased: t?.leased ?? 0,
      retrying: t?.retrying ?? 0,
      done: t?.done ?? 0,
      failed: t?.failed ?? 0,
      rejected: t?.rejected ?? 0,
      hosts,
      staleCompletions: t?.staleCompletions ?? 0,
      expiredLeases: t?.expiredLeases ?? 0,
      crawlers,
    };
  } finally {
    db.close();
  }
}
