/**
 * The hosts' turns for what rendered pages ask of them: a page's own scripts,
 * stylesheets and XHR go through here before they leave the browser. Per host, within
 * this process: `--per-host` requests at a time (one by default), and the next starts
 * no sooner than the host's gap after the last one ended (as the store spaces the
 * crawl's fetches, so the gap holds at the host's end however long a response takes). The crawl's own fetches
 * of a host in this process take their turn here too (`hold`), so a page's first script
 * waits the gap after the page's own fetch.
 */
export class SubresourceGate {
  private readonly lines = new Map<string, HostLine>();
  /** What every page sent and did not send, for the run's counts. */
  readonly totals = { made: 0, refused: 0 };

  /**
   * `gapFor(url, lastMs)`: ms between two requests to the URL's host after one that
   * took `lastMs` (--delay, --delay-factor, its Crawl-delay, capped by --max-delay).
   */
  constructor(
    private readonly gapFor: (url: string, lastMs: number) => number,
    /** --per-host: requests to one host at once, the crawl's fetches and the pages' own together. */
    private readonly perHost = 1,
  ) {}

  /**
   * Waits for `url`'s host's turn, then holds it: its start (epoch ms), and the caller
   * calls `done` with it when its request is over; null (nothing held) when `until`
   * says to give up first.
   */
  async take(url: string, until: Giveup): Promise<number | null> {
    const host = hostOf(url);
    const line = this.lineOf(host);
    // Counted while it waits, so the line is not forgotten under it (forgetLater): a new
    // line for the host would let the next request through without the gap.
    line.waiting++;
    try {
      for (;;) {
        if (until.given()) return null;
        if (line.busy < this.perHost) {
          const now = Date.now();
          const wait = line.lastAt + this.gapFor(url, line.lastMs) - now;
          if (wait <= 0) {
            line.busy++;
            line.lastAt = now;
            return now;
          }
          await until.sleep(wait);
        } else {
          await until.sleep(0, line.wakers);
        }
      }
    } finally {
      line.waiting--;
    }
  }

  /** The request `take` let through at `startedAt` is over: the host's gap runs from now. */
  done(url: string, startedAt: number): void {
    const line = this.lines.get(hostOf(url));
    if (line === undefined) return;
    const now = Date.now();
    line.busy = Math.max(0, line.busy - 1);
    line.lastAt = Math.max(line.lastAt, now);
    line.lastMs = now - startedAt;
    for (const wake of line.wakers.splice(0)) wake();
    // A host nobody waits for and whose gap is over is forgotten: the map follows the hosts in use.
    if (line.busy === 0) this.forgetLater(hostOf(url), url);
  }

  /** The crawl's own request to `url` is under way: the gate's requests to its host wait for it, then the gap. */
  hold(url: string): () => void {
    const line = this.lineOf(hostOf(url));
    const startedAt = Date.now();
    line.busy++;
    line.lastAt = Math.max(line.lastAt, startedAt);
    return () => this.done(url, startedAt);
  }

  private lineOf(host: string): HostLine {
    let line = this.lines.get(host);
    if (line === undefined) {
      line = { busy: 0, waiting: 0, lastAt: 0, lastMs: 0, wakers: [], forget: null };
      this.lines.set(host, line);
    }
    if (line.forget !== null) {
      clearTimeout(line.forget);
      line.forget = null;
    }
    return line;
  }

  private forgetLater(host: string, url: string): void {
    const line = this.lines.get(host);
    if (line === undefined) return;
    line.forget = setTimeout(
      () => {
        if (line.busy === 0 && line.waiting === 0) this.lines.delete(host);
      },
      Math.max(0, this.gapFor(url, line.lastMs)) + 1,
    );
    line.forget.unref();
  }
}

interface HostLine {
  /** Requests to the host under way: the gate's, and the crawl's own (hold). */
  busy: number;
  /** Epoch ms the last request to the host started or ended, whichever came later. */
  lastAt: number;
  /** How long the last request that ended took: a slow host is asked less often (--delay-factor). */
  lastMs: number;
  /** Requests in take() for the host, asleep for its gap or for a turn. */
  waiting: number;
  /** Who waits for the host to be free. */
  wakers: (() => void)[];
  /** The timer that forgets an idle host. */
  forget: NodeJS.Timeout | null;
}

/**
 * When a waiting request gives up: a page that ends (or passes its deadline) stops
 * waiting for turns it no longer needs.
 */
export class Giveup {
  private over = false;
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly deadline: number) {}

  given(): boolean {
    return this.over || Date.now() >= this.deadline;
  }

  /** Ends every wait now. */
  end(): void {
    this.over = true;
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
  }

  /** Sleeps `ms` (0: until woken through `wakers`), never past the deadline or end(). */
  sleep(ms: number, wakers?: (() => void)[]): Promise<void> {
    return new Promise((resolve) => {
      const left = Math.max(0, this.deadline - Date.now());
      const timer = setTimeout(wake, ms > 0 ? Math.min(ms, left) : left);
      function wake(): void {
        clearTimeout(timer);
        resolve();
      }
      const done = () => {
        this.sleepers.delete(done);
        wake();
      };
      this.sleepers.add(done);
      wakers?.push(done);
    });
  }
}

/** The politeness key of a URL: its host and a port other than the scheme's. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}
