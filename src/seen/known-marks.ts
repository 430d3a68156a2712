import { FingerprintTable } from './fingerprint-table.js';

/**
 * Fingerprints known to be in a file-backed set, kept in memory so that the file is not
 * asked about them again: the marks written lately and the ones the file answered
 * "held" for lately. A crawl's links point at the same pages over and over (home pages,
 * navigation, the pages just found), so a small memory of recent answers spares most
 * reads. One table, bounded: once it holds `limit` it starts again empty (what is asked
 * about often is back in it soon). Only ever a cache: it never holds a fingerprint the
 * file does not.
 */
export class KnownMarks {
  private table: FingerprintTable;

  constructor(private readonly limit = 1 << 20) {
    this.table = new FingerprintTable(limit);
  }

  has(lo: number, hi: number): boolean {
    return this.table.has(lo, hi);
  }

  /** The file holds this one (it answered so, or a committed write put it there). */
  add(lo: number, hi: number): void {
    if (this.table.size >= this.limit) this.table = new FingerprintTable(this.limit);
    this.table.add(lo, hi);
  }

  /** Every mark of a committed batch. */
  addAll(batch: FingerprintTable): void {
    const words = new Uint32Array(batch.toArray().buffer);
    for (let i = 0; i < words.length; i += 2) this.add(words[i] as number, words[i + 1] as number);
  }
}
