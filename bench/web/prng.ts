/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: tiny, fast and good enough for test data. We need determinism, not quality:
 * the same seed must give the same web on every machine and Node version, which
 * Math.random cannot promise.
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One independent stream per page, so any page can be rendered on request without
 * replaying the generator for the pages before it.
 */
export function pageRandom(seed: number, hostIndex: number, pageIndex: number): Random {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (hostIndex + 0x632be5ab), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ (pageIndex + 0x27d4eb2f), 0x165667b1);
  return mulberry32(h ^ (h >>> 13));
}

/** An integer in [0, n). */
export function randomInt(random: Random, n: number): number {
  return Math.floor(random() * n);
}
