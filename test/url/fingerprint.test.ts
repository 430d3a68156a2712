import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/url/fingerprint.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

describe('fingerprint', () => {
  it('is the first 8 bytes of SHA-1 of the URL, read as a signed big-endian integer', () => {
    // sha1("http://example.com/") = 9c17e047f58f9220..., whose top bit is set: negative.
    expect(fingerprint('http://example.com/')).toBe(-7199038879661321696n);
    expect(fingerprint('http://example.com/')).toBe(BigInt.asIntN(64, 0x9c17e047f58f9220n));
  });

  it('hashes the UTF-8 bytes of the string', () => {
    // sha1 of the UTF-8 bytes "https://example.com/caf\xc3\xa9" = 1dd0bff10fca7bf8...
    expect(fingerprint('https://example.com/caf\u00e9')).toBe(0x1dd0bff10fca7bf8n);
  });

  it('is stable across calls', () => {
    const url = 'https://www.example.org/a/b?c=d';
    expect(fingerprint(url)).toBe(fingerprint(url));
  });

  it('gives different URLs different values, all in the signed 64-bit range, of both signs', () => {
    const values = Array.from({ length: 10_000 }, (_, i) =>
      fingerprint(`https://example.com/page/${i}?sort=${i % 7}`),
    );
    expect(values.every((value) => value >= INT64_MIN && value <= INT64_MAX)).toBe(true);
    const negatives = values.filter((value) => value < 0n).length;
    expect(new Set(values).size).toBe(10_000);
    // SHA-1 bits are uniform, so both signs appear; a sign bug would give none of one kind.
    expect(negatives).toBeGreaterThan(0);
    expect(negatives).toBeLessThan(10_000);
  });

  it('round-trips through a SQLite INTEGER PRIMARY KEY', () => {
    const db = new Database(':memory:');
    try {
      db.defaultSafeIntegers(true);
      db.exec('CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO urls (id, url) VALUES (?, ?)');
      const urls = ['http://example.com/', 'https://example.com/caf%C3%A9', 'https://example.org/x?y=1'];
      for (const url of urls) insert.run(fingerprint(url), url);
      const lookup = db.prepare<[bigint], { url: string }>('SELECT url FROM urls WHERE id = ?');
      for (const url of urls) expect(lookup.get(fingerprint(url))?.url).toBe(url);
    } finally {
      db.close();
    }
  });
});
