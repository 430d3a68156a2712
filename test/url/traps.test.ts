import { describe, expect, it } from 'vitest';
import { DEFAULT_TRAP_LIMITS, trapOf } from '../../src/url/traps.js';

const path = (n: number) => `http://a.test/${Array.from({ length: n }, (_, i) => `s${i}`).join('/')}`;

describe('trapOf', () => {
  it('allows ordinary URLs', () => {
    for (const url of [
      'http://a.test/',
      'http://a.test/a/b/c.html',
      'http://a.test/2024/01/01/post',
      'http://a.test/?q=1',
    ]) {
      expect(trapOf(url, DEFAULT_TRAP_LIMITS)).toBeNull();
    }
  });

  it('refuses more than 20 path segments', () => {
    expect(trapOf(path(20), DEFAULT_TRAP_LIMITS)).toBeNull();
    expect(trapOf(path(21), DEFAULT_TRAP_LIMITS)).toBe('path-depth');
    expect(trapOf(`${path(20)}/`, DEFAULT_TRAP_LIMITS)).toBe('path-depth');
  });

  it('refuses a segment repeated more than twice, adjacent or not, and ignores the query', () => {
    expect(trapOf('http://a.test/a/a/b', DEFAULT_TRAP_LIMITS)).toBeNull();
    expect(trapOf('http://a.test/a/a/a', DEFAULT_TRAP_LIMITS)).toBe('repeated-segment');
    expect(trapOf('http://a.test/x/y/x/y/x/y', DEFAULT_TRAP_LIMITS)).toBe('repeated-segment');
    expect(trapOf('http://a.test/a?p=a/a/a/a', DEFAULT_TRAP_LIMITS)).toBeNull();
  });

  it('refuses more than 20 query parameters', () => {
    const q = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
    expect(trapOf(`http://a.test/s?${q(20)}`, DEFAULT_TRAP_LIMITS)).toBeNull();
    expect(trapOf(`http://a.test/s?${q(21)}`, DEFAULT_TRAP_LIMITS)).toBe('query-params');
  });

  it('uses the limits it is given', () => {
    const limits = { maxPathSegments: 2, maxSegmentRepeats: 1, maxQueryParams: 0 };
    expect(trapOf('http://a.test/a/b/c', limits)).toBe('path-depth');
    expect(trapOf('http://a.test/a/a', limits)).toBe('repeated-segment');
    expect(trapOf('http://a.test/a?x', limits)).toBe('query-params');
  });
});
