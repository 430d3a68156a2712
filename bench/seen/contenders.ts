import { hash } from 'node:crypto';
import type * as Seen from '../../src/seen/index.js';

/** What the benchmark asks of each contender: the URL-seen check on a batch of URLs, fingerprinting included. */
export interface Contender {
  /** Whether each URL is new; may resolve late (drum). */
  check(urls: readonly string[]): Promise<boolean[]> | boolean[];
  /** How the contender makes its marks durable (never for the in-memory baselines). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Checks that may be in flight at once: drum needs a buffer's worth waiting to merge. */
  window: number;
  /** Lets every call made so far resolve now (drum merges at once instead of waiting for a full buffer). */
  drain(): Promise<void>;
  /** Calls between two flushes: often for the sets whose flush is cheap, at the end for the snapshots. */
  flushEvery: number | undefined;
  /** A line of what was measured besides, for the table's notes. */
  note(): string;
}

export const CONTENDERS = ['memory', 'bloom', 'lmdb', 'drum', 'js-set', 'md5-set', 'harness'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

export const DESCRIPTIONS: Record<ContenderName, string> = {
  memory: 'open addressing, grows from empty, snapshot at the end',
  bloom: 'capacity N, fp rate 0.001, written at the end',
  lmdb: 'put-if-absent, flush every 2^20 checks',
  drum: '2^20-fingerprint buffer, merge on a worker thread, flush every 2^20 checks',
  'js-set': 'baseline, a JS Set of URL strings',
  'md5-set': 'baseline, a JS Set of MD5 hex strings',
  harness: 'the stream and the calls, no set (answers from the truth)',
};

const FLUSH_EVERY = 1 << 20;

export async function openContender(
  name: ContenderName,
  seen: typeof Seen,
  dir: string,
  distinct: number,
): Promise<Contender> {
  const inMemory = (has: (url: string) => boolean, note: () => string): Contender => ({
    check: (urls) => urls.map(has),
    flush: async () => undefined,
    close: async () => undefined,
    drain: async () => undefined,
    window: 0,
    flushEvery: undefined,
    note,
  });
  switch (name) {
    case 'js-set': {
      const set = new Set<string>();
      return inMemory(
        (url) => !set.has(url) && Boolean(set.add(url)),
        () => `${set.size} strings`,
      );
    }
    case 'md5-set': {
      const set = new Set<string>();
      return inMemory(
        (url) => {
          const key = hash('md5', url, 'hex');
          return !set.has(key) && Boolean(set.add(key));
        },
        () => `${set.size} digests`,
      );
    }
    case 'harness':
      // The child fills in the answers from the truth: see child.ts.
      return inMemory(
        () => true,
        () => 'no set',
      );
    default: {
      const set = await seen.openSeenSet(name, { dir, capacity: name === 'bloom' ? distinct : undefined });
      const drumBuffer = 1 << 20;
      return {
        check: (urls) => set.insertNew(seen.fingerprints(urls)),
        flush: () => set.flush(),
        close: () => set.close(),
        drain: async () => {
          if (set instanceof seen.DrumSeenSet) await set.mergeNow();
        },
        window: name === 'drum' ? 2 * drumBuffer : 0,
        flushEvery: name === 'lmdb' || name === 'drum' ? FLUSH_EVERY : undefined,
        note: () => {
          if (set instanceof seen.MemorySeenSet) return `table ${(set.bytes / set.size).toFixed(1)} B/URL`;
          if (set instanceof seen.BloomSeenSet) {
            const stats = set.stats();
            return `m ${stats.bits} bits, k ${stats.hashes}, estimated fp rate ${stats.estimatedFpRate.toExponential(2)}`;
          }
          return `${set.size} fingerprints`;
        },
      };
    }
  }
}
