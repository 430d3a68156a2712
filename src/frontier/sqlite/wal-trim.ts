import type Database from 'better-sqlite3';

/** An idle store checkpoints at most this often: a checkpoint copies up to the WAL's 40 MB. */
const IDLE_TRIM_EVERY_MS = 30_000;

/**
 * The WAL brought back to nothing: its pages copied into frontier.db and the file cut to
 * zero bytes. The WAL is allowed to grow to some 40 MB between automatic checkpoints
 * (schema.ts), and SQLite reuses it without ever making it smaller, so a crawl whose
 * store is 320 KB left a 41 MB `frontier.db-wal` behind whenever another connection
 * held the file as the crawl closed. Done at the end of a run (close) and when the
 * store is idle (a lease call found nothing to hand out).
 */
export class WalTrim {
  private lastAt: number | null = null;
  /** Whether anything was committed since the last checkpoint. */
  private written = true;

  constructor(
    private readonly db: Database.Database,
    private readonly busyTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A transaction committed. */
  wrote(): void {
    this.written = true;
  }

  /** Nothing to lease: a quiet moment to checkpoint, if something was written and not lately. */
  idle(): void {
    if (!this.written) return;
    if (this.lastAt !== null && this.now() - this.lastAt < IDLE_TRIM_EVERY_MS) return;
    this.trim();
  }

  /**
   * Checkpoints without waiting: another process reading or writing the file makes
   * this one a no-op (SQLITE_BUSY, or a partial checkpoint), and the next quiet moment
   * or the last connection's close does it.
   */
  trim(): void {
    this.lastAt = this.now();
    this.written = false;
    this.db.pragma('busy_timeout = 0');
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    } finally {
      this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}
