import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAll } from '../write-all.js';
import type { SortedBatch } from './drum-sort.js';
import { bytesOf, fsyncDir, header, readExactly, readHeader, writeFileAtomic } from './files.js';

/**
 * drum's files, all in one folder:
 * - seen.drum: the sorted set. A header ("CWDRUM01", count, last batch merged), then the
 *   fingerprints as little-endian uint64, ascending, no duplicates.
 * - seen.drum-journal: append-only; per merge, a record of the fingerprints that merge
 *   added (its batch number, their count, then the fingerprints). It is the undo log of
 *   merges the caller has not flushed yet.
 * - seen.drum-flushed: the last batch flush() covered (with its bitwise complement, so a
 *   torn write is caught). Journal records past it are undone at open.
 */
export const DRUM_FILE = 'seen.drum';
export const JOURNAL_FILE = 'seen.drum-journal';
export const FLUSHED_FILE = 'seen.drum-flushed';

const MAGIC = 'CWDRUM01';
const HEADER_NUMBERS = 2; // count, last batch
export const SORTED_HEADER_BYTES = 8 + 8 * HEADER_NUMBERS;
const RECORD_HEADER_BYTES = 16; // batch, count

/** Fingerprints read or written per I/O call while merging: 1 MiB. */
const IO_CHUNK = 1 << 17;

export interface SortedHeader {
  count: number;
  lastBatch: number;
}

export function drumPaths(dir: string): { sorted: string; journal: string; flushed: string; temp: string } {
  const sorted = join(dir, DRUM_FILE);
  return {
    sorted,
    journal: join(dir, JOURNAL_FILE),
    flushed: join(dir, FLUSHED_FILE),
    temp: `${sorted}.tmp`,
  };
}

export function readSortedHeader(path: string): SortedHeader {
  const fd = openSync(path, 'r');
  try {
    const numbers = readHeader(fd, MAGIC, HEADER_NUMBERS);
    const [count = -1, lastBatch = 0] = numbers ?? [];
    if (!numbers || fstatSync(fd).size !== SORTED_HEADER_BYTES + count * 8) {
      throw new Error(
        `${path} is not a complete drum seen-set file: delete the folder's seen.drum* files to start anew`,
      );
    }
    return { count, lastBatch };
  } finally {
    closeSync(fd);
  }
}

export function writeEmptySorted(path: string): void {
  writeFileAtomic(path, [header(MAGIC, [0, 0])]);
}

/** The batch number in seen.drum-flushed, 0 when there is none. */
export function readFlushMark(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.alloc(16);
    if (!readExactly(fd, bytes, 0)) return 0; // created, never written: nothing was flushed
    const mark = bytes.readBigUInt64LE(0);
    if ((mark ^ bytes.readBigUInt64LE(8)) !== 0xffffffffffffffffn) {
      throw new Error(`${path} is damaged: delete the folder's seen.drum* files to start the set anew`);
    }
    return Number(mark);
  } finally {
    closeSync(fd);
  }
}

/** Writes the flush mark in place: 16 bytes, one write, so it is the old mark or the new. */
export function writeFlushMark(fd: number, batch: number, sync: boolean): void {
  const bytes = Buffer.alloc(16);
  bytes.writeBigUInt64LE(BigInt(batch), 0);
  bytes.writeBigUInt64LE(BigInt(batch) ^ 0xffffffffffffffffn, 8);
  writeSync(fd, bytes, 0, 16, 0);
  if (sync) fsyncSync(fd);
}

/** True when the fingerprint at words[2i] is below (hi, lo). */
function below(words: Uint32Array, i: number, hi: number, lo: number): boolean {
  const h = words[2 * i + 1] as number;
  return h < hi || (h === hi && (words[2 * i] as number) < lo);
}

function equalAt(words: Uint32Array, i: number, hi: number, lo: number): boolean {
  return words[2 * i + 1] === hi && words[2 * i] === lo;
}

/** The first index in [from, to) whose fingerprint is not below (hi, lo), or `to`. Galloping: cheap when it is near `from`. */
function lowerBound(words: Uint32Array, from: number, to: number, hi: number, lo: number): number {
  if (from >= to || !below(words, from, hi, lo)) return from;
  let known = from; // below
  let step = 1;
  let probe = from + 1;
  while (probe < to && below(words, probe, hi, lo)) {
    known = probe;
    step *= 2;
    probe = from + step;
  }
  let a = known + 1;
  let b = Math.min(probe, to);
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (below(words, mid, hi, lo)) a = mid + 1;
    else b = mid;
  }
  return a;
}

// One reading and one writing chunk for every pass of this thread: allocated once, so a
// long run of merges does not leave freed 4 MiB blocks behind in the allocator.
const readChunk = new Uint32Array(IO_CHUNK * 2);
const writeChunk = new Uint32Array(IO_CHUNK * 2);

