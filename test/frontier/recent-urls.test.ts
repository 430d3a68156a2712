import { describe, expect, it } from 'vitest';
import { RecentUrls } from '../../src/frontier/recent-urls.js';

describe('the recent-URL cache', () => {
  it('says a URL is new once, and known after, until two generations have passed it by', () => {
    const recent = new RecentUrls(2);
    expect([recent.add('a'), recent.add('a')]).toEqual([true, false]);
    // b fills the young generation: it becomes the old one, both still known.
    expect(recent.add('b')).toBe(true);
    expect([recent.add('a'), recent.add('b')]).toEqual([false, false]);
    // Asked again, a and b moved to the new young generation; c, d push them out.
    expect([recent.add('c'), recent.add('d')]).toEqual([true, true]);
    expect([recent.add('e'), recent.add('f')]).toEqual([true, true]);
    expect(recent.add('a')).toBe(true);
  });

  it('answers has() and add() alike, and forgets everything when cleared', () => {
    const recent = new RecentUrls(3);
    recent.remember('x');
    expect([recent.has('x'), recent.has('y')]).toEqual([true, false]);
    expect(recent.add('y')).toBe(true);
    expect(recent.has('y')).toBe(true);
    recent.clear();
    expect([recent.has('x'), recent.add('y')]).toEqual([false, true]);
  });
});
