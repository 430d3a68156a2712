import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heritrixFingerprints } from '../../src/seen/fingerprint.js';
import { LmdbSeenSet } from '../../src/seen/lmdb.js';

describe('the lmdb seen set', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-lmdb-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keys the file by big-endian fingerprints, so Heritrix-layout keys keep each host together', async () => {
    const hosts = ['https://a.example', 'https://b.example', 'https://c.example'];
    const urls: string[] = [];
    for (let page = 0; page < 200; page++) for (const host of hosts) urls.push(`${host}/page/${page}`);
    const keys = heritrixFingerprints(urls);
    const set = LmdbSeenSet.open({ dir });
    await set.insertNew(keys);
    await set.close();
    expect(readdirSync(dir).sort()).toEqual(['seen.lmdb', 'seen.lmdb-lock']);

    const db = open<Buffer, Buffer>({
      path: join(dir, 'seen.lmdb'),
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const stored = Array.from(db.getKeys(), (key) => key.readBigUInt64BE(0));
    await db.close();
    expect(stored).toEqual(Array.from(keys).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const hostOf = new Map(Array.from(keys, (key, i) => [key, urls[i]?.slice(0, 17)]));
    const runs = stored.filter(
      (key, i) => i === 0 || hostOf.get(key) !== hostOf.get(stored[i - 1] as bigint),
    );
    expect(runs).toHaveLength(3);
  });

  it('writes nothing before flush: marks wait in memory and are answered from there', async () => {
    const set = LmdbSeenSet.open({ dir });
    const keys = BigUint64Array.from([1n, 2n, 3n]);
    expect(await set.insertNew(keys)).toEqual([true, true, true]);
    const db = open<Buffer, Buffer>({
      path: join(dir, 'seen.lmdb'),
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    expect(db.getCount()).toBe(0);
    expect(await set.insertNew(keys)).toEqual([false, false, false]);
    await set.flush();
    // The observer's read snapshot may predate the flush's commit (lmdb-js keeps read
    // transactions open between reads): take a fresh one, as a new reader would.
    db.resetReadTxn();
    expect(db.getCount()).toBe(3);
    expect(await set.insertNew(keys)).toEqual([false, false, false]);
    await db.close();
    await set.close();
  });
});
