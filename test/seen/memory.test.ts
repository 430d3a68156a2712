import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySeenSet } from '../../src/seen/memory.js';
import { randomFingerprints } from './fingerprint-data.js';

describe('the memory seen set', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-memory-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes at most 16 bytes a fingerprint at every size while it grows', async () => {
    const set = MemorySeenSet.open();
    const all = randomFingerprints(1_500_000, 40);
    let worst = 0;
    for (let at = 0; at < all.length; at += 10_000) {
      await set.insertNew(all.subarray(at, at + 10_000));
      if (set.size >= 10_000) worst = Math.max(worst, set.bytes / set.size);
    }
    expect(set.size).toBe(1_500_000);
    expect(worst).toBeLessThanOrEqual(16);
  });

  it('starts at the size it is told, without growing to it', async () => {
    const set = MemorySeenSet.open({ capacity: 100_000 });
    const before = set.bytes;
    await set.insertNew(randomFingerprints(100_000, 41));
    expect(set.bytes).toBe(before);
    expect(set.bytes / set.size).toBeLessThanOrEqual(10.1);
  });

  it('is rebuilt, without a folder, by inserting the fingerprints the caller keeps', async () => {
    const store = randomFingerprints(30_000, 42);
    const first = MemorySeenSet.open();
    await first.insertNew(store);
    await first.close();
    const fresh = MemorySeenSet.open();
    expect(fresh.size).toBe(0); // nothing on disk: the caller's store is the record
    await fresh.insertNew(store);
    expect((await fresh.insertNew(store.subarray(0, 100))).every((isNew) => !isNew)).toBe(true);
  });

  it('snapshots to its folder on flush: one file, header and table', async () => {
    const set = MemorySeenSet.open({ dir });
    await set.insertNew(randomFingerprints(20_000, 43));
    await set.flush();
    expect(statSync(join(dir, 'seen.memory')).size).toBe(32 + set.bytes);
  });

  it('says in one line what to do with a damaged snapshot', () => {
    writeFileSync(join(dir, 'seen.memory'), 'CWSEENM1 cut short');
    expect(() => MemorySeenSet.open({ dir })).toThrow(
      /seen\.memory is not a complete memory seen-set snapshot: delete it to start the set anew$/,
    );
  });
});
