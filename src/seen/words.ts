import { endianness } from 'node:os';

// Every seen set reads fingerprints through 32-bit halves: a BigUint64Array element read
// from JavaScript allocates a BigInt, two Uint32Array reads do not. The halves' order in
// memory depends on the machine; every platform Node ships for is little-endian, and the
// on-disk formats (drum's sorted file, the snapshots) are the raw arrays, so say so once.
if (endianness() !== 'LE') {
  throw new Error('cobweb seen sets need a little-endian machine (x86-64, arm64): this one is big-endian');
}

/**
 * A Uint32Array over the same bytes as `fingerprints`: fingerprint i is
 * `words[2 * i]` (its low 32 bits) and `words[2 * i + 1]` (its high 32 bits).
 */
export function wordsOf(fingerprints: BigUint64Array): Uint32Array {
  return new Uint32Array(fingerprints.buffer, fingerprints.byteOffset, fingerprints.length * 2);
}

/** 2^32, to rebuild a fingerprint as a number where 53 bits are enough (slot positions). */
export const TWO_32 = 4294967296;
