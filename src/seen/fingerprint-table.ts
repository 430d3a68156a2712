import { TWO_32 } from './words.js';

/** Fill beyond which the table grows: linear probing stays short (about 3 probes for a hit). */
const MAX_LOAD = 0.8;
/** Growth factor: after growing, the table is 53% full, so it never costs more than 15 bytes a fingerprint. */
const GROWTH = 1.5;
const MIN_SLOTS = 1024;
/** Uint32Array's largest length in Node 20 is 2^32 - 1 elements: two per slot. */
const MAX_SLOTS = 2 ** 31 - 1;

/**
 * A set of 64-bit fingerprints: open addressing with linear probing over one Uint32Array,
 * each slot two words (low half, high half), the all-zero slot meaning empty (the zero
 * fingerprint is kept in a flag). 8 bytes a slot, 10 to 15 bytes a fingerprint.
 *
 * Fingerprints are hashes already, so a slot is picked from the low 32 bits alone: they
 * are random in both layouts (the Heritrix layout's high bits repeat within a host).
 */
export class FingerprintTable {
  private words: Uint32Array;
  private slots: number;
  private hasZero = false;
  private count = 0;

  constructor(expected = 0) {
    this.slots = Math.max(MIN_SLOTS, Math.ceil(expected / MAX_LOAD) + 1);
    if (this.slots > MAX_SLOTS) throw tooLarge(expected);
    this.words = new Uint32Array(this.slots * 2);
  }

  /** Rebuilds a table from a snapshot's words (see `snapshot`). */
  static fromSnapshot(words: Uint32Array, count: number, hasZero: boolean): FingerprintTable {
    const table = new FingerprintTable();
    table.words = words;
    table.slots = words.length / 2;
    table.count = count;
    table.hasZero = hasZero;
    return table;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds now (its slot array). */
  get bytes(): number {
    return this.words.byteLength;
  }

  /** What a snapshot needs: the slot array as it is, the count and the zero flag. */
  snapshot(): { words: Uint32Array; count: number; hasZero: boolean } {
    return { words: this.words, count: this.count, hasZero: this.hasZero };
  }

  /** Adds the fingerprint (lo, hi); true when it was not there before. */
  add(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) {
      if (this.hasZero) return false;
      this.hasZero = true;
      this.count++;
      return true;
    }
    const words = this.words;
    const slots = this.slots;
    let slot = Math.floor((lo / TWO_32) * slots);
    for (;;) {
      const at = slot * 2;
      const wl = words[at] as number;
      const wh = words[at + 1] as number;
      if (wl === lo && wh === hi) return false;
      if (wl === 0 && wh === 0) break;
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    if (this.count + 1 > slots * MAX_LOAD) {
      this.grow();
      this.place(lo, hi);
    } else {
      words[slot * 2] = lo;
      words[slot * 2 + 1] = hi;
    }
    this.count++;
    return true;
  }

  has(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) return this.hasZero;
    const words = this.words;
    const slots = this.slots;
    let slot = Math.floor((lo / TWO_32) * slots);
    for (;;) {
      const at = slot * 2;
      const wl = words[at] as number;
      const wh = words[at + 1] as number;
      if (wl === lo && wh === hi) return true;
      if (wl === 0 && wh === 0) return false;
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
  }

  /** Every fingerprint, as (lo, hi) pairs in a fresh BigUint64Array, in no particular order. */
  toArray(): BigUint64Array {
    const out = new BigUint64Array(this.count);
    const outWords = new Uint32Array(out.buffer);
    let n = 0;
    if (this.hasZero) n++; // the array starts zeroed: the zero fingerprint is already there
    const words = this.words;
    for (let at = 0; at < words.length; at += 2) {
      const lo = words[at] as number;
      const hi = words[at + 1] as number;
      if (lo === 0 && hi === 0) continue;
      outWords[2 * n] = lo;
      outWords[2 * n + 1] = hi;
      n++;
    }
    return out;
  }

  clear(): void {
    this.words.fill(0);
    this.hasZero = false;
    this.count = 0;
  }

  private place(lo: number, hi: number): void {
    const words = this.words;
    const slots = this.slots;
    let slot = Math.floor((lo / TWO_32) * slots);
    while ((words[slot * 2] as number) !== 0 || (words[slot * 2 + 1] as number) !== 0) {
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    words[slot * 2] = lo;
    words[slot * 2 + 1] = hi;
  }

  private grow(): void {
    const old = this.words;
    const slots = Math.ceil(this.slots * GROWTH);
    if (slots > MAX_SLOTS) throw tooLarge(this.count);
    this.slots = slots;
    this.words = new Uint32Array(slots * 2);
    for (let at = 0; at < old.length; at += 2) {
      const lo = old[at] as number;
      const hi = old[at + 1] as number;
      if (lo !== 0 || hi !== 0) this.place(lo, hi);
    }
  }
}

function tooLarge(count: number): Error {
  return new Error(
    `the memory seen set cannot hold ${count} fingerprints (at most about 1.7 billion): use --seen drum or lmdb`,
  );
}
