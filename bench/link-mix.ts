// The outlinks a benchmark client reports for a page: all new (every one a new row), or
// the web's mix, where most outlinks are already known (about 90% in IRLbot's crawl).
// A known link is a URL this benchmark added before, picked as a real site links: most
// on the page's own host (its navigation, its neighbours), the rest on other hosts.
import { mulberry32, type Random } from './web/prng.js';

export type MixName = 'all-new' | 'nine-known';

/** Of a page's known links, how many point at its own host (the rest go elsewhere). */
const SAME_HOST_SHARE = 0.8;

export class LinkMix {
  private serial = 0;
  /** URLs added so far, per host index: what a known link picks from. */
  private readonly known: string[][];
  private readonly random: Random;

  constructor(
    readonly name: MixName,
    readonly hosts: number,
    readonly perPage: number,
    seed = 31,
  ) {
    this.known = Array.from({ length: hosts }, () => []);
    this.random = mulberry32(seed);
  }

  /** How many of a page's links are new. */
  get newPerPage(): number {
    return this.name === 'all-new' ? this.perPage : 1;
  }

  /** A URL never handed out before, on the next host in turn (never fetched: nothing speaks HTTP). */
  fresh(): string {
    this.serial++;
    return `http://h${this.serial % this.hosts}.bench.test/p/${this.serial}`;
  }

  /**
   * The outlinks of a page on `host`: newPerPage fresh ones first, the rest picked from
   * the URLs `added` so far.
   */
  outlinks(host: string): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.newPerPage; i++) out.push(this.fresh());
    const own = hostIndex(host);
    while (out.length < this.perPage) {
      const onOwn = own !== undefined && this.random() < SAME_HOST_SHARE;
      const index = onOwn ? own : Math.floor(this.random() * this.hosts);
      const pool = this.known[index] as string[];
      out.push(pool.length === 0 ? this.fresh() : (pool[Math.floor(this.random() * pool.length)] as string));
    }
    return out;
  }

  /** URLs the store has taken (fresh ones only): from now on, known links may point at them. */
  added(urls: readonly string[]): void {
    for (const url of urls) {
      const index = hostIndex(url.slice(url.indexOf('//') + 2, url.indexOf('/', 8)));
      if (index !== undefined) (this.known[index] as string[]).push(url);
    }
  }
}

function hostIndex(host: string): number | undefined {
  const m = /^h(\d+)\.bench\.test$/.exec(host);
  return m === null ? undefined : Number(m[1]);
}
