import { CrawlOptionError } from '../errors.js';
import { DEFAULTS } from '../options/options.js';

/** What `resetCrawl` needs: the database, the crawl, and the say-so once it knows what it would delete. */
export interface ResetOptions {
  store: string;
  crawl: string;
  /**
   * Shown the crawl (its URLs and sites); resolves true to delete it. The command line
   * asks for the crawl's name again here.
   */
  confirm: (crawl: { name: string; urls: number; sites: number }) => Promise<boolean>;
}

/** How a reset ended: deleted, not confirmed, or refused because processes still crawl it. */
export type ResetOutcome =
  | { kind: 'deleted'; urls: number; sites: number }
  | { kind: 'kept' }
  | { kind: 'running'; crawlers: number };

/**
 * `cobweb reset --store URL --crawl NAME`: starts a PostgreSQL crawl over, as `--fresh`
 * does a folder's (which PostgreSQL crawls do not take: a database is shared, and one
 * flag too many would empty a crawl many machines work on). Refused while a crawler of
 * it was heard from within a lease time; the outputs in the crawlers' --data folders stay.
 */
export async function resetCrawl(o: ResetOptions): Promise<ResetOutcome> {
  const { Database } = await import('../frontier/postgres/database.js');
  const { deleteCrawl, findCrawl } = await import('../frontier/postgres/reset.js');
  const { redacted } = await import('../frontier/postgres/errors.js');
  const db = new Database(o.store, { poolSize: 1, outageMs: 30_000 });
  try {
    await db.check(30_000);
    const found = await findCrawl(db, o.crawl, Date.now() - DEFAULTS.leaseMs);
    if (found === null) {
      throw new CrawlOptionError(`${redacted(o.store)} has no crawl "${o.crawl}": nothing to reset`);
    }
    if (found.running > 0) return { kind: 'running', crawlers: found.running };
    if (!(await o.confirm(found))) return { kind: 'kept' };
    await deleteCrawl(db, found.id);
    return { kind: 'deleted', urls: found.urls, sites: found.sites };
  } finally {
    await db.close();
  }
}