/** Reads a sorted file front to back, one chunk at a time. */
class SortedReader {
  readonly words = readChunk;
  /** Fingerprints in the chunk, and the next one to use. */
  length = 0;
  at = 0;
  private nextIndex = 0;

  constructor(
    private readonly fd: number,
    private readonly count: number,
  ) {}

  /** Loads the next chunk once this one is used up; false at the end of the file. */
  refill(): boolean {
    if (this.at < this.length) return true;
    const n = Math.min(IO_CHUNK, this.count - this.nextIndex);
    if (n <= 0) return false;
    readExactly(this.fd, bytesOf(this.words.subarray(0, 2 * n)), SORTED_HEADER_BYTES + 8 * this.nextIndex);
    this.nextIndex += n;
    this.length = n;
    this.at = 0;
    return true;
  }
}

/** Writes a sorted file front to back; the header goes in last. */
class SortedWriter {
  private readonly words = writeChunk;
  private length = 0;
  count = 0;

  constructor(private readonly fd: number) {
    writeAll(fd, new Uint8Array(SORTED_HEADER_BYTES)); // room for the header
  }

  appendRange(source: Uint32Array, from: number, to: number): void {
    while (from < to) {
      const take = Math.min(IO_CHUNK - this.length, to - from);
      this.words.set(source.subarray(2 * from, 2 * (from + take)), 2 * this.length);
      this.length += take;
      this.count += take;
      from += take;
      if (this.length === IO_CHUNK) this.drain();
    }
  }

  appendOne(lo: number, hi: number): void {
    this.words[2 * this.length] = lo;
    this.words[2 * this.length + 1] = hi;
    this.length++;
    this.count++;
    if (this.length === IO_CHUNK) this.drain();
  }

  finish(lastBatch: number): void {
    this.drain();
    writeSync(this.fd, header(MAGIC, [this.count, lastBatch]), 0, SORTED_HEADER_BYTES, 0);
    fsyncSync(this.fd);
  }

  private drain(): void {
    writeAll(this.fd, bytesOf(this.words.subarray(0, 2 * this.length)));
    this.length = 0;
  }
}

/** Copies the reader's fingerprints below (hi, lo) to the writer; false when the input ran out. */
function copyBelow(reader: SortedReader, writer: SortedWriter | undefined, hi: number, lo: number): boolean {
  for (;;) {
    if (!reader.refill()) return false;
    const stop = lowerBound(reader.words, reader.at, reader.length, hi, lo);
    writer?.appendRange(reader.words, reader.at, stop);
    reader.at = stop;
    if (stop < reader.length) return true;
  }
}

function copyRest(reader: SortedReader, writer: SortedWriter): void {
  while (reader.refill()) {
    writer.appendRange(reader.words, reader.at, reader.length);
    reader.at = reader.length;
  }
}

/** Opens the input and output of one pass over the sorted file. */
function pass<T>(input: string, output: string, body: (reader: SortedReader, writer: SortedWriter) => T): T {
  const { count } = readSortedHeader(input);
  const inFd = openSync(input, 'r');
  try {
    const outFd = openSync(output, 'w');
    try {
      return body(new SortedReader(inFd, count), new SortedWriter(outFd));
    } finally {
      closeSync(outFd);
    }
  } finally {
    closeSync(inFd);
  }
}

/**
 * The merge: one sequential pass that writes input ∪ keys to `output` (fsynced). `keys`
 * are sorted and distinct; `isNew[i]` is set to 1 for each key the input did not hold.
 */
export function mergeInto(
  input: string,
  output: string,
  keys: SortedBatch,
  isNew: Uint8Array,
  lastBatch: number,
): { addedCount: number; total: number } {
  return pass(input, output, (reader, writer) => {
    let addedCount = 0;
    const words = keys.words;
    for (let i = 0; i < keys.count; i++) {
      const lo = words[2 * i] as number;
      const hi = words[2 * i + 1] as number;
      const more = copyBelow(reader, writer, hi, lo);
      if (more && equalAt(reader.words, reader.at, hi, lo)) continue; // held: copied with the next run
      writer.appendOne(lo, hi);
      isNew[i] = 1;
      addedCount++;
    }
    copyRest(reader, writer);
    writer.finish(lastBatch);
    return { addedCount, total: writer.count };
  });
}

/** The undo: writes input minus keys (sorted, distinct) to `output` (fsynced); returns how many remain. */
export function subtractFrom(input: string, output: string, keys: SortedBatch, lastBatch: number): number {
  return pass(input, output, (reader, writer) => {
    const words = keys.words;
    for (let i = 0; i < keys.count; i++) {
      const lo = words[2 * i] as number;
      const hi = words[2 * i + 1] as number;
      if (copyBelow(reader, writer, hi, lo) && equalAt(reader.words, reader.at, hi, lo)) reader.at++;
    }
    copyRest(reader, writer);
    writer.finish(lastBatch);
    return writer.count;
  });
}

/** Puts a finished pass's output in place of the sorted file: rename, then fsync the folder. */
export function install(output: string, sorted: string): void {
  renameSync(output, sorted);
  fsyncDir(dirname(sorted));
}

