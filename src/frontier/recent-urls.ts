/**
 * A store's generation, the size of a page analyzer's. Pages' links come already thinned
 * by the analyzers (each leaves out what it sent lately), so a modest cache catches what
 * is left. 250,000 URLs a generation held some 40 to 60 MB of strings in a long crawl,
 * memory that grew with the crawl up to that bound: the embedded store's in a crawl of
 * 2·10^5 pages, each PostgreSQL bunny's at 10^6 pages.
 */
const STORE_GENERATION = 32_768;

/**
 * URLs the store is known to hold, kept for the most recent ones only. Most links a
 * page yields were seen moments ago (navigation, siblings); answering those from memory
 * skips a fingerprint and an INSERT OR IGNORE each. Two generations give LRU-like eviction
 * for the price of two Set lookups: when the young one fills, the old one is dropped.
 * It only ever says "known" for URLs really in the store, so it cannot change a result.
 */
export class RecentUrls {
  private young = new Set<string>();
  private old = new Set<string>();

  constructor(private readonly generationSize = STORE_GENERATION) {}

  has(url: string): boolean {
    if (this.young.has(url)) return true;
    if (this.old.has(url)) {
      this.remember(url);
      return true;
    }
    return false;
  }

  /** Forgets everything (what it remembered may not have been committed). */
  clear(): void {
    this.young = new Set();
    this.old = new Set();
  }

  /**
   * Remembers `url`; true when it was not remembered already. One lookup for a URL the
   * young generation holds and two for any other, where has() then remember() take two
   * and three: a page analyzer asks this of every link it follows.
   */
  add(url: string): boolean {
    const young = this.young;
    const size = young.size;
    young.add(url);
    if (young.size === size) return false;
    const fresh = !this.old.has(url);
    if (young.size >= this.generationSize) {
      this.old = young;
      this.young = new Set();
    }
    return fresh;
  }

  remember(url: string): void {
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Set();
    }
    this.young.add(url);
  }
}
