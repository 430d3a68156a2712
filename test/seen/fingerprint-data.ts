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

/** The fingerprints first met in batch `batch` of the kill -9 test: 500, distinct from every other batch's. */
export function freshOfBatch(batch: number): BigUint64Array {
  return randomFingerprints(500, 0x5eed0000 + batch);
}

/**
 * The kill -9 test's call for `batch`: its fresh fingerprints, then 200 met in earlier
 * batches of the same run (from `first` on), which must all be seen.
 */
export function callOfBatch(batch: number, first: number): { call: BigUint64Array; fresh: number } {
  const fresh = freshOfBatch(batch);
  const call = new BigUint64Array(fresh.length + (batch > first ? 200 : 0));
  call.set(fresh);
  for (let i = fresh.length; i < call.length; i++) {
    const earlier = first + ((i * 31 + batch) % (batch - first));
    call[i] = freshOfBatch(earlier)[(i * 17) % 500] as bigint;
  }
  return { call, fresh: fresh.length };
}