/**
 * For each fingerprint of the batch, in the batch's order, into `out` (batchCount bytes):
 * 1 when the merge added it and this is its first occurrence in the batch (the position
 * dropRepeats kept), else 0.
 */
export function verdictsInto(keys: SortedBatch, isNew: Uint8Array, out: Uint8Array): void {
  out.fill(0);
  for (let i = 0; i < keys.count; i++) if (isNew[i] === 1) out[keys.at[i] as number] = 1;
}

function recordHead(batch: number, count: number): Buffer {
  const head = Buffer.alloc(RECORD_HEADER_BYTES);
  head.writeBigUInt64LE(BigInt(batch), 0);
  head.writeBigUInt64LE(BigInt(count), 8);
  return head;
}

/** Fingerprints the journal handles at a time, reading or writing: 512 KiB, made once. */
const JOURNAL_SLICE = 1 << 16;
const journalSlice = new Uint32Array(2 * JOURNAL_SLICE);

/** The journal: an append-only file of records (batch, count, fingerprints). */
export class Journal {
  private fd: number;
  private size: number;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'a+');
    this.size = fstatSync(this.fd).size;
  }

  get bytes(): number {
    return this.size;
  }

  /**
   * Appends the record of one merge: the keys it added (those with `isNew` set, `count`
   * of them), copied out a slice at a time. fsynced: it must be on disk before the
   * merge it undoes is installed.
   */
  append(batch: number, keys: SortedBatch, isNew: Uint8Array, count: number): void {
    writeAll(this.fd, recordHead(batch, count));
    const slice = journalSlice;
    let n = 0;
    for (let i = 0; i < keys.count; i++) {
      if (isNew[i] !== 1) continue;
      slice[2 * n] = keys.words[2 * i] as number;
      slice[2 * n + 1] = keys.words[2 * i + 1] as number;
      if (++n * 2 === slice.length) {
        writeAll(this.fd, bytesOf(slice));
        n = 0;
      }
    }
    writeAll(this.fd, bytesOf(slice.subarray(0, 2 * n)));
    fsyncSync(this.fd);
    this.size += RECORD_HEADER_BYTES + 8 * count;
  }

  /**
   * Calls `visit` for each complete record, in order, with its fingerprints' words, a
   * slice of at most JOURNAL_SLICE fingerprints at a time: a large record comes in several
   * calls with the same batch (`words` is valid during the call only). Reading through one
   * slice made once keeps a long recovery or a trim from allocating a record's worth each
   * time. A record cut short by a kill is the last one: it is skipped.
   */
  forEach(visit: (batch: number, words: Uint32Array, count: number) => void): void {
    this.eachRecord((batch, count, body) => {
      for (let done = 0; done < count; ) {
        const n = Math.min(JOURNAL_SLICE, count - done);
        const words = journalSlice.subarray(0, 2 * n);
        readExactly(this.fd, bytesOf(words), body + 8 * done);
        visit(batch, words, n);
        done += n;
      }
    });
  }

  /**
   * Keeps only the records of batches after `through`: the others belong to flushed
   * merges, which stay. Copied record by record, a slice at a time, to a new file that
   * replaces this one.
   */
  dropThrough(through: number): void {
    const temp = `${this.path}.tmp`;
    const tempFd = openSync(temp, 'w');
    const slice = bytesOf(journalSlice);
    try {
      this.eachRecord((batch, count, body) => {
        if (batch <= through) return;
        writeAll(tempFd, recordHead(batch, count));
        for (let done = 0; done < 8 * count; ) {
          const n = Math.min(slice.length, 8 * count - done);
          readExactly(this.fd, slice.subarray(0, n), body + done);
          writeAll(tempFd, slice.subarray(0, n));
          done += n;
        }
      });
      fsyncSync(tempFd);
    } finally {
      closeSync(tempFd);
    }
    renameSync(temp, this.path);
    fsyncDir(dirname(this.path));
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a+');
    this.size = fstatSync(this.fd).size;
  }

  /** Each complete record's batch, count and where its fingerprints start in the file. */
  private eachRecord(visit: (batch: number, count: number, body: number) => void): void {
    const head = Buffer.alloc(RECORD_HEADER_BYTES);
    let position = 0;
    while (position + RECORD_HEADER_BYTES <= this.size) {
      readExactly(this.fd, head, position);
      const batch = Number(head.readBigUInt64LE(0));
      const count = Number(head.readBigUInt64LE(8));
      const end = position + RECORD_HEADER_BYTES + 8 * count;
      if (end > this.size) return;
      visit(batch, count, position + RECORD_HEADER_BYTES);
      position = end;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Removes what a pass killed midway left behind. */
export function removeLeftovers(paths: { temp: string; journal: string }): void {
  for (const path of [paths.temp, `${paths.journal}.tmp`]) if (existsSync(path)) unlinkSync(path);
}
