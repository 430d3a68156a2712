import type { LineStats } from './line-stats.js';
import { sum } from './line-stats.js';
import type { ConsoleSource, SourceSnapshot } from './types.js';

/** One point of the page's charts: a second of the crawl. */
export interface Point {
  /** Epoch seconds. */
  t: number;
  pagesPerSecond: number;
  queued: number;
  leased: number;
  /** Per second over the sample, by status class, and failures without a response. */
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  failed: number;
}

/** An hour of points at one a second. */
const HISTORY = 3600;
const CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * Reads the source once a second: the charts' history (pages per second, the queue,
 * statuses), and the bunnies' rates. The hosts (a read of every host row) are asked only
 * while someone watches the page.
 */
export class Sampler {
  readonly history: Point[] = [];
  latest: SourceSnapshot | null = null;
  /** Each bunny's completions per second over the last sample, by crawler id. */
  bunnyRates: ReadonlyMap<number, number> = new Map();
  pagesPerSecond = 0;
  private last: { at: number; counts: Record<string, number>; fetched: number } | null = null;
  private lastCompleted = new Map<number, number>();

  constructor(
    private readonly source: ConsoleSource,
    private readonly lines: LineStats,
  ) {}

  /** Takes one sample; resolves to the new point (null for the first, which has nothing to compare with). */
  async sample(detail: boolean): Promise<Point | null> {
    const snapshot = await this.source.snapshot(detail);
    const at = Date.now();
    this.latest = snapshot;
    const counts: Record<string, number> = { ...this.lines.fetched, failed: sum(this.lines.failed) };
    const fetched = this.lines.fetchedCount;
    const last = this.last;
    this.last = { at, counts, fetched };
    const dt = last === null ? 0 : (at - last.at) / 1000;
    this.bunnyRates = this.rates(snapshot, dt);
    if (last === null || dt <= 0) return null;
    const rate = (key: string) => ((counts[key] ?? 0) - (last.counts[key] ?? 0)) / dt;
    this.pagesPerSecond = (fetched - last.fetched) / dt;
    const point: Point = {
      t: Math.round(at / 1000),
      pagesPerSecond: this.pagesPerSecond,
      queued: snapshot.store.queued + snapshot.store.retrying,
      leased: snapshot.store.leased,
      '2xx': rate(CLASSES[0]),
      '3xx': rate(CLASSES[1]),
      '4xx': rate(CLASSES[2]),
      '5xx': rate(CLASSES[3]),
      failed: rate('failed'),
    };
    this.history.push(point);
    if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    return point;
  }

  private rates(snapshot: SourceSnapshot, dt: number): Map<number, number> {
    const before = this.lastCompleted;
    this.lastCompleted = new Map((snapshot.bunnies ?? []).map((b) => [b.crawler, b.completed]));
    const rates = new Map<number, number>();
    for (const b of snapshot.bunnies ?? []) {
      const was = before.get(b.crawler) ?? b.completed;
      rates.set(b.crawler, dt > 0 ? Math.max(0, b.completed - was) / dt : 0);
    }
    return rates;
  }
}
