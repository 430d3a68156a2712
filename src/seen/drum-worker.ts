import { existsSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import {
  drumPaths,
  install,
  Journal,
  mergeInto,
  readFlushMark,
  readSortedHeader,
  removeLeftovers,
  subtractFrom,
  verdictsInto,
  writeEmptySorted,
} from './drum-files.js';
import type { DrumReply, DrumRequest, DrumWorkerData } from './drum-protocol.js';
import { dropRepeats, MergeScratch, sortBatch } from './drum-sort.js';
import { wordsOf } from './words.js';

/**
 * drum's merging thread. It owns seen.drum and the journal; the main thread owns the
 * flush mark. Everything here is synchronous on purpose: this thread does one thing at
 * a time, and the main thread goes on meanwhile.
 */
const port = parentPort;
if (!port) throw new Error('drum-worker.ts runs as a worker thread');
const { dir, bufferSize, journalLimitBytes } = workerData as DrumWorkerData;
const paths = drumPaths(dir);

function post(reply: DrumReply, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(reply, transfer);
}

/**
 * Brings the folder back to what was flushed: removes a killed pass's leftovers, then
 * undoes every merge the journal holds past the flush mark (a kill came before the
 * caller flushed it), in slices of at most bufferSize fingerprints.
 */
function recover(): { journal: Journal; count: number; lastBatch: number } {
  removeLeftovers(paths);
  if (!existsSync(paths.sorted)) writeEmptySorted(paths.sorted);
  let { count, lastBatch } = readSortedHeader(paths.sorted);
  const flushedThrough = readFlushMark(paths.flushed);
  const journal = new Journal(paths.journal);
  let slice = new BigUint64Array(Math.min(bufferSize, 1 << 16));
  let sliceCount = 0;
  const undo = (): void => {
    if (sliceCount === 0) return;
    const keys = sortBatch(wordsOf(slice), sliceCount, MergeScratch.make(sliceCount));
    dropRepeats(keys);
    count = subtractFrom(paths.sorted, paths.temp, keys, lastBatch);
    install(paths.temp, paths.sorted);
    sliceCount = 0;
  };
  journal.forEach((batch, words, n) => {
    lastBatch = Math.max(lastBatch, batch);
    if (batch <= flushedThrough) return;
    if (sliceCount > 0 && sliceCount + n > bufferSize) undo();
    if (sliceCount + n > slice.length) {
      const bigger = new BigUint64Array(Math.max(sliceCount + n, slice.length * 2));
      bigger.set(slice.subarray(0, sliceCount));
      slice = bigger;
    }
    wordsOf(slice).set(words, sliceCount * 2);
    sliceCount += n;
  });
  undo();
  // Every record is now either flushed or undone: the journal starts empty.
  journal.dropThrough(Number.MAX_SAFE_INTEGER);
  return { journal, count, lastBatch };
}

function merge(request: Extract<DrumRequest, { type: 'merge' }>, journal: Journal): void {
  const scratch = MergeScratch.reuse(request.scratch, bufferSize);
  const keys = sortBatch(new Uint32Array(request.buffer, 0, request.count * 2), request.count, scratch);
  dropRepeats(keys);
  const isNew = scratch.isNew.subarray(0, keys.count).fill(0);
  const { addedCount, total } = mergeInto(paths.sorted, paths.temp, keys, isNew, request.batch);
  // The undo record is on disk before the merged file replaces the old one.
  journal.append(request.batch, keys, isNew, addedCount);
  install(paths.temp, paths.sorted);
  verdictsInto(keys, isNew, scratch.verdicts.subarray(0, request.count));
  post({ type: 'merged', batch: request.batch, scratch: scratch.buffer, total, buffer: request.buffer }, [
    scratch.buffer,
    request.buffer,
  ]);
  if (journal.bytes > journalLimitBytes) journal.dropThrough(request.flushedThrough);
}

try {
  const { journal, count, lastBatch } = recover();
  post({ type: 'ready', count, lastBatch });
  port.on('message', (request: DrumRequest) => {
    try {
      if (request.type === 'merge') merge(request, journal);
      else {
        journal.dropThrough(request.flushedThrough);
        journal.close();
        post({ type: 'closed' });
        port.close();
      }
    } catch (error) {
      post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  });
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
