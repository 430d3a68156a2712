import { describe, expect, it } from 'vitest';
import { openSeenSet, type SeenKind } from '../../src/seen/open.js';

describe('openSeenSet', () => {
  it.each([
    ['memory', { capacity: 0 }, /^seen-set capacity must be a whole number above 0, not 0$/],
    [
      'bloom',
      { fpRate: 1.5 },
      /^seen-set false-positive rate must be between 0 and 1 \(e\.g\. 0\.001\), not 1\.5$/,
    ],
    [
      'drum',
      { dir: '/tmp/x', bufferSize: 0.5 },
      /^drum buffer size must be a whole number of fingerprints above 0, not 0\.5$/,
    ],
    ['lmdb', {}, /^the lmdb seen set keeps its files on disk: give it a dir$/],
    ['drum', {}, /^the drum seen set keeps its files on disk: give it a dir$/],
    ['hashset', {}, /^unknown seen set "hashset": use one of memory, bloom, lmdb, drum$/],
  ])('refuses %s with %j in one line', async (kind, options, message) => {
    await expect(openSeenSet(kind as SeenKind, options)).rejects.toThrow(message);
  });
});
