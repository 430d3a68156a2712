import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32, safeFieldValue, sha1Digest } from '../../src/output/warc-record.js';

describe('base32', () => {
  it('matches the RFC 4648 test vectors (without padding)', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [input, expected] of vectors) expect(base32(Buffer.from(input))).toBe(expected);
  });
});

describe('sha1Digest', () => {
  it('gives the well-known WARC digest of the empty block', () => {
    expect(sha1Digest(Buffer.alloc(0))).toBe('sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  it('digests several parts as if they were one buffer', () => {
    const whole = Buffer.from('HTTP/1.1 200 OK\r\n\r\nhello');
    expect(sha1Digest(whole.subarray(0, 19), whole.subarray(19))).toBe(sha1Digest(whole));
    expect(sha1Digest(whole)).toMatch(/^sha1:[A-Z2-7]{32}$/);
    expect(sha1Digest(whole)).not.toBe(sha1Digest(Buffer.from('hello')));
  });

  it('agrees with an independent base32 of SHA-1 for all byte values', () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const sha1 = createHash('sha1').update(bytes).digest();
    expect(sha1Digest(bytes)).toBe(`sha1:${bitStringBase32(sha1)}`);
  });
});

describe('safeFieldValue', () => {
  it('percent-encodes line breaks so a value cannot end the header block', () => {
    expect(safeFieldValue('a\r\nWARC-Type: fake')).toBe('a%0D%0AWARC-Type: fake');
    expect(safeFieldValue('https://example.com/a b')).toBe('https://example.com/a b');
  });
});

// Deliberately a different algorithm from the one under test: through a string of bits.
function bitStringBase32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  bits = bits.padEnd(Math.ceil(bits.length / 5) * 5, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5), 2)];
  return out;
}
