import { closeSync, existsSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { bytesOf, header, readExactly, readHeader, writeFileAtomic } from './files.js';
import { FingerprintTable } from './fingerprint-table.js';
import type { SeenSet } from './types.js';
import { wordsOf } from './words.js';

const MAGIC = 'CWSEENM1';
const HEADER_NUMBERS = 3; // slots, count, hasZero
export const MEMORY_FILE = 'seen.memory';

export interface MemorySeenSetOptions {
  /** Where flush() writes its snapshot and open reads it back; none: the set lives in memory only. */
  dir?: string;
  /** Fingerprints expected: the table starts that large and does not grow before. */
  capacity?: number;
}

/**
 * The whole set in memory: a FingerprintTable, 10 to 15 bytes a fingerprint.
 *
 * Two ways to survive a restart. Without `dir`, flush() does nothing and the caller
 * rebuilds the set at start by calling insertNew() with the fingerprints its own store
 * holds. With `dir`, flush() writes a snapshot of the table (the raw slot array; atomic
 * replace) and the next open loads it, which is a single read; a snapshot costs time in
 * proportion to the table, so flush at checkpoints rather than after every batch.
 */
export class MemorySeenSet implements SeenSet {
  readonly exact = true;
  private closed = false;

  private constructor(
    private readonly table: FingerprintTable,
    private readonly file: string | undefined,
  ) {}

  static open(options: MemorySeenSetOptions = {}): MemorySeenSet {
    if (options.dir === undefined)
      return new MemorySeenSet(new FingerprintTable(options.capacity), undefined);
    mkdirSync(options.dir, { recursive: true });
    const file = join(options.dir, MEMORY_FILE);
    const table = existsSync(file) ? loadSnapshot(file) : new FingerprintTable(options.capacity);
    return new MemorySeenSet(table, file);
  }

  get size(): number {
    return this.table.size;
  }

  /** Bytes the table takes in memory now. */
  get bytes(): number {
    return this.table.bytes;
  }

  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    if (this.closed) return Promise.reject(closedError());
    const words = wordsOf(fingerprints);
    const table = this.table;
    const result = new Array<boolean>(fingerprints.length);
    for (let i = 0; i < fingerprints.length; i++) {
      result[i] = table.add(words[2 * i] as number, words[2 * i + 1] as number);
    }
    return Promise.resolve(result);
  }

  async flush(): Promise<void> {
    if (this.closed) throw closedError();
    if (this.file === undefined) return;
    // Written synchronously on purpose: the snapshot must hold exactly the marks made
    // before flush() was called, and insertNew() calls made meanwhile would change it.
    const { words, count, hasZero } = this.table.snapshot();
    writeFileAtomic(this.file, [header(MAGIC, [words.length / 2, count, hasZero ? 1 : 0]), bytesOf(words)]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
  }
}

function loadSnapshot(file: string): FingerprintTable {
  const fd = openSync(file, 'r');
  try {
    const numbers = readHeader(fd, MAGIC, HEADER_NUMBERS);
    const [slots = 0, count = 0, hasZero = 0] = numbers ?? [];
    const headerBytes = 8 + 8 * HEADER_NUMBERS;
    if (!numbers || fstatSync(fd).size !== headerBytes + slots * 8 || count > slots) {
      throw new Error(`${file} is not a complete memory seen-set snapshot: delete it to start the set anew`);
    }
    const words = new Uint32Array(slots * 2);
    readExactly(fd, bytesOf(words), headerBytes);
    return FingerprintTable.fromSnapshot(words, count, hasZero === 1);
  } finally {
    closeSync(fd);
  }
}

export function closedError(): Error {
  return new Error('this seen set is closed: open it again to use it');
}
