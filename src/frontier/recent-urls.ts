/**
 * URLs the store is known to hold, kept for the most recent ones only. Most links a
 * page yields were seen moments ago (navigation, siblings); answering those from memory
 * skips a SHA-1 and an INSERT OR IGNORE each. Two generations give LRU-like eviction
 * for the price of two Set lookups: when the young one fills, the old one is dropped.
 * It only ever says "known" for URLs really in the store, so it cannot change a result.
 */
export class RecentUrls {
  private young = new Set<string>();
  private old = new Set<string>();

  constructor(private readonly generationSize = 250_000) {}

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

  remember(url: string): void {
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Set();
    }
    this.young.add(url);
  }
}
