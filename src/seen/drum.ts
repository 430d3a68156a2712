import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import { drumPaths, writeFlushMark } from './drum-files.js';
import type { DrumReply, DrumRequest, DrumWorkerData } from './drum-protocol.js';
import { MergeScratch } from './drum-sort.js';
import { closedError } from './memory.js';
import type { SeenSet } from './types.js';

export interface DrumSeenSetOptions {
  /** The folder for seen.drum, its journal and its flush mark. */
  dir: string;
  /**
   * Fingerprints gathered before a merge starts, and the most the set holds in memory
   * at once: one buffer gathering and one merging, 8 bytes a fingerprint each, and the
   * merge's scratch, 18 bytes (MergeScratch): 34 bytes a fingerprint in all.
   */
  bufferSize?: number;
  /** A call waits at most this long for a merge to start, when the buffer is not full. */
  maxWaitMs?: number;
  /** fsync the flush mark in flush() (a power cut then loses nothing flushed); a kill -9 never does. */
  sync?: boolean;
}

export const DRUM_DEFAULT_BUFFER = 1 << 20;
export const DRUM_DEFAULT_WAIT_MS = 1000;

/** A set with no merge for this long lets go of its spare buffer and the merge's scratch (it makes them again when busy). */
const IDLE_RELEASE_MS = 5000;

const NOTHING = new BigUint64Array(0);

/** What drum holds now: its buffers never grow, so `buffered` never passes `bufferSize`. */
export interface DrumStats {
  kind: 'drum';
  size: number;
  bufferSize: number;
  /** Fingerprints in the gathering buffer. */
  buffered: number;
  /** Fingerprints the gathering buffer has room for: bufferSize, always. */
  bufferCapacity: number;
  /** Fingerprints of calls that wait for room in the buffer (the caller's arrays, not copied). */
  waiting: number;
  /** Fingerprints being merged now (0 when no merge runs). */
  merging: number;
  /** Merges done since open. */
  merges: number;
}

interface Call {
  index: number;
  /** The caller's array until all of it is copied into a buffer (then let go). */
  fingerprints: BigUint64Array;
  length: number;
  /** The batch its first fingerprints went into (numbers as the merges take them). */
  firstBatch: number;
  /** Fingerprints copied into a buffer so far, and answered so far. */
  admitted: number;
  answered: number;
  /** Made at the first answer, not before: waiting calls hold no answers. */
  result: boolean[] | undefined;
  resolve: (result: boolean[]) => void;
  reject: (error: Error) => void;
}

/** A run of one call's fingerprints in one batch: `length` of them from the call's `from`, at the batch's `start`. */
interface Segment {
  call: Call;
  from: number;
  start: number;
  length: number;
}

/**
 * DRUM (IRLbot's Disk Repository with Update Management), for one key: the URL-seen
 * check as a sequential merge. Fingerprints from insertNew() are gathered in a buffer
 * of `bufferSize`; once it is full (or the oldest call has waited `maxWaitMs`), a
 * worker thread sorts the batch and merges it in one pass against the sorted file on
 * disk, writing the union to a new file that replaces the old one (temp, fsync,
 * rename), and the calls resolve. Meanwhile the caller goes on and the next batch
 * gathers in the other buffer.
 *
 * The buffers never grow. When the gathering buffer is full and a merge is running,
 * the calls that do not fit wait, unanswered, until that merge ends and the buffers
 * swap (backpressure: a caller that waits for its answers slows to the merges' pace).
 * A waiting call keeps a reference to its array, so the caller must not change it
 * before the call resolves. A call larger than the buffer is merged in parts, in order.
 * So memory holds two buffers and one merge's arrays, whatever the size of the set.
 *
 * After a kill -9 the set is what flush() last covered: merges since then are undone at
 * open from the journal (see drum-files.ts), so it never claims "seen" for a fingerprint
 * whose insertNew() the caller did not see resolve and then flush.
 */
export class DrumSeenSet implements SeenSet {
  readonly exact = true;
  private count: number;
  private filling: BigUint64Array;
  /** The buffer the merging thread handed back, to gather the batch after next in. */
  private spare: ArrayBuffer | undefined;
  /** The merge's scratch (sort arrays, verdicts), handed back by the merging thread to be used again. */
  private scratch: ArrayBuffer | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private fillCount = 0;
  private fillSegments: Segment[] = [];
  /** Calls not yet wholly copied into a buffer, oldest first. */
  private readonly waiting: Call[] = [];
  private waitingCount = 0;
  private merging: { segments: Segment[]; count: number } | undefined;
  private merges = 0;
  private timer: NodeJS.Timeout | undefined;
  private due = false;
  /** Calls made so far, and the last one wholly inside a batch sent to merge. */
  private callsMade = 0;
  private callsSealed = 0;
  /** mergeNow() asked that every call up to this one be merged at once. */
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

  stats(): DrumStats {
    return {
      kind: 'drum',
      size: this.count,
      bufferSize: this.options.bufferSize,
      buffered: this.fillCount,
      bufferCapacity: this.filling.length,
      waiting: this.waitingCount,
      merging: this.merging?.count ?? 0,
      merges: this.merges,
    };
  }

