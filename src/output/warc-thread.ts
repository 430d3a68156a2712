import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import type { PackedExchange } from './packed-exchange.js';
import type { WarcReply, WarcRequest } from './warc-worker.js';
import type { WarcWriterOptions } from './warc-writer.js';

/**
 * A WarcWriter on its own thread. `write()` resolves once the records are in the OS
 * (the worker uses writeSync), so the crawl can still mark URLs done only after their
 * records are safe from a kill -9. The exchanges' bytes move to the thread (they are
 * gone from this one once write() is called), they are not copied.
 */
export class WarcThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private written: readonly string[] = [];
  private bytes = 0;
  private failure: Error | null = null;

  constructor(options: WarcWriterOptions) {
    this.worker = startWorker(new URL('./warc-worker.js', import.meta.url), options);
    this.worker.on('message', (reply: WarcReply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (this.waiting.size > 0) this.fail(new Error(`the WARC writer thread exited (code ${code})`));
    });
  }

  /** WARC files written so far, in order (as of the last reply from the thread). */
  get files(): readonly string[] {
    return this.written;
  }

  /** Bytes written to the WARC files so far (as of the last reply from the thread). */
  get bytesWritten(): number {
    return this.bytes;
  }

  write(exchanges: readonly PackedExchange[]): Promise<void> {
    if (exchanges.length === 0) return Promise.resolve();
    const transfer = exchanges.map((x) => x.buffer);
    return this.send({ id: this.nextId++, kind: 'write', exchanges: [...exchanges] }, transfer);
  }

  async close(): Promise<void> {
    if (this.failure === null) await this.send({ id: this.nextId++, kind: 'close' });
    await this.worker.terminate();
  }

  private send(msg: WarcRequest, transfer: ArrayBuffer[] = []): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.set(msg.id, { resolve, reject });
      this.worker.postMessage(msg, transfer);
    });
  }

  private settle(reply: WarcReply): void {
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
