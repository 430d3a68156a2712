/** A read quicker than this is not paced: a small crawl's gauges stay fresh at every ask. */
const UNPACED_MS = 10;

/** How long a read that took `tookMs` is not done again: `share` - 1 times its time, or not at all when it was quick. */
export function pacedForMs(tookMs: number, share: number): number {
  return tookMs < UNPACED_MS ? 0 : tookMs * (share - 1);
}

/**
 * A read that costs in proportion to the crawl's size (every host row of a crawl of 10^5
 * hosts: a quarter to half a second of the database), done again only once `share`
 * times the last read's time has passed; the value in between is the last one read.
 * So it takes at most 1/share of the time whatever the number of callers and however
 * often they ask. A read that took under UNPACED_MS (a small crawl's) is done again at
 * the next ask. Callers that come while a read runs share it.
 */
export class PacedRead<T> {
  private last: { value: T; nextAt: number } | null = null;
  private reading: Promise<T> | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly share = 20,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether get() would read now rather than answer with the last value. */
  get due(): boolean {
    return this.reading === null && (this.last === null || this.now() >= this.last.nextAt);
  }

  get(): Promise<T> {
    if (this.reading !== null) return this.reading;
    if (this.last !== null && !this.due) return Promise.resolve(this.last.value);
    const started = this.now();
    this.reading = this.read()
      .then((value) => {
        const ended = this.now();
        const took = ended - started;
        this.last = { value, nextAt: ended + pacedForMs(took, this.share) };
        return value;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
