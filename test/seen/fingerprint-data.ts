import { mulberry32 } from '../../bench/web/prng.js';

/** `count` pseudo-random 64-bit fingerprints, the same for the same seed. */
export function randomFingerprints(count: number, seed: number): BigUint64Array {
  const random = mulberry32(seed);
  const out = new BigUint64Array(count);
  const words = new Uint32Array(out.buffer);
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(random() * 4294967296);
  return out;
}

/** A fresh array of the given fingerprints. */
export function fps(...values: bigint[]): BigUint64Array {
  return BigUint64Array.from(values);
}

/**
 * What an exact seen set answers for `calls` made in order on an empty set (or one that
 * holds `held`): new exactly at each fingerprint's first sight.
 */
export function expectedVerdicts(calls: readonly BigUint64Array[], held: Iterable<bigint> = []): boolean[][] {
  const seen = new Set<bigint>(held);
  return calls.map((call) =>
    Array.from(call, (fp) => {
      if (seen.has(fp)) return false;
      seen.add(fp);
      return true;
    }),
  );
}
