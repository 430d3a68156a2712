import type { BloomSeenSet } from './bloom.js';
import type { DrumSeenSet } from './drum.js';
import type { LmdbSeenSet } from './lmdb.js';
import type { MemorySeenSet } from './memory.js';
import type { SeenSet } from './types.js';

export const SEEN_KINDS = ['memory', 'bloom', 'lmdb', 'drum'] as const;
export type SeenKind = (typeof SEEN_KINDS)[number];

export interface SeenSetOptions {
  /**
   * The folder for the set's files (each strategy names its own, so one folder can hold
   * several). Needed by lmdb and drum; memory and bloom without it live in memory only.
   */
  dir?: string;
  /** Fingerprints expected: bloom's n (default 10,000,000); memory's starting size. */
  capacity?: number;
  /** bloom's false-positive rate at `capacity` (default 0.001). */
  fpRate?: number;
  /** lmdb and drum: flush() also waits for fsync, so a power cut loses nothing flushed (a kill -9 never does). */
  sync?: boolean;
  /** drum: fingerprints gathered per merge (default 1,048,576). */
  bufferSize?: number;
  /** drum: longest a call waits for its merge to start when the buffer is not full (default 1000 ms). */
  maxWaitMs?: number;
}

export const DEFAULT_BLOOM_CAPACITY = 10_000_000;
export const DEFAULT_FP_RATE = 0.001;

/**
 * Opens a URL-seen set by strategy name. Each strategy is its own small file; this is
 * the one place that knows them all.
 */
export function openSeenSet(kind: 'memory', options?: SeenSetOptions): Promise<MemorySeenSet>;
export function openSeenSet(kind: 'bloom', options?: SeenSetOptions): Promise<BloomSeenSet>;
export function openSeenSet(kind: 'lmdb', options: SeenSetOptions): Promise<LmdbSeenSet>;
export function openSeenSet(kind: 'drum', options: SeenSetOptions): Promise<DrumSeenSet>;
export function openSeenSet(kind: SeenKind, options?: SeenSetOptions): Promise<SeenSet>;
export async function openSeenSet(kind: SeenKind, options: SeenSetOptions = {}): Promise<SeenSet> {
  checkOptions(kind, options);
  // Each strategy is loaded only when asked for: a crawl starts without the others' code
  // (and lmdb's native module, which costs memory the others need not pay).
  switch (kind) {
    case 'memory': {
      const { MemorySeenSet } = await import('./memory.js');
      return MemorySeenSet.open({ dir: options.dir, capacity: options.capacity });
    }
    case 'bloom': {
      const { BloomSeenSet } = await import('./bloom.js');
      return BloomSeenSet.open({
        dir: options.dir,
        capacity: options.capacity ?? DEFAULT_BLOOM_CAPACITY,
        fpRate: options.fpRate ?? DEFAULT_FP_RATE,
      });
    }
    case 'lmdb': {
      const { LmdbSeenSet } = await import('./lmdb.js');
      return LmdbSeenSet.open({ dir: needDir(kind, options), sync: options.sync });
    }
    case 'drum': {
      const { DrumSeenSet } = await import('./drum.js');
      return DrumSeenSet.open({
        dir: needDir(kind, options),
        bufferSize: options.bufferSize,
        maxWaitMs: options.maxWaitMs,
        sync: options.sync,
      });
    }
    default:
      throw new Error(`unknown seen set "${String(kind)}": use one of ${SEEN_KINDS.join(', ')}`);
  }
}

function needDir(kind: SeenKind, options: SeenSetOptions): string {
  if (options.dir === undefined)
    throw new Error(`the ${kind} seen set keeps its files on disk: give it a dir`);
  return options.dir;
}

function checkOptions(kind: SeenKind, options: SeenSetOptions): void {
  if (!(SEEN_KINDS as readonly string[]).includes(kind)) {
    throw new Error(`unknown seen set "${String(kind)}": use one of ${SEEN_KINDS.join(', ')}`);
  }
  const { capacity, fpRate, bufferSize, maxWaitMs } = options;
  if (capacity !== undefined && !(Number.isInteger(capacity) && capacity > 0)) {
    throw new Error(`seen-set capacity must be a whole number above 0, not ${capacity}`);
  }
  if (fpRate !== undefined && !(fpRate > 0 && fpRate < 1)) {
    throw new Error(`seen-set false-positive rate must be between 0 and 1 (e.g. 0.001), not ${fpRate}`);
  }
  if (bufferSize !== undefined && !(Number.isInteger(bufferSize) && bufferSize > 0)) {
    throw new Error(`drum buffer size must be a whole number of fingerprints above 0, not ${bufferSize}`);
  }
  if (maxWaitMs !== undefined && !(maxWaitMs >= 0)) {
    throw new Error(`drum maxWaitMs must be 0 or more milliseconds, not ${maxWaitMs}`);
  }
}
