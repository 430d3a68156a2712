import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { FingerprintTable } from './fingerprint-table.js';
import { KnownMarks } from './known-marks.js';
import { closedError } from './memory.js';
import type { SeenSet } from './types.js';
import { wordsOf } from './words.js';

export const LMDB_FILE = 'seen.lmdb';

export interface LmdbSeenSetOptions {
  /** The folder that holds seen.lmdb (and LMDB's seen.lmdb-lock). */
  dir: string;
  /** Also wait, in flush(), until the commit is on disk (a power cut loses nothing then); a kill -9 never loses a commit. */
  sync?: boolean;
}

const EMPTY = Buffer.alloc(0);

/**
 * The set in one LMDB file, keyed by the fingerprint's 8 bytes big-endian (so that
 * Heritrix-layout keys keep each host's URLs together), with empty values: Heritrix's
 * BdbUriUniqFilter with LMDB in place of BerkeleyDB.
 *
 * Marks are written only by flush(), in one transaction of put-if-absent writes
 * (`noOverwrite`), sorted. Until they have committed the new ones wait in memory, and
 * insertNew() answers from them, from a memory of marks known to be in the file
 * (KnownMarks), and from reads of the file, in key order. So after a kill the file holds exactly what was
 * flushed: never a mark the caller had not been told about.
 */
export class LmdbSeenSet implements SeenSet {
  readonly exact = true;
  private closed = false;
  /** New marks since the last flush() was called. */
  private pending = new FingerprintTable();
  /** Marks handed to flush() whose transaction has not committed yet. */
  private readonly writing: FingerprintTable[] = [];
  private lastWrite: Promise<void> = Promise.resolve();
  /** Marks the file holds that were written or read lately: asked about again, they need no read. */
  private readonly known = new KnownMarks();
  private readonly key = Buffer.alloc(8);
  private count: number;

  private constructor(
    private readonly db: RootDatabase<Buffer, Buffer>,
    private readonly sync: boolean,
  ) {
    this.count = db.getCount();
  }

  static open(options: LmdbSeenSetOptions): LmdbSeenSet {
    mkdirSync(options.dir, { recursive: true });
    const db = open<Buffer, Buffer>({
      path: join(options.dir, LMDB_FILE),
      keyEncoding: 'binary',
      encoding: 'binary',
      compression: false,
      cache: false,
    });
    return new LmdbSeenSet(db, options.sync ?? false);
  }

  get size(): number {
    return this.count;
  }

  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    if (this.closed) return Promise.reject(closedError());
    const words = wordsOf(fingerprints);
    const n = fingerprints.length;
    const result = new Array<boolean>(n).fill(false);
    // The file is asked only about what memory does not answer, in key order: the B-tree
    // descents of neighbouring keys share their upper pages, so a sorted batch reads
    // fewer cold pages than the same keys in discovery order.
    const ask = this.unknownOf(words, n);
    ask.sort((x, y) => {
      const dx = (words[2 * x + 1] as number) - (words[2 * y + 1] as number);
      if (dx !== 0) return dx;
      return (words[2 * x] as number) - (words[2 * y] as number) || x - y;
    });
    const { pending, key, db } = this;
    let added = 0;
    for (const i of ask) {
      const lo = words[2 * i] as number;
      const hi = words[2 * i + 1] as number;
      // A repeat within the call follows its first occurrence (the sort keeps positions in order).
      if (pending.has(lo, hi)) continue;
      key.writeUInt32BE(hi, 0);
      key.writeUInt32BE(lo, 4);
      if (db.doesExist(key)) {
        this.known.add(lo, hi);
        continue;
      }
      pending.add(lo, hi);
      result[i] = true;
      added++;
    }
    this.count += added;
    return Promise.resolve(result);
  }

  /** Positions of the call whose fingerprints no table in memory holds (marks waiting to be written, or known to be in the file). */
  private unknownOf(words: Uint32Array, n: number): number[] {
    const { pending, writing } = this;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i] as number;
      const hi = words[2 * i + 1] as number;
      let known = pending.has(lo, hi) || this.known.has(lo, hi);
      for (let w = 0; !known && w < writing.length; w++) known = (writing[w] as FingerprintTable).has(lo, hi);
      if (!known) out.push(i);
    }
    return out;
  }

  flush(): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    // The marks of calls made until now, and none made later: taken at once, written in turn.
    const batch = this.pending;
    this.pending = new FingerprintTable(batch.size); // the next batch is likely as large: no regrowing

    this.writing.push(batch);
    this.lastWrite = this.lastWrite.then(() => this.write(batch));
    return this.lastWrite;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    await this.db.close();
  }

  private async write(batch: FingerprintTable): Promise<void> {
    if (batch.size > 0) {
      // Sorted keys go into the B-tree in order: fewer pages touched per transaction, and
      // each page touched while it is in the cache. (lmdb's asynchronous puts, carried out
      // by its own thread, cost more CPU in all, measured: on two shared cores that is time.)
      const fingerprints = batch.toArray().sort();
      const words = wordsOf(fingerprints);
      const key = Buffer.alloc(8);
      await this.db.transaction(() => {
        for (let i = 0; i < fingerprints.length; i++) {
          key.writeUInt32BE(words[2 * i + 1] as number, 0);
          key.writeUInt32BE(words[2 * i] as number, 4);
          this.db.putSync(key, EMPTY, { noOverwrite: true });
        }
      });
      if (this.sync) await this.db.flushed;
      this.known.addAll(batch);
    }
    this.writing.splice(this.writing.indexOf(batch), 1);
  }
}
