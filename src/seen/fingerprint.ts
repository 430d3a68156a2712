import { fingerprintInto, fingerprints } from '../url/fingerprint.js';
import { wordsOf } from './words.js';

/**
 * The seen sets' fingerprints: the URL's own (src/url/fingerprint.ts, MurmurHash3), and
 * Heritrix's layout made of it for the sets that keep their keys sorted on disk.
 */

export { fingerprint, fingerprints } from '../url/fingerprint.js';

const scratch = new BigUint64Array(2);
const scratchWords = wordsOf(scratch);

/**
 * Where a URL's origin (scheme, "://", host and port) ends: the first "/", "?" or "#"
 * after "://", else the end. A URL without "://" counts as all origin.
 */
function originEnd(url: string): number {
  const slashes = url.indexOf('://');
  if (slashes < 0) return url.length;
  for (let i = slashes + 3; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) return i;
  }
  return url.length;
}

/**
 * Heritrix's layout (its BdbUriUniqFilter key): the top 24 bits are a fingerprint of the
 * URL's scheme and host (with its port, when the URL has one), the low 40 bits a
 * fingerprint of the whole URL. Sorted keys then keep each host's URLs together on disk.
 */
function heritrixInto(url: string, words: Uint32Array, at: number): void {
  fingerprintInto(url, 0, originEnd(url), words, at);
  const hostTop24 = (words[at + 1] as number) & 0xffffff00;
  fingerprintInto(url, 0, url.length, words, at);
  words[at + 1] = (hostTop24 | ((words[at + 1] as number) & 0xff)) >>> 0;
}

/** The Heritrix-layout fingerprint: 24 bits of scheme+host, then 40 bits of the URL. */
export function heritrixFingerprint(url: string): bigint {
  heritrixInto(url, scratchWords, 0);
  return scratch[0] as bigint;
}

/** Heritrix-layout fingerprints of many URLs at once, into `out` (made to fit when not given). */
export function heritrixFingerprints(
  urls: readonly string[],
  out: BigUint64Array = new BigUint64Array(urls.length),
): BigUint64Array {
  const words = wordsOf(out);
  for (let i = 0; i < urls.length; i++) heritrixInto(urls[i] as string, words, 2 * i);
  return out;
}

/** The two layouts by name, for options and the benchmark. */
export type FingerprintLayout = 'plain' | 'heritrix';

export function fingerprintsFor(layout: FingerprintLayout): typeof fingerprints {
  return layout === 'heritrix' ? heritrixFingerprints : fingerprints;
}
