import type { Worker } from 'node:worker_threads';
import { startWorker, transferOf } from '../worker.js';
import { type PackedExchange, warcExchangeOf } from './packed-exchange.js';
import type { WarcReply, WarcRequest } from './warc-worker.js';
import { WarcWriter, type WarcWriterOptions } from './warc-writer.js';

/**
 * The WARC thread's young generation, in MiB (three semi-spaces of 2 MiB). What it
 * allocates is mostly buffers, outside the heap; V8's default let its young generation
 * grow to 48 MiB for nothing. Measured on the realistic web: 5 MB less peak RSS, the
 * same CPU within the noise.
 */
const WARC_YOUNG_GENERATION_MB = 6;

/**
 * Exchange bytes the crawl's thread writes itself before the WARC thread starts. A
 * thread costs tens of milliseconds of CPU to boot, about what writing a megabyte of
 * records here costs (some 40 pages of 25 KB): a short crawl never starts one, and a
 * long one moves its writing there after its first pages.
 */
export const WARC_INLINE_BYTES = 1 << 20;

/**
 * The crawl's WARC writer, on its own thread once the crawl is worth one. `write()`
 * resolves once the records are in the OS (the writers use writeSync), so the crawl
 * can still mark URLs done only after their records are safe from a kill -9.
 *
 * It starts as a WarcWriter on the crawl's thread. Past `startAfterBytes` it starts the
 * thread, goes on writing here while the thread boots, and hands the thread its file
 * when the thread is ready: the records stay in order, in the same file. From then on
 * the exchanges' bytes move to the thread (they are gone from this one once write() is
 * called); they are not copied.
 */
export class WarcThread {
  private inline: WarcWriter | null;
  private inlineBytes = 0;
  /** The thread failed before it took over: the writing stays here for good. */
  private stayHere = false;
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private written: readonly string[] = [];
  private bytes = 0;
  private failure: Error | null = null;

  constructor(
    private readonly options: WarcWriterOptions,
    private readonly startAfterBytes = WARC_INLINE_BYTES,
  ) {
    this.inline = new WarcWriter(options);
  }

  /** WARC files written so far, in order (once on the thread: as of its last reply). */
  get files(): readonly string[] {
    return this.inline?.files ?? this.written;
  }

  /** Bytes written to the WARC files so far (once on the thread: as of its last reply). */
  get bytesWritten(): number {
    return this.inline?.bytesWritten ?? this.bytes;
  }

  /** Whether the writing has moved to the WARC thread. */
  get onThread(): boolean {
    return this.inline === null && this.worker !== null;
  }

  write(exchanges: readonly PackedExchange[]): Promise<void> {
    if (exchanges.length === 0) return Promise.resolve();
    if (this.inline !== null) return this.writeHere(this.inline, exchanges);
    return this.send({ id: this.nextId++, kind: 'write', exchanges: [...exchanges] }, transferOf(exchanges));
  }

  async close(): Promise<void> {
    const inline = this.inline;
    if (inline !== null) {
      this.written = inline.files;
      this.bytes = inline.bytesWritten;
      this.inline = null;
      inline.close();
    } else if (this.worker !== null && this.failure === null) {
      await this.send({ id: this.nextId++, kind: 'close' });
    }
    // A thread still booting never got the file: it is stopped as it is.
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private writeHere(writer: WarcWriter, exchanges: readonly PackedExchange[]): Promise<void> {
    try {
      writer.writeAll(exchanges.map(warcExchangeOf));
      for (const x of exchanges) this.inlineBytes += x.buffer.byteLength;
    } catch (err) {
      return Promise.reject(new Error(`writing WARC records failed: ${(err as Error).message}`));
    }
    if (this.worker === null && !this.stayHere && this.inlineBytes >= this.startAfterBytes) {
      this.startThread();
    }
    return Promise.resolve();
  }

  private startThread(): void {
    const worker = startWorker(new URL('./warc-worker.js', import.meta.url), this.options, {
      maxYoungGenerationSizeMb: WARC_YOUNG_GENERATION_MB,
    });
    this.worker = worker;
    worker.on('message', (reply: WarcReply) => {
      if (reply.kind === 'ready') this.handOver();
      else this.settle(reply);
    });
    worker.on('error', (err) => this.lost(worker, err, true));
    // An exit with nothing asked of the thread loses nothing (close() ends it so).
    worker.on('exit', (code) =>
      this.lost(worker, new Error(`the WARC writer thread exited (code ${code})`), this.waiting.size > 0),
    );
  }

  /** The thread is ready: it goes on in the file this thread has open, from the next write on. */
  private handOver(): void {
    const inline = this.inline;
    if (inline === null) return; // closed meanwhile
    const state = inline.handOver();
    this.inline = null;
    this.written = state.files;
    this.bytes = state.bytesWritten;
    this.send({ id: this.nextId++, kind: 'adopt', state }).catch(() => {});
  }

  /**
   * The thread failed or exited. Before it took the file over, the writing simply stays
   * here; after, what it held fails, and so does every later write.
   */
  private lost(worker: Worker, err: Error, failed: boolean): void {
    if (this.worker !== worker) return;
    if (this.inline !== null) {
      this.worker = null;
      this.stayHere = true;
    } else if (failed) this.fail(err);
  }

  private send(msg: WarcRequest, transfer: ArrayBuffer[] = []): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const worker = this.worker;
    if (worker === null) return Promise.reject(new Error('the WARC writer is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.set(msg.id, { resolve, reject });
      worker.postMessage(msg, transfer);
    });
  }

  private settle(reply: Extract<WarcReply, { kind: 'done' }>): void {
    this.written = reply.files;
    this.bytes = reply.bytes;
    const w = this.waiting.get(reply.id);
    if (w === undefined) return;
    this.waiting.delete(reply.id);
    if (reply.error === undefined) w.resolve();
    else w.reject(new Error(`writing WARC records failed: ${reply.error}`));
  }

  private fail(err: Error): void {
    this.failure = err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
