import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BloomSeenSet, bloomFpRate, bloomParameters } from '../../src/seen/bloom.js';
import { randomFingerprints } from './fingerprint-data.js';

describe('the bloom seen set', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-bloom-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes m = -n ln p / (ln 2)^2 and k = (m/n) ln 2', () => {
    // 9,585,058.4 bits, rounded up to whole 32-bit words; 6.64 hashes, rounded.
    expect(bloomParameters(1_000_000, 0.01)).toEqual({ bits: 9_585_088, hashes: 7 });
    expect(bloomParameters(10_000_000, 0.001)).toEqual({ bits: 143_775_904, hashes: 10 });
    expect(bloomFpRate(9_585_088, 7, 1_000_000)).toBeCloseTo(0.01, 3);
  });

  it.each([0.01, 0.001])('misses, at capacity, within 1.5x of the target rate %s', async (fpRate) => {
    const capacity = 200_000;
    const set = BloomSeenSet.open({ capacity, fpRate });
    await set.insertNew(randomFingerprints(capacity, 11));
    // 400,000 fingerprints never inserted: at 1% about 4,000 are taken as seen.
    const probes = randomFingerprints(400_000, 12);
    const falsePositives = set.mightContain(probes).filter(Boolean).length;
    const measured = falsePositives / probes.length;
    expect(measured).toBeLessThanOrEqual(fpRate * 1.5);
    expect(measured).toBeGreaterThanOrEqual(fpRate / 1.5);
    expect(set.stats().estimatedFpRate / measured).toBeGreaterThan(1 / 1.5);
    expect(set.stats().estimatedFpRate / measured).toBeLessThan(1.5);
  });

  it('reports its estimated rate climbing as it fills, and past the target beyond capacity', async () => {
    const set = BloomSeenSet.open({ capacity: 100_000, fpRate: 0.01 });
    const rates: number[] = [set.stats().estimatedFpRate];
    for (let part = 0; part < 3; part++) {
      await set.insertNew(randomFingerprints(50_000, 20 + part));
      rates.push(set.stats().estimatedFpRate);
    }
    expect(rates[0]).toBe(0);
    expect(rates[1]).toBeLessThan(rates[2] ?? 0);
    expect(rates[2]).toBeCloseTo(0.01, 2);
    expect(rates[3]).toBeGreaterThan(0.03);
    // Insertions taken as seen (false positives) are not counted: a few percent past capacity.
    expect(set.stats().count).toBeLessThan(150_000);
    expect(set.stats().count).toBeGreaterThan(150_000 * 0.97);
  });

  it('writes the filter on flush and reads it back at open, parameters included', async () => {
    const set = BloomSeenSet.open({ dir, capacity: 50_000, fpRate: 0.02 });
    const held = randomFingerprints(50_000, 30);
    await set.insertNew(held);
    await set.flush();
    const probes = randomFingerprints(50_000, 31);
    const before = set.mightContain(probes);

    // Other numbers at open do not resize a filter that exists.
    const again = BloomSeenSet.open({ dir, capacity: 10, fpRate: 0.5 });
    expect(again.stats()).toEqual(set.stats());
    expect(again.mightContain(probes)).toEqual(before);
    expect(again.mightContain(held).every(Boolean)).toBe(true);
  });

  it('says in one line what to do with a damaged file', () => {
    writeFileSync(join(dir, 'seen.bloom'), 'CWBLOOM1 but cut short');
    expect(() => BloomSeenSet.open({ dir, capacity: 10, fpRate: 0.01 })).toThrow(
      /seen\.bloom is not a complete Bloom filter: delete it to start the set anew$/,
    );
  });
});
