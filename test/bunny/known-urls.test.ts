import { describe, expect, it } from 'vitest';
import { KnownUrls } from '../../src/bunny/known-urls.js';

describe("a page analyzer's known URLs", () => {
  it('gives one record a URL, found again from the lookup or from the record a verdict kept', () => {
    const known = new KnownUrls(4);
    known.startPage();
    const a = known.of('https://a.test/', undefined);
    a.sent = true;
    expect(known.of('https://a.test/', undefined)).toBe(a);
    expect(known.of('https://a.test/', a)).toBe(a);
    expect(known.of('https://b.test/', undefined)).not.toBe(a);
  });

  it('ages only between pages: a page with more URLs than a generation keeps its first records live', () => {
    const known = new KnownUrls(2);
    known.startPage();
    const first = known.of('https://a.test/0', undefined);
    for (let i = 1; i < 10; i++) known.of(`https://a.test/${i}`, undefined);
    expect(known.of('https://a.test/0', undefined)).toBe(first);
  });

  it('keeps a record two generations, then forgets it, and replaces the one a verdict kept', () => {
    const known = new KnownUrls(2);
    known.startPage();
    const kept = known.of('https://a.test/kept', undefined);
    kept.sent = true;
    known.of('https://a.test/x', undefined);
    // The young generation is full: the next page starts a new one, the old still known.
    known.startPage();
    expect(known.of('https://a.test/kept', undefined)).toBe(kept);
    // kept moved to the young generation when asked for; two more pages of new URLs pass it by.
    for (let page = 0; page < 2; page++) {
      known.startPage();
      known.of(`https://a.test/p${page}a`, undefined);
      known.of(`https://a.test/p${page}b`, undefined);
    }
    known.startPage();
    const again = known.of('https://a.test/kept', kept);
    expect(again).not.toBe(kept);
    expect(again.sent).toBe(false);
    // From now on the new record is the one: the lookup and the verdict's record agree.
    expect(known.of('https://a.test/kept', undefined)).toBe(again);
  });
});
