/**
 * What a page analyzer remembers of a canonical URL it met lately: whether it handed
 * the URL on already, and the last page it saw it on. A link's verdict keeps its
 * record (LinkVerdict.known), so a page's navigation links, the same hrefs page after
 * page, find theirs without a lookup: on realistic pages the lookups of two sets and a
 * map a link were a tenth of the parse worker's time.
 */
export interface KnownUrl {
  readonly url: string;
  /** The generation it was last used in: live while that is the current one or the one before. */
  gen: number;
  /** Handed on while live: a later page's link to it need not go to the store again. */
  sent: boolean;
  /** The last page it appeared on, and the last page a followed link to it was on. */
  page: number;
  followedOn: number;
}

/**
 * The records, in two generations of at most `generationSize` URLs each (plus one
 * page's), so an analyzer's memory is bounded whatever the crawl's size. At most one
 * live record a URL: a record a verdict kept from a generation now gone is replaced
 * by the live one, or a new one.
 */
export class KnownUrls {
  private young = new Map<string, KnownUrl>();
  private old = new Map<string, KnownUrl>();
  private gen = 0;

  constructor(private readonly generationSize = 16_384) {}

  /**
   * Called before each page. Generations age only between pages, so every record a page
   * used stays live, and the only one of its URL, until the page is over.
   */
  startPage(): void {
    if (this.young.size < this.generationSize) return;
    this.old = this.young;
    this.young = new Map();
    this.gen++;
  }

  /** The live record of `url`; `kept` is the one its verdict kept, if any. */
  of(url: string, kept: KnownUrl | undefined): KnownUrl {
    if (kept !== undefined && kept.gen >= this.gen - 1) {
      if (kept.gen !== this.gen) this.promote(kept);
      return kept;
    }
    const young = this.young.get(url);
    if (young !== undefined) return young;
    const old = this.old.get(url);
    if (old !== undefined) {
      this.promote(old);
      return old;
    }
    const fresh: KnownUrl = { url, gen: this.gen, sent: false, page: -1, followedOn: -1 };
    this.young.set(url, fresh);
    return fresh;
  }

  private promote(record: KnownUrl): void {
    record.gen = this.gen;
    this.young.set(record.url, record);
  }
}
