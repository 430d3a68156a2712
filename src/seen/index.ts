/** URL-seen sets: the contract, the four strategies behind it and their fingerprints. */
export {
  type BloomParameters,
  BloomSeenSet,
  type BloomStats,
  bloomFpRate,
  bloomParameters,
} from './bloom.js';
export { DrumSeenSet } from './drum.js';
export {
  type FingerprintLayout,
  fingerprint,
  fingerprints,
  fingerprintsFor,
  heritrixFingerprint,
  heritrixFingerprints,
} from './fingerprint.js';
export type { LmdbSeenSet } from './lmdb.js';
export { MemorySeenSet } from './memory.js';
export { openSeenSet, SEEN_KINDS, type SeenKind, type SeenSetOptions } from './open.js';
export type { SeenSet } from './types.js';
