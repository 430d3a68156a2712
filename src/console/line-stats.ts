import type { PageRecord } from '../output/pages-log.js';
import { outcomeOf } from '../output/run-counts.js';

/** One line of the live tail: a URL just written to pages.jsonl. */
export interface TailLine {
  url: string;
  status: number | null;
  error: string | null;
  /** ms the fetch took; null for a URL refused without one. */
  durationMs: number | null;
  bytes: number | null;
  fetchedAt: string | null;
}

const TAIL = 100;

/**
 * What the pages.jsonl lines of this run add up to: responses by status class, failures
 * by error, refusals by reason (robots.txt as `robots`), body bytes, and the last lines
 * for the live tail. Fed with every batch written; read by /metrics, /status and the page.
 */
export class LineStats {
  readonly fetched: Record<string, number> = {};
  readonly failed: Record<string, number> = {};
  readonly refused: Record<string, number> = {};
  bytes = 0;
  /** Lines counted so far; the tail's lines are numbered by it. */
  lines = 0;
  /** The last lines as written; made into TailLines only when read. */
  private tail: PageRecord[] = [];

  add(records: readonly PageRecord[]): void {
    for (const r of records) {
      if (typeof r.url !== 'string') continue; // a marker line (a pass's end)
      const o = outcomeOf(r);
      const into = o.kind === 'fetched' ? this.fetched : o.kind === 'failed' ? this.failed : this.refused;
      into[o.key] = (into[o.key] ?? 0) + 1;
      if (typeof r.bytes === 'number') this.bytes += r.bytes;
      this.lines++;
      this.tail.push(r);
      if (this.tail.length > TAIL * 2) this.tail = this.tail.slice(-TAIL);
    }
  }

  /** Responses of any status. */
  get fetchedCount(): number {
    return sum(this.fetched);
  }

  /** The lines written after line number `after` (at most the tail's length), oldest first. */
  tailAfter(after: number): TailLine[] {
    const n = Math.min(this.lines - after, TAIL, this.tail.length);
    if (n <= 0) return [];
    return this.tail.slice(this.tail.length - n).map((r) => ({
      url: r.url,
      status: r.status,
      error: r.error ?? null,
      durationMs: r.durationMs,
      bytes: r.bytes,
      fetchedAt: r.fetchedAt,
    }));
  }
}

export function sum(counts: Record<string, number>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}
