import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import { drumPaths, writeFlushMark } from './drum-files.js';
import type { DrumReply, DrumRequest, DrumWorkerData } from './drum-protocol.js';
import { closedError } from './memory.js';
import type { SeenSet } from './types.js';

export interface DrumSeenSetOptions {
  /** The folder for seen.drum, its journal and its flush mark. */
  dir: string;
  /** Fingerprints gathered before a merge starts (8 bytes each here, about 26 more in the merging thread while it merges). */
  bufferSize?: number;
  /** A call waits at most this long for a merge to start, when the buffer is not full. */
  maxWaitMs?: number;
  /** fsync the flush mark in flush() (a power cut then loses nothing flushed); a kill -9 never does. */
  sync?: boolean;
}

export const DRUM_DEFAULT_BUFFER = 1 << 20;
export const DRUM_DEFAULT_WAIT_MS = 1000;

interface Call {
  start: number;
  length: number;
  resolve: (result: boolean[]) => void;
  reject: (error: Error) => void;
}

/**
 * DRUM (IRLbot's Disk Repository with Update Management), for one key: the URL-seen
 * check as a sequential merge. Fingerprints from insertNew() are gathered in memory;
 * once `bufferSize` of them wait (or the oldest has waited `maxWaitMs`), a worker thread
 * sorts them and merges them in one pass against the sorted file on disk, writing the
 * union to a new file that replaces the old one (temp, fsync, rename), and the calls
 * resolve. Meanwhile the caller goes on and the next batch gathers. Memory holds one
 * batch gathering and one merging, whatever the size of the set.
 *
 * After a kill -9 the set is what flush() last covered: merges since then are undone at
 * open from the journal (see drum-files.ts), so it never claims "seen" for a fingerprint
 * whose insertNew() the caller did not see resolve and then flush.
 */
