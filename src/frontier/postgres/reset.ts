import type { Database } from './database.js';

/** A crawl in the database, as `cobweb reset` shows it before deleting it. */
export interface CrawlToReset {
  id: number;
  name: string;
  /** URLs met (queued, done, failed, refused) and sites recorded. */
  urls: number;
  sites: number;
  /** Crawlers that have not left and were heard from within a lease time: the crawl is running. */
  running: number;
}

/** Every table that holds a crawl's rows, by its `crawl` column; `crawls` itself last. */
const CRAWL_TABLES = [
  'crawl_reads',
  'pending_links',
  'crawler_links',
  'hosts',
  'sites',
  'cookies',
  'robots',
  'seed_origins',
  'allowed_addresses',
  'crawlers',
  'crawl_counts',
] as const;

/** The crawl named `name`, or null: none of that name (or no cobweb schema at all). */
export async function findCrawl(
  db: Database,
  name: string,
  heardSince: number,
): Promise<CrawlToReset | null> {
  const [schema] = await db.query<{ crawls: string | null }>(`SELECT to_regclass('crawls')::text AS crawls`);
  if (schema?.crawls === null || schema?.crawls === undefined) return null;
  const [row] = await db.query<{ id: number }>('SELECT id FROM crawls WHERE name = $1', [name]);
  if (row === undefined) return null;
  const [counts] = await db.query<{ urls: number; sites: number; running: number }>(
    `SELECT (SELECT count(*) FROM crawler_links WHERE crawl = $1)::int AS urls,
            (SELECT count(*) FROM sites WHERE crawl = $1)::int AS sites,
            (SELECT count(*) FROM crawlers WHERE crawl = $1 AND left_at IS NULL AND last_seen > $2)::int AS running`,
    [row.id, heardSince],
  );
  return {
    id: row.id,
    name,
    urls: counts?.urls ?? 0,
    sites: counts?.sites ?? 0,
    running: counts?.running ?? 0,
  };
}

/**
 * Deletes every row of the crawl, and the crawl: one transaction, so a reset is whole or
 * not at all. The next process naming the crawl starts it anew, with its own seeds and
 * settings. Other crawls in the database are not touched.
 */
export async function deleteCrawl(db: Database, id: number): Promise<void> {
  await db.transaction(async (q) => {
    // Rows of crawls.id first: a process starting the same crawl now waits for this one.
    await q('SELECT id FROM crawls WHERE id = $1 FOR UPDATE', [id]);
    for (const table of CRAWL_TABLES) await q(`DELETE FROM ${table} WHERE crawl = $1`, [id]);
    await q('DELETE FROM crawls WHERE id = $1', [id]);
  });
}
