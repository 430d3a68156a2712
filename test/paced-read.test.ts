import { describe, expect, it } from 'vitest';
import { PacedRead } from '../src/paced-read.js';

/** A read that takes `ms` on the test's clock and counts itself. */
function costly(ms: number) {
  const clock = { now: 0 };
  let reads = 0;
  const read = async () => {
    reads++;
    clock.now += ms;
    return reads;
  };
  return { clock, read, reads: () => reads };
}

describe('PacedRead', () => {
  it('reads again only once `share` times the last read has passed', async () => {
    const c = costly(250);
    const paced = new PacedRead(c.read, 20, () => c.clock.now);
    expect(await paced.get()).toBe(1);
    c.clock.now += 4000; // 4,750 after the read's end: within 19 x 250
    expect(paced.due).toBe(false);
    expect(await paced.get()).toBe(1);
    c.clock.now += 1000;
    expect(paced.due).toBe(true);
    expect(await paced.get()).toBe(2);
    expect(c.reads()).toBe(2);
  });

  it('gives callers that come during a read that read', async () => {
    const c = costly(250);
    const paced = new PacedRead(c.read, 20, () => c.clock.now);
    expect(await Promise.all([paced.get(), paced.get(), paced.get()])).toEqual([1, 1, 1]);
    expect(c.reads()).toBe(1);
  });

  it('reads again at every ask when a read takes under 10 ms', async () => {
    const c = costly(3);
    const paced = new PacedRead(c.read, 20, () => c.clock.now);
    expect([await paced.get(), await paced.get(), await paced.get()]).toEqual([1, 2, 3]);
  });
});
