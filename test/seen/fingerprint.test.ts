import { describe, expect, it } from 'vitest';
import {
  fingerprint,
  fingerprints,
  heritrixFingerprint,
  heritrixFingerprints,
} from '../../src/seen/fingerprint.js';

// MurmurHash3 x86_128 with seed 0 over the UTF-8 bytes, first 64 bits (h2 << 32 | h1), as
// computed by the reference-matching murmurhash3js-revisited package.
const REFERENCE: Array<[string, bigint]> = [
  ['', 0x0000000000000000n],
  ['a', 0x5556b01ba794933cn],
  ['abc', 0xa2b006a575cdc6d1n],
  ['https://example.com/', 0x6553761618f71c08n],
  ['https://www.site1.example/section3/page-1234.html?ref=5', 0xbb9211cd701d4f0fn],
  ['https://例え.jp/日本', 0xd88fe11f9b986aecn],
  ['https://ex.com/é?q=ü', 0x662b48c0c621629cn],
];

const LOW_40 = (1n << 40n) - 1n;

describe('fingerprint', () => {
  it.each(REFERENCE)('matches the MurmurHash3 reference for %j', (text, expected) => {
    expect(fingerprint(text)).toBe(expected);
  });

  it('hashes a batch into one BigUint64Array, the same as one by one', () => {
    const urls = REFERENCE.map(([text]) => text);
    expect(Array.from(fingerprints(urls))).toEqual(urls.map(fingerprint));
    const out = new BigUint64Array(urls.length + 2);
    expect(fingerprints(urls, out)).toBe(out);
    expect(out[urls.length]).toBe(0n);
  });

  it('hashes text that is not ASCII as its UTF-8 bytes, in the blocks as in the tail', () => {
    const url = `https://example.com/${'日本'.repeat(20)}/é`;
    expect(fingerprint(url)).toBe(0xbb333449d52d05a2n);
    expect(fingerprints([url, 'a'])).toEqual(BigUint64Array.from([0xbb333449d52d05a2n, 0x5556b01ba794933cn]));
  });
});

describe('heritrixFingerprint', () => {
  const urls = [
    'https://a.example/one',
    'https://a.example/two?x=1',
    'https://a.example',
    'https://b.example/one',
    'http://a.example/one',
    'https://a.example:8443/one',
  ];
  const keys = heritrixFingerprints(urls);

  it('puts a fingerprint of the scheme and host in the top 24 bits', () => {
    const top = Array.from(keys, (key) => key >> 40n);
    expect(top[1]).toBe(top[0]);
    expect(top[2]).toBe(top[0]);
    expect(new Set(top.slice(2)).size).toBe(4); // other host, other scheme, other port
  });

  it('takes the low 40 bits from the whole URL', () => {
    urls.forEach((url, i) => {
      expect((keys[i] as bigint) & LOW_40).toBe(fingerprint(url) & LOW_40);
      expect(heritrixFingerprint(url)).toBe(keys[i]);
    });
  });
});
