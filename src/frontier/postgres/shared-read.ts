import { pacedForMs } from '../../paced-read.js';
import type { Database } from './database.js';

/** How long a process that claimed a read has before another may: one that died lets go. */
const CLAIM_SECONDS = 60;

/**
 * A read of the whole crawl (every host row: the consoles' host overview, the host count)
 * whose answer the crawl's processes share, in `crawl_reads`. Paced as PacedRead paces a
 * process's own reads (again only once `share` times the last read's time has passed),
 * but for the crawl: with four bunnies each pacing its own, the same half-second read of
 * 10^5 host rows ran four times as often, 13% of the database in a run of 10^6 pages.
 *
 * One process at a time reads: it claims the read by moving fresh_until ahead, and the
 * others meanwhile take the last answer. An answer is JSON (jsonb).
 */
export class SharedRead<T> {
  constructor(
    private readonly db: Database,
    private readonly crawlId: number,
    private readonly name: string,
    private readonly read: () => Promise<T>,
    private readonly share = 20,
  ) {}

  async get(): Promise<T> {
    const [last] = await this.db.query<{ value: T | null; fresh: boolean }>(
      `SELECT value, fresh_until > clock_timestamp() AS fresh FROM crawl_reads WHERE crawl = $1 AND name = $2`,
      [this.crawlId, this.name],
    );
    if (last !== undefined && last.value !== null && last.fresh) return last.value;
    // Claimed when no answer is fresh and nobody else claimed it since: a lock on the one
    // row, held only for this statement.
    const claimed = await this.db.query(
      `INSERT INTO crawl_reads (crawl, name, value, fresh_until)
         VALUES ($1, $2, NULL, clock_timestamp() + make_interval(secs => $3))
       ON CONFLICT (crawl, name) DO UPDATE SET fresh_until = excluded.fresh_until
         WHERE crawl_reads.fresh_until <= clock_timestamp()
       RETURNING 1`,
      [this.crawlId, this.name, CLAIM_SECONDS],
    );
    // Another process reads it now: its last answer meanwhile (none yet: read it here too).
    if (claimed.length === 0 && last !== undefined && last.value !== null) return last.value;
    const started = performance.now();
    const value = await this.read();
    const freshMs = pacedForMs(performance.now() - started, this.share);
    await this.db.query(
      `UPDATE crawl_reads SET value = $3, fresh_until = clock_timestamp() + make_interval(secs => $4)
       WHERE crawl = $1 AND name = $2`,
      [this.crawlId, this.name, JSON.stringify(value), freshMs / 1000],
    );
    return value;
  }
}
