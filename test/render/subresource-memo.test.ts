import { describe, expect, it } from 'vitest';
import { freshnessMs } from '../../src/render/subresource-memo.js';

// How long a host's stylesheet or script is answered from memory: as long as a browser's
// private cache would reuse it without asking its server (RFC 9111).

const NOW = Date.parse('Sun, 06 Dec 2026 12:00:00 GMT');
const DATE = 'Sun, 06 Dec 2026 12:00:00 GMT';

describe('freshnessMs', () => {
  it('is max-age less the Age the response already has', () => {
    expect(freshnessMs({ 'cache-control': 'public, max-age=3600' }, NOW)).toBe(3_600_000);
    expect(freshnessMs({ 'cache-control': 'max-age=3600', age: '600' }, NOW)).toBe(3_000_000);
    expect(freshnessMs({ 'cache-control': 'max-age=60', age: '600' }, NOW)).toBe(0);
  });

  it('is none for what a browser must ask again for, may not keep, or is meant for one user alone', () => {
    for (const cc of ['no-cache', 'no-store', 'private, max-age=600', 'max-age=600, no-cache'])
      expect(freshnessMs({ 'cache-control': cc }, NOW), cc).toBe(0);
    expect(freshnessMs({}, NOW)).toBe(0);
  });

  it('without max-age, runs to Expires, an Expires it cannot read being past already', () => {
    const expires = 'Sun, 06 Dec 2026 13:00:00 GMT';
    expect(freshnessMs({ date: DATE, expires }, NOW)).toBe(3_600_000);
    expect(freshnessMs({ date: DATE, expires: '0' }, NOW)).toBe(0);
    expect(freshnessMs({ 'cache-control': 'max-age=10', date: DATE, expires }, NOW)).toBe(10_000);
  });

  it('without either, is a tenth of the time since Last-Modified', () => {
    const tenHoursBefore = 'Sun, 06 Dec 2026 02:00:00 GMT';
    expect(freshnessMs({ date: DATE, 'last-modified': tenHoursBefore }, NOW)).toBe(3_600_000);
  });
});
