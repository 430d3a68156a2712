import { closeSync, existsSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { bytesOf, header, readExactly, readHeader, writeFileAtomic } from './files.js';
import { closedError } from './memory.js';
import type { SeenSet } from './types.js';
import { wordsOf } from './words.js';

const MAGIC = 'CWBLOOM1';
const HEADER_NUMBERS = 4; // bits, hashes, count, capacity; then fpRate as a float64
const HEADER_BYTES = 8 + 8 * HEADER_NUMBERS + 8;
export const BLOOM_FILE = 'seen.bloom';

export interface BloomSeenSetOptions {
  /** Where flush() writes the filter and open reads it back; none: memory only. */
  dir?: string;
  /** n: the fingerprints the filter is sized for. Past it, the false-positive rate climbs. */
  capacity: number;
  /** p: the false-positive rate wanted at `capacity` fingerprints. */
  fpRate: number;
}

export interface BloomParameters {
  /** m, rounded up to whole 32-bit words. */
  bits: number;
  /** k */
  hashes: number;
}

/**
 * The standard choice for n items and a false-positive rate p:
 * m = -n ln p / (ln 2)^2 bits and k = (m / n) ln 2 hash functions (rounded, at least 1).
 */
export function bloomParameters(capacity: number, fpRate: number): BloomParameters {
  const bits = Math.ceil((-capacity * Math.log(fpRate)) / Math.LN2 ** 2 / 32) * 32;
  const hashes = Math.max(1, Math.round((bits / capacity) * Math.LN2));
  return { bits, hashes };
}

/** The false-positive rate of a filter with m bits and k hashes holding n items: (1 - e^(-kn/m))^k. */
export function bloomFpRate(bits: number, hashes: number, count: number): number {
  return (1 - Math.exp((-hashes * count) / bits)) ** hashes;
}

export interface BloomStats extends BloomParameters {
  capacity: number;
  /** The target p. */
  fpRate: number;
  /** Insertions that were new (an estimate of the fingerprints held: false positives are missing). */
  count: number;
  /** (1 - e^(-k count / m))^k: the rate a new fingerprint is taken as seen, now. */
  estimatedFpRate: number;
  bytes: number;
}

/**
 * A Bloom filter: m bits, k positions per fingerprint by double hashing (Kirsch and
 * Mitzenmacher: position i = h1 + i * h2 mod m, both taken from the 64-bit fingerprint,
 * which is already a hash). Never says "new" for a fingerprint it holds; says "seen" for
 * a new one with probability about p, and that URL is never crawled.
 */
export class BloomSeenSet implements SeenSet {
  readonly exact = false;
  private closed = false;

  private constructor(
    private readonly filter: Uint32Array,
    private readonly parameters: BloomParameters,
    private readonly capacity: number,
    private readonly fpRate: number,
    private count: number,
    private readonly file: string | undefined,
  ) {}

  static open(options: BloomSeenSetOptions): BloomSeenSet {
    const file = options.dir === undefined ? undefined : join(options.dir, BLOOM_FILE);
    if (options.dir !== undefined) mkdirSync(options.dir, { recursive: true });
    if (file !== undefined && existsSync(file)) return BloomSeenSet.load(file);
    const parameters = bloomParameters(options.capacity, options.fpRate);
    const filter = new Uint32Array(parameters.bits / 32);
    return new BloomSeenSet(filter, parameters, options.capacity, options.fpRate, 0, file);
  }

  private static load(file: string): BloomSeenSet {
    const fd = openSync(file, 'r');
    try {
      const numbers = readHeader(fd, MAGIC, HEADER_NUMBERS);
      const [bits = 0, hashes = 0, count = 0, capacity = 0] = numbers ?? [];
      if (!numbers || bits % 32 !== 0 || fstatSync(fd).size !== HEADER_BYTES + bits / 8) {
        throw new Error(`${file} is not a complete Bloom filter: delete it to start the set anew`);
      }
      const rate = Buffer.alloc(8);
      readExactly(fd, rate, HEADER_BYTES - 8);
      const filter = new Uint32Array(bits / 32);
      readExactly(fd, bytesOf(filter), HEADER_BYTES);
      return new BloomSeenSet(filter, { bits, hashes }, capacity, rate.readDoubleLE(0), count, file);
    } finally {
      closeSync(fd);
    }
  }

  get size(): number {
    return this.count;
  }

  stats(): BloomStats {
    const { bits, hashes } = this.parameters;
    return {
      bits,
      hashes,
      capacity: this.capacity,
      fpRate: this.fpRate,
      count: this.count,
      estimatedFpRate: bloomFpRate(bits, hashes, this.count),
      bytes: this.filter.byteLength,
    };
  }

  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    if (this.closed) return Promise.reject(closedError());
    const words = wordsOf(fingerprints);
    const result = new Array<boolean>(fingerprints.length);
    let added = 0;
    for (let i = 0; i < fingerprints.length; i++) {
      const isNew = this.probe(words[2 * i] as number, words[2 * i + 1] as number, true);
      result[i] = isNew;
      if (isNew) added++;
    }
    this.count += added;
    return Promise.resolve(result);
  }

  /** Whether each fingerprint may be in the filter, without adding any (for measuring). */
  mightContain(fingerprints: BigUint64Array): boolean[] {
    const words = wordsOf(fingerprints);
    const result = new Array<boolean>(fingerprints.length);
    for (let i = 0; i < fingerprints.length; i++) {
      result[i] = !this.probe(words[2 * i] as number, words[2 * i + 1] as number, false);
    }
    return result;
  }

  async flush(): Promise<void> {
    if (this.closed) throw closedError();
    if (this.file === undefined) return;
    // Synchronous, like the memory snapshot: the file holds exactly the marks made before flush().
    const { bits, hashes } = this.parameters;
    const rate = Buffer.alloc(8);
    rate.writeDoubleLE(this.fpRate);
    writeFileAtomic(this.file, [
      header(MAGIC, [bits, hashes, this.count, this.capacity]),
      rate,
      bytesOf(this.filter),
    ]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
  }

  /** True when some position was unset (the fingerprint is new); sets them all when `set`. */
  private probe(lo: number, hi: number, set: boolean): boolean {
    const filter = this.filter;
    const { bits, hashes } = this.parameters;
    // h1: 53 bits of the fingerprint, so filters past 2^32 bits are covered; h2: the
    // other bits mixed, odd, so that the k positions differ.
    let position = (hi * 2 ** 21 + (lo >>> 11)) % bits;
    let step = Math.imul(lo ^ (hi >>> 7), 0x9e3779b1) ^ (hi << 11);
    step = ((step | 1) >>> 0) % bits;
    let wasNew = false;
    for (let i = 0; i < hashes; i++) {
      const word = Math.floor(position / 32);
      const mask = 1 << (position % 32);
      const value = filter[word] as number;
      if ((value & mask) === 0) {
        wasNew = true;
        if (!set) return true;
        filter[word] = value | mask;
      }
      position += step;
      if (position >= bits) position -= bits;
    }
    return wasNew;
  }
}