export class DrumSeenSet implements SeenSet {
  readonly exact = true;
  private count: number;
  private filling: BigUint64Array;
  /** A buffer the merging thread handed back, to gather a later batch in. */
  private spare: ArrayBuffer | undefined;
  private fillCount = 0;
  private fillCalls: Call[] = [];
  private merging: Call[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private due = false;
  /** Calls made so far, and how many of them are sealed into a batch. */
  private callsMade = 0;
  private callsSealed = 0;
  /** mergeNow() asked that every call up to this one be sealed at once. */
  private urgentThrough = 0;
  private nextBatch: number;
  private resolvedThrough: number;
  private flushedThrough: number;
  private lastCall: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private closing = false;
  private closedReply: (() => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly markFd: number,
    private readonly options: Required<DrumSeenSetOptions>,
    ready: { count: number; lastBatch: number },
  ) {
    this.count = ready.count;
    this.nextBatch = ready.lastBatch + 1;
    this.resolvedThrough = ready.lastBatch;
    this.flushedThrough = ready.lastBatch;
    this.filling = new BigUint64Array(options.bufferSize);
    worker.on('message', (reply: DrumReply) => this.onReply(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (!this.closedReply || code !== 0) this.fail(new Error(`its merging thread exited (code ${code})`));
    });
    worker.unref();
  }

  /** Opens (and, after a kill, repairs) the set in `options.dir`. */
  static async open(options: DrumSeenSetOptions): Promise<DrumSeenSet> {
    const full: Required<DrumSeenSetOptions> = {
      dir: options.dir,
      bufferSize: options.bufferSize ?? DRUM_DEFAULT_BUFFER,
      maxWaitMs: options.maxWaitMs ?? DRUM_DEFAULT_WAIT_MS,
      sync: options.sync ?? false,
    };
    mkdirSync(full.dir, { recursive: true });
    const data: DrumWorkerData = {
      dir: full.dir,
      bufferSize: full.bufferSize,
      journalLimitBytes: Math.max(1 << 24, full.bufferSize * 8),
    };
    const worker = startWorker(new URL('./drum-worker.js', import.meta.url), data);
    const ready = await new Promise<{ count: number; lastBatch: number }>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      worker.once('error', onError);
      worker.once('message', (reply: DrumReply) => {
        worker.off('error', onError);
        if (reply.type === 'ready') resolve(reply);
        else reject(new Error(reply.type === 'error' ? reply.message : `unexpected ${reply.type}`));
      });
    }).catch(async (error: Error) => {
      await worker.terminate();
      throw new Error(`the drum seen set in ${full.dir} cannot open: ${error.message}`);
    });
    // Not 'a+': on Linux a positioned write to a file opened for appending goes to its end.
    const markFd = openSync(drumPaths(full.dir).flushed, constants.O_RDWR | constants.O_CREAT);
    return new DrumSeenSet(worker, markFd, full, ready);
  }

  get size(): number {
    return this.count;
  }

  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(closedError());
    const n = fingerprints.length;
    if (this.fillCount + n > this.filling.length) {
      // More than a buffer waits (the merging thread is behind): grow by an eighth rather than refuse.
      const bigger = new BigUint64Array(this.fillCount + n + (this.options.bufferSize >>> 3));
      bigger.set(this.filling.subarray(0, this.fillCount));
      this.filling = bigger;
    }
    this.filling.set(fingerprints, this.fillCount);
    const promise = new Promise<boolean[]>((resolve, reject) => {
      this.fillCalls.push({ start: this.fillCount, length: n, resolve, reject });
    });
    this.fillCount += n;
    this.callsMade++;
    this.lastCall = promise.catch(() => undefined);
    this.schedule();
    return promise;
  }

  /**
   * Merges everything gathered so far now, without waiting for a full buffer, and
   * resolves once every insertNew() made before it has resolved: the boundary of a
   * crawl pass. (Then flush() to make those marks durable.)
   */
  mergeNow(): Promise<void> {
    this.urgentThrough = this.callsMade;
    this.schedule();
    return this.lastCall.then(() => undefined);
  }

  /**
   * Makes durable every mark of the insertNew() calls that had resolved when flush() was
   * called. Cheap: the merges already wrote them; this moves the flush mark past them.
   * Calls still waiting for a merge are not covered (the caller has not seen them).
   */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closedReply) throw closedError();
    this.writeMark(this.resolvedThrough);
  }

  /**
   * Lets the calls already made resolve, flushes what had resolved when close() was
   * called (as flush() would have), and stops the merging thread.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    const through = this.resolvedThrough;
    this.closing = true;
    await this.mergeNow();
    if (this.failure) throw this.failure;
    this.writeMark(through);
    await new Promise<void>((resolve) => {
      this.closedReply = resolve;
      this.worker.ref();
      this.post({ type: 'close', flushedThrough: this.flushedThrough });
    });
    closeSync(this.markFd);
  }

  private writeMark(through: number): void {
    if (through <= this.flushedThrough) return;
    writeFlushMark(this.markFd, through, this.options.sync);
    this.flushedThrough = through;
  }

  private schedule(): void {
    if (this.merging || this.failure || this.fillCalls.length === 0) return;
    if (this.fillCount === 0) {
      // Only empty calls wait, and nothing before them: no merge needed to answer them.
      for (const call of this.fillCalls) call.resolve([]);
      this.callsSealed = this.callsMade;
      this.fillCalls = [];
      return;
    }
    if (this.fillCount >= this.options.bufferSize || this.due || this.urgentThrough > this.callsSealed) {
      this.startMerge();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.due = true;
        this.schedule();
      }, this.options.maxWaitMs);
    }
  }

  private startMerge(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    const buffer = this.filling.buffer as ArrayBuffer;
    const count = this.fillCount;
    this.merging = this.fillCalls;
    this.callsSealed = this.callsMade;
    const spare = this.spare;
    this.spare = undefined;
    this.filling =
      spare && spare.byteLength === this.options.bufferSize * 8
        ? new BigUint64Array(spare)
        : new BigUint64Array(this.options.bufferSize);
    this.fillCount = 0;
    this.fillCalls = [];
    this.worker.ref();
    this.post(
      { type: 'merge', batch: this.nextBatch++, buffer, count, flushedThrough: this.flushedThrough },
      [buffer],
    );
  }

  private onReply(reply: DrumReply): void {
    if (reply.type === 'merged') {
      const calls = this.merging ?? [];
      this.merging = undefined;
      this.worker.unref();
      this.count = reply.total;
      this.resolvedThrough = reply.batch;
      this.spare = reply.buffer;
      const verdicts = new Uint8Array(reply.verdicts);
      for (const call of calls) {
        const result = new Array<boolean>(call.length);
        for (let i = 0; i < call.length; i++) result[i] = verdicts[call.start + i] === 1;
        call.resolve(result);
      }
      this.schedule();
    } else if (reply.type === 'closed') {
      this.closedReply?.();
    } else if (reply.type === 'error') {
      this.fail(new Error(reply.message));
    }
  }

  private fail(cause: Error): void {
    if (this.failure) return;
    this.failure = new Error(`the drum seen set in ${this.options.dir} failed: ${cause.message}`);
    if (this.timer) clearTimeout(this.timer);
    for (const call of [...(this.merging ?? []), ...this.fillCalls]) call.reject(this.failure);
    this.merging = undefined;
    this.fillCalls = [];
    this.closedReply?.();
  }

  private post(request: DrumRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }
}
