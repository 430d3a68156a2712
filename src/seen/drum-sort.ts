/**
 * A batch sorted by fingerprint, each with its position in the batch: fingerprint i is
 * `words[2 * i]` (low half), `words[2 * i + 1]` (high half), at position `at[i]`, i < count.
 */
export interface SortedBatch {
  words: Uint32Array;
  at: Uint32Array;
  count: number;
}

/** Bytes a merge needs beside its batch, per fingerprint of the buffer: the sort's 16, isNew's 1, the verdicts' 1. */
export const SCRATCH_BYTES_PER_FINGERPRINT = 18;

/**
 * The arrays one merge works in besides its batch, in one ArrayBuffer so that it can
 * travel between the threads whole: the radix sort's second array and its two arrays of
 * positions, a byte per sorted key (new or held), and a byte per fingerprint of the
 * batch (the verdicts the caller reads). Made once for `capacity` fingerprints and
 * reused merge after merge: a long run of merges allocates nothing (freed blocks would
 * pile up in the allocator), and the caller lets it go when the set goes idle.
 */
export class MergeScratch {
  readonly words: Uint32Array;
  readonly atA: Uint32Array;
  readonly atB: Uint32Array;
  readonly isNew: Uint8Array;
  readonly verdicts: Uint8Array;

  constructor(
    readonly buffer: ArrayBuffer,
    readonly capacity: number,
  ) {
    this.words = new Uint32Array(buffer, 0, 2 * capacity);
    this.atA = new Uint32Array(buffer, 8 * capacity, capacity);
    this.atB = new Uint32Array(buffer, 12 * capacity, capacity);
    this.isNew = new Uint8Array(buffer, 16 * capacity, capacity);
    this.verdicts = new Uint8Array(buffer, 17 * capacity, capacity);
  }

  static make(capacity: number): MergeScratch {
    return new MergeScratch(new ArrayBuffer(SCRATCH_BYTES_PER_FINGERPRINT * capacity), capacity);
  }

  /** The scratch in `buffer` if it is one for `capacity`, else a new one. */
  static reuse(buffer: ArrayBuffer | undefined, capacity: number): MergeScratch {
    return buffer !== undefined && buffer.byteLength === SCRATCH_BYTES_PER_FINGERPRINT * capacity
      ? new MergeScratch(buffer, capacity)
      : MergeScratch.make(capacity);
  }
}

/** The radix sort's digit counts: 256 KiB. */
const counts = new Uint32Array(65536);

/**
 * Sorts a batch by fingerprint, keeping positions: an LSD radix sort, 16 bits a pass,
 * four passes, each a sequential read and a write into 65,536 runs. It is stable, so
 * among equal fingerprints the first in the batch comes first. The batch's own array
 * (`count` fingerprints of `words`: low, high, low, high, ...) is one of the two it
 * sorts between, and the sorted batch ends there, its order lost; the other arrays are
 * the scratch's.
 */
export function sortBatch(words: Uint32Array, count: number, scratch: MergeScratch): SortedBatch {
  let from: Uint32Array = words;
  let to: Uint32Array = scratch.words;
  let fromAt: Uint32Array = scratch.atB; // unused in the first pass: positions start as 0, 1, 2, ...
  let toAt: Uint32Array = scratch.atA;
  for (let pass = 0; pass < 4; pass++) {
    const half = pass < 2 ? 0 : 1;
    const shift = (pass & 1) * 16;
    counts.fill(0);
    for (let i = 0; i < count; i++) {
      const d = ((from[2 * i + half] as number) >>> shift) & 0xffff;
      counts[d] = (counts[d] as number) + 1;
    }
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = counts[d] as number;
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < count; i++) {
      const d = ((from[2 * i + half] as number) >>> shift) & 0xffff;
      const j = counts[d] as number;
      counts[d] = j + 1;
      to[2 * j] = from[2 * i] as number;
      to[2 * j + 1] = from[2 * i + 1] as number;
      toAt[j] = pass === 0 ? i : (fromAt[i] as number);
    }
    [from, to] = [to, from];
    [fromAt, toAt] = [toAt, fromAt];
  }
  // Four passes: the sorted fingerprints are back in `words`.
  return { words: from, at: fromAt, count };
}

/** Drops repeats from a sorted batch, in place, keeping each fingerprint's first position; returns the distinct count. */
export function dropRepeats(batch: SortedBatch): number {
  const { words, at } = batch;
  let kept = 0;
  for (let i = 0; i < batch.count; i++) {
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    if (kept > 0 && words[2 * kept - 2] === lo && words[2 * kept - 1] === hi) continue;
    words[2 * kept] = lo;
    words[2 * kept + 1] = hi;
    at[kept] = at[i] as number;
    kept++;
  }
  batch.count = kept;
  return kept;
}
