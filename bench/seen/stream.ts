/**
 * A stream of links shaped like a crawl's, with the truth about each: every link is a URL
 * met before or a new one, and the stream knows which without keeping a set.
 *
 * URL number i is the i-th URL discovered. A new link takes the next number; a link to
 * a known URL picks one, half the time among the recent (the pages of the site being
 * crawled: navigation, neighbours) and half among the early ones (home pages and hubs,
 * which everything links to). Each URL's host is drawn once from a Zipf law over the
 * hosts (rank r with probability about 1/r). Pages carry about `linksPerPage` links and
 * a share `newShare` of links is new, until `distinct` URLs have been discovered.
 */
export interface StreamOptions {
  distinct: number;
  linksPerPage?: number;
  newShare?: number;
  hosts?: number;
  seed?: number;
}

export class CrawlStream {
  /** URLs discovered so far: numbers 0 .. discovered - 1. */
  discovered = 0;
  links = 0;
  private readonly linksPerPage: number;
  private readonly newShare: number;
  private readonly logHosts: number;
  private state: number;

  constructor(private readonly options: StreamOptions) {
    this.linksPerPage = options.linksPerPage ?? 30;
    this.newShare = options.newShare ?? 0.2;
    this.logHosts = Math.log(options.hosts ?? Math.max(1000, Math.floor(options.distinct / 100)));
    this.state = (options.seed ?? 1) >>> 0;
  }

  get done(): boolean {
    return this.discovered >= this.options.distinct;
  }

  /**
   * Appends the links of `pages` pages to `urls`, and for each a 1 (new) or 0 (met
   * before) to `truth` from `truthAt` on. Returns how many links it appended.
   */
  nextPages(pages: number, urls: string[], truth: Uint8Array, truthAt = 0): number {
    let n = 0;
    for (let page = 0; page < pages && !this.done; page++) {
      // 30 links a page on average: 15 to 45.
      const links = Math.floor(this.linksPerPage * (0.5 + this.random()));
      for (let link = 0; link < links && !this.done; link++) {
        let id: number;
        if (this.discovered === 0 || this.random() < this.newShare) {
          id = this.discovered++;
          truth[truthAt + n] = 1;
        } else {
          const skew = this.random() ** 4;
          id =
            this.random() < 0.5
              ? this.discovered - 1 - Math.floor(skew * this.discovered)
              : Math.floor(skew * this.discovered);
          truth[truthAt + n] = 0;
        }
        urls.push(this.url(id));
        n++;
      }
    }
    this.links += n;
    return n;
  }

  /** URL number `id`: always the same text for the same number and seed. */
  url(id: number): string {
    let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b) ^ (this.options.seed ?? 1);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    const host = Math.floor(Math.exp(((h >>> 0) / 4294967296) * this.logHosts)); // Zipf, s = 1
    const section = SECTIONS[id & 15];
    return `https://www.host${host}.example/${section}/${(id >>> 4).toString(36)}/item-${id}.html`;
  }

  /** mulberry32 */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

const SECTIONS = [
  'news',
  'products',
  'blog',
  'docs',
  'forum/thread',
  'about',
  'category/shoes',
  'en/articles',
  'wiki',
  'search',
  'tags',
  'archive/2024',
  'users/profile',
  'catalog/item',
  'press',
  'help/faq',
];
