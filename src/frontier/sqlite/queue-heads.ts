/**
 * The next queued rows of each host, read ahead, for a store that one process holds
 * (held-leases.ts). Reading a host's head for every lease call read the held leases'
 * rows again each time (they stay queued in the file) and a few rows more: on pages
 * with few links, some ten rows and one query per URL leased, the larger part of a
 * lease call. Read ahead, a host's rows are read about once each.
 *
 * The rows kept for a host are a prefix of its queue, in the queue's order (rank, then
 * seq), held leases left out. That holds only while every change to the queue goes
 * through this process, which is what holding the store means, and while the store
 * tells it of each change: a new link (its seq the largest yet) is put in its place;
 * any other URL that joins a host's queue (a lease given back, a retry come due, a URL
 * asked for again), or a row taken out of it other than by take() (a retired host, an
 * adopted lease), makes the host's rows be read again.
 */

/** A queued row as a lease needs it. */
export interface QueuedRow {
  seq: number;
  url: string;
  depth: number;
  /** The queue's order is (rank, seq): policy/queue-rank.ts. */
  rank: number;
  via: string | null;
  redirects: number;
  kind: number;
  attempts: number;
  fetched_at: number | null;
  etag: string | null;
  last_modified: string | null;
  captured_at: number | null;
}

interface Head {
  /** From `start` on: the host's next unheld queued rows, in queue order. */
  rows: QueuedRow[];
  /**
   * Rows before it are leased. A host whose whole queue is kept holds every link found
   * for it since: taking from the front by moving this, not by shifting the array, keeps
   * a lease call from costing as much as the host's queue is long.
   */
  start: number;
  /** The rows are all the host's unheld queued rows, not only the first ones. */
  whole: boolean;
}

/** Rows read for a host at once, at least (more when a lease call wants more). */
const READ_AHEAD = 32;

/**
 * Rows kept in all, about: past this the hosts read longest ago are forgotten. A crawl
 * of many hosts would otherwise keep READ_AHEAD rows for each (some 200 bytes a row).
 */
const MAX_ROWS = 32_768;

/** Leased rows at the front of a host's array before it is compacted (see take). */
const COMPACT_AFTER = 64;

/** How many unleased rows a head keeps. */
function kept(head: Head): number {
  return head.rows.length - head.start;
}

export class QueueHeads {
  /** By host, the one used last at the end. */
  private readonly heads = new Map<string, Head>();
  private rowCount = 0;

  /**
   * At least `want` of the host's next unheld queued rows (at least READ_AHEAD of those
   * kept), or all there are. `read(limit)` reads up to `limit` of them from the file. The
   * caller takes from the front with take().
   */
  rowsOf(host: string, want: number, read: (limit: number) => QueuedRow[]): readonly QueuedRow[] {
    let head = this.heads.get(host);
    if (head !== undefined) this.heads.delete(host);
    if (head === undefined || (kept(head) < want && !head.whole)) {
      if (head !== undefined) this.rowCount -= kept(head);
      const limit = Math.max(want, READ_AHEAD);
      const rows = read(limit);
      head = { rows, start: 0, whole: rows.length < limit };
      this.rowCount += rows.length;
    }
    this.heads.set(host, head);
    this.evict();
    return head.rows.slice(head.start, head.start + Math.max(want, READ_AHEAD));
  }

  /** The first n rows rowsOf() gave are leased. */
  take(host: string, n: number): void {
    const head = this.heads.get(host);
    if (head === undefined || n === 0) return;
    head.start += n;
    this.rowCount -= n;
    // The leased rows are dropped once they are half the array: each row is moved about once.
    if (head.start >= COMPACT_AFTER && head.start * 2 >= head.rows.length) {
      head.rows = head.rows.slice(head.start);
      head.start = 0;
    }
  }

  /**
   * A new URL joined the host's queue: its seq is the largest yet, so it goes after every
   * row of its rank or a lower one. Inside the rows kept, or at their end when they are all
   * the host's, it is kept too; past their end it is not theirs to keep.
   */
  appended(host: string, row: QueuedRow): void {
    const head = this.heads.get(host);
    if (head === undefined) return;
    const rows = head.rows;
    let at = rows.length;
    while (at > head.start && (rows[at - 1] as QueuedRow).rank > row.rank) at--;
    if (at === rows.length && !head.whole) return;
    rows.splice(at, 0, row);
    this.rowCount++;
  }

  /** The host's queue changed other than at its end: read it again. */
  forget(host: string): void {
    const head = this.heads.get(host);
    if (head === undefined) return;
    this.rowCount -= kept(head);
    this.heads.delete(host);
  }

  /** Everything forgotten (a transaction rolled back: what it read may not be so). */
  clear(): void {
    this.heads.clear();
    this.rowCount = 0;
  }

  private evict(): void {
    for (const [host, head] of this.heads) {
      if (this.rowCount <= MAX_ROWS) return;
      this.rowCount -= kept(head);
      this.heads.delete(host);
    }
  }
}
