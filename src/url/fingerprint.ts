import { endianness } from 'node:os';

/**
 * The 64-bit key of a canonical URL, the one every part of cobweb uses: the seen sets
 * (src/seen), the SQLite store's seen table and PostgreSQL's crawler_links.fingerprint.
 *
 * The hash is MurmurHash3 x86_128 (seed 0), of which we keep the first 64 bits, read as an
 * unsigned integer (a store that keeps signed 64-bit integers takes the same bits as
 * signed: BigInt.asIntN(64, ...)). It is written here in plain JavaScript over 32-bit
 * integer arithmetic. Measured against xxHash64 from xxhash-wasm and @node-rs/xxhash,
 * FNV-1a 64 in JavaScript and node:crypto's SHA-1 and MD5 on crawl-shaped URLs, it was
 * the fastest (docs/seen.md has the figures): it needs no BigInt and no call across a
 * native or WebAssembly boundary, and canonical URLs are ASCII, so their UTF-16 code
 * units are their UTF-8 bytes and nothing is encoded. A URL with other characters is
 * hashed over its UTF-8 bytes, which gives the same function.
 *
 * An integer key is far smaller and faster to index than the URL text. The chance that
 * any two of n URLs collide is about n^2 / 2^65: negligible for a million URLs, about 3%
 * for a billion.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * MurmurHash3 x86_128 of the code units data[start, end), each taken as one byte, writing
 * its first 64 bits to words[at] (low half) and words[at + 1] (high half). Returns the OR
 * of every code unit read, so the caller can tell whether one was not a byte of ASCII.
 */
function murmur(data: string, start: number, end: number, words: Uint32Array, at: number): number {
  const len = end - start;
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  let seenBits = 0;
  let p = start;
  const blocksEnd = start + (len & ~15);
  for (; p < blocksEnd; p += 16) {
    // Every code unit is ORed into seenBits on its own: a unit above 0xff would spill
    // into its neighbour once shifted, and the check below must still catch it.
    const c0 = data.charCodeAt(p);
    const c1 = data.charCodeAt(p + 1);
    const c2 = data.charCodeAt(p + 2);
    const c3 = data.charCodeAt(p + 3);
    const c4 = data.charCodeAt(p + 4);
    const c5 = data.charCodeAt(p + 5);
    const c6 = data.charCodeAt(p + 6);
    const c7 = data.charCodeAt(p + 7);
    const c8 = data.charCodeAt(p + 8);
    const c9 = data.charCodeAt(p + 9);
    const c10 = data.charCodeAt(p + 10);
    const c11 = data.charCodeAt(p + 11);
    const c12 = data.charCodeAt(p + 12);
    const c13 = data.charCodeAt(p + 13);
    const c14 = data.charCodeAt(p + 14);
    const c15 = data.charCodeAt(p + 15);
    seenBits |= c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11 | c12 | c13 | c14 | c15;
    let k1 = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
    let k2 = c4 | (c5 << 8) | (c6 << 16) | (c7 << 24);
    let k3 = c8 | (c9 << 8) | (c10 << 16) | (c11 << 24);
    let k4 = c12 | (c13 << 8) | (c14 << 16) | (c15 << 24);
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = rotl(h1, 19);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = rotl(h2, 17);
    h2 = (h2 + h3) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = rotl(h3, 15);
    h3 = (h3 + h4) | 0;
    h3 = (Math.imul(h3, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = rotl(h4, 13);
    h4 = (h4 + h1) | 0;
    h4 = (Math.imul(h4, 5) + 0x32ac3b17) | 0;
  }
  // The tail: up to 15 bytes, gathered into k1..k4 as the reference's switch does.
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  const tail = len & 15;
  for (let i = tail - 1; i >= 0; i--) {
    const byte = data.charCodeAt(p + i);
    seenBits |= byte;
    const shift = (i & 3) << 3;
    if (i >= 12) k4 ^= byte << shift;
    else if (i >= 8) k3 ^= byte << shift;
    else if (i >= 4) k2 ^= byte << shift;
    else k1 ^= byte << shift;
  }
  if (tail > 12) h4 ^= Math.imul(rotl(Math.imul(k4, C4), 18), C1);
  if (tail > 8) h3 ^= Math.imul(rotl(Math.imul(k3, C3), 17), C4);
  if (tail > 4) h2 ^= Math.imul(rotl(Math.imul(k2, C2), 16), C3);
  if (tail > 0) h1 ^= Math.imul(rotl(Math.imul(k1, C1), 15), C2);

  h1 ^= len;
  h2 ^= len;
  h3 ^= len;
  h4 ^= len;
  h1 = (((h1 + h2) | 0) + ((h3 + h4) | 0)) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (((h1 + h2) | 0) + ((h3 + h4) | 0)) | 0;
  h2 = (h2 + h1) | 0;
  words[at] = h1 >>> 0;
  words[at + 1] = h2 >>> 0;
  return seenBits;
}

/**
 * Hashes text[start, end) as UTF-8 into words[at] (low 32 bits) and words[at + 1] (high
 * 32 bits): the fingerprint of that part of the text. The seen sets' Heritrix layout is
 * made of two of these (src/seen/fingerprint.ts).
 */
export function fingerprintInto(
  text: string,
  start: number,
  end: number,
  words: Uint32Array,
  at: number,
): void {
  if (murmur(text, start, end, words, at) < 0x80) return;
  // Not ASCII (rare: canonical URLs are percent-encoded): hash the UTF-8 bytes, spelled
  // as a latin1 string so that each code unit is one byte and one function serves both.
  const bytes = Buffer.from(text.slice(start, end), 'utf8').toString('latin1');
  murmur(bytes, 0, bytes.length, words, at);
}

// Fingerprints are read and written through 32-bit halves: a BigUint64Array element read
// from JavaScript allocates a BigInt, two Uint32Array reads do not. The halves' order in
// memory depends on the machine; every platform Node ships for is little-endian, and the
// on-disk formats of the seen sets (drum's sorted file, the snapshots) are the raw
// arrays, so say so once, here, where the halves are laid out.
if (endianness() !== 'LE') {
  throw new Error('cobweb fingerprints need a little-endian machine (x86-64, arm64): this one is big-endian');
}

/**
 * A Uint32Array over the same bytes as `fingerprints`: fingerprint i is
 * `words[2 * i]` (its low 32 bits) and `words[2 * i + 1]` (its high 32 bits).
 */
export function wordsOf(fingerprints: BigUint64Array): Uint32Array {
  return new Uint32Array(fingerprints.buffer, fingerprints.byteOffset, fingerprints.length * 2);
}

const scratch = new BigUint64Array(2);
const scratchWords = wordsOf(scratch);

/** The 64-bit fingerprint of a canonical URL (MurmurHash3 x86_128 of its UTF-8, first 64 bits). */
export function fingerprint(url: string): bigint {
  fingerprintInto(url, 0, url.length, scratchWords, 0);
  return scratch[0] as bigint;
}

/** Fingerprints of many URLs at once, into `out` (made to fit when not given). */
export function fingerprints(
  urls: readonly string[],
  out: BigUint64Array = new BigUint64Array(urls.length),
): BigUint64Array {
  const words = wordsOf(out);
  for (let i = 0; i < urls.length; i++) {
    const url = urls[i] as string;
    fingerprintInto(url, 0, url.length, words, 2 * i);
  }
  return out;
}