  insertNew(fingerprints: BigUint64Array): Promise<boolean[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(closedError());
    const promise = new Promise<boolean[]>((resolve, reject) => {
      this.waiting.push({
        index: ++this.callsMade,
        fingerprints,
        length: fingerprints.length,
        firstBatch: 0,
        admitted: 0,
        answered: 0,
        result: undefined,
        resolve,
        reject,
      });
    });
    this.waitingCount += fingerprints.length;
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
    if (this.idleTimer) clearTimeout(this.idleTimer);
    closeSync(this.markFd);
  }

  private writeMark(through: number): void {
    if (through <= this.flushedThrough) return;
    writeFlushMark(this.markFd, through, this.options.sync);
    this.flushedThrough = through;
  }

  /** Copies waiting calls into the gathering buffer, in order, as far as it has room. */
  private admit(): void {
    const room = () => this.filling.length - this.fillCount;
    while (this.waiting.length > 0) {
      const call = this.waiting[0] as Call;
      const take = Math.min(room(), call.length - call.admitted);
      if (take === 0 && call.length > 0) return;
      // The filling buffer is the next batch to merge: it takes the next number.
      if (call.admitted === 0) call.firstBatch = this.nextBatch;
      this.filling.set(call.fingerprints.subarray(call.admitted, call.admitted + take), this.fillCount);
      this.fillSegments.push({ call, from: call.admitted, start: this.fillCount, length: take });
      call.admitted += take;
      this.fillCount += take;
      this.waitingCount -= take;
      if (call.admitted < call.length) return;
      call.fingerprints = NOTHING;
      this.waiting.shift();
    }
  }

  private schedule(): void {
    if (this.failure) return;
    this.admit();
    if (this.merging || this.fillSegments.length === 0) return;
    if (this.fillCount === 0) {
      // Only empty calls wait, and nothing before them: no merge needed to answer them.
      for (const { call } of this.fillSegments) call.resolve([]);
      this.callsSealed = (this.fillSegments.at(-1) as Segment).call.index;
      this.fillSegments = [];
      return;
    }
    const full = this.fillCount === this.filling.length;
    if (full || this.due || this.urgentThrough > this.callsSealed) {
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
    const segments = this.fillSegments;
    const last = segments.at(-1) as Segment;
    this.callsSealed = last.call.admitted === last.call.length ? last.call.index : last.call.index - 1;
    this.merging = { segments, count };
    // The other buffer: the one the last merge handed back (only the first merge makes it).
    const spare = this.spare;
    this.spare = undefined;
    this.filling = spare ? new BigUint64Array(spare) : new BigUint64Array(this.options.bufferSize);
    this.fillCount = 0;
    this.fillSegments = [];
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const scratch = this.scratch;
    this.scratch = undefined;
    this.worker.ref();
    this.post(
      {
        type: 'merge',
        batch: this.nextBatch++,
        buffer,
        count,
        flushedThrough: this.flushedThrough,
        ...(scratch ? { scratch } : {}),
      },
      scratch ? [buffer, scratch] : [buffer],
    );
    // The calls that waited for room go into the buffer now free, while this merge runs.
    this.admit();
  }

  /** Lets go of the spare buffer and the scratch if no merge starts for a while (many idle crawls, one process). */
  private releaseWhenIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.merging) return;
      this.spare = undefined;
      this.scratch = undefined;
    }, IDLE_RELEASE_MS);
    this.idleTimer.unref();
  }

  private onReply(reply: DrumReply): void {
    if (reply.type === 'merged') {
      const segments = this.merging?.segments ?? [];
      this.merging = undefined;
      this.merges++;
      this.worker.unref();
      this.count = reply.total;
      this.spare = reply.buffer;
      this.scratch = reply.scratch;
      const verdicts = new MergeScratch(reply.scratch, this.options.bufferSize).verdicts;
      for (const { call, from, start, length } of segments) {
        call.result ??= new Array<boolean>(call.length);
        const result = call.result;
        for (let i = 0; i < length; i++) result[from + i] = verdicts[start + i] === 1;
        call.answered += length;
        if (call.answered === call.length) {
          call.resolve(result);
          call.result = undefined;
        }
      }
      // The flush mark may cover a merge only if every call in it has resolved: flush()
      // must not make durable a mark whose call has not. A call that did not fit in the
      // room left goes on in the next batch, so the merges from its first batch on wait
      // for it; those before it are covered.
      const last = segments.at(-1);
      const through =
        last === undefined || last.call.answered === last.call.length
          ? reply.batch
          : last.call.firstBatch - 1;
      this.resolvedThrough = Math.max(this.resolvedThrough, through);
      this.schedule();
      if (!this.merging) this.releaseWhenIdle();
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
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const calls = new Set<Call>();
    for (const s of [...(this.merging?.segments ?? []), ...this.fillSegments]) calls.add(s.call);
    for (const call of this.waiting) calls.add(call);
    for (const call of calls) call.reject(this.failure);
    this.merging = undefined;
    this.fillSegments = [];
    this.waiting.length = 0;
    this.closedReply?.();
  }

  private post(request: DrumRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }
}
