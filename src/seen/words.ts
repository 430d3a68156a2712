/**
 * The seen sets' view of fingerprints as 32-bit halves (src/url/fingerprint.ts lays them
 * out and checks the machine's byte order), and 2^32 to rebuild one as a number.
 */
export { wordsOf } from '../url/fingerprint.js';

/** 2^32, to rebuild a fingerprint as a number where 53 bits are enough (slot positions). */
export const TWO_32 = 4294967296;
