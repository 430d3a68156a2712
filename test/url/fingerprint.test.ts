import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fingerprint as seenFingerprint } from '../../src/seen/fingerprint.js';
import { fingerprint } from '../../src/url/fingerprint.js';

const UINT64_MAX = 2n ** 64n - 1n;
const TOP_BIT = 2n ** 63n;

describe('fingerprint', () => {
  it('is the first 64 bits of MurmurHash3 x86_128 (seed 0) of the URL, unsigned', () => {
    // The reference implementation's values (test/seen/fingerprint.test.ts has more).
    expect(fingerprint('https://example.com/')).toBe(0x6553761618f71c08n);
    expect(fingerprint('https://www.site1.example/section3/page-1234.html?ref=5')).toBe(0xbb9211cd701d4f0fn);
  });

  it('hashes the UTF-8 bytes of the string', () => {
    expect(fingerprint('https://ex.com/é?q=ü')).toBe(0x662b48c0c621629cn);
  });

  it('is the one the seen sets use', () => {
    const url = 'https://www.example.org/a/b?c=d';
    expect(seenFingerprint(url)).toBe(fingerprint(url));
  });

  it('is stable across calls', () => {
    const url = 'https://www.example.org/a/b?c=d';
    expect(fingerprint(url)).toBe(fingerprint(url));
  });

  it('gives different URLs different values, all in the unsigned 64-bit range, with and without the top bit', () => {
    const values = Array.from({ length: 10_000 }, (_, i) =>
      fingerprint(`https://example.com/page/${i}?sort=${i % 7}`),
    );
    expect(values.every((value) => value >= 0n && value <= UINT64_MAX)).toBe(true);
    const topBit = values.filter((value) => value >= TOP_BIT).length;
    expect(new Set(values).size).toBe(10_000);
    // The hash's bits are uniform, so both halves appear; a bug in the high word would give none of one.
    expect(topBit).toBeGreaterThan(0);
    expect(topBit).toBeLessThan(10_000);
  });

  it('round-trips through a SQLite INTEGER PRIMARY KEY', () => {
    const db = new Database(':memory:');
    try {
      db.defaultSafeIntegers(true);
      db.exec('CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO urls (id, url) VALUES (?, ?)');
      const urls = ['http://example.com/', 'https://example.com/caf%C3%A9', 'https://example.org/x?y=1'];
      // SQLite integers are signed: the same 64 bits, read as signed.
      const key = (url: string) => BigInt.asIntN(64, fingerprint(url));
      for (const url of urls) insert.run(key(url), url);
      const lookup = db.prepare<[bigint], { url: string }>('SELECT url FROM urls WHERE id = ?');
      for (const url of urls) expect(lookup.get(key(url))?.url).toBe(url);
    } finally {
      db.close();
    }
  });
});
