/**
 * The WARC writer's thread. Compressing, digesting and writing records costs about
 * 100 µs per page, as much as fetching and parsing it; done here it runs on another
 * core while the crawl loop goes on. Messages come from WarcThread (warc-thread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type Span, unpack } from '../worker.js';
import { WarcWriter, type WarcWriterOptions } from './warc-writer.js';

/** An exchange as it crosses to the thread: its buffers are spans of the batch's packed buffer. */
export interface WireExchange {
  url: string;
  date: Date;
  remoteAddress: string | null;
  requestHead: Span;
  responseHead: Span;
  rawBody: Span;
}

export type WarcRequest =
  | { id: number; kind: 'write'; exchanges: WireExchange[]; packed: ArrayBuffer }
  | { id: number; kind: 'close' };
export type WarcReply = { id: number; files: string[]; bytes: number; error?: string };

const port = parentPort;
if (port === null) throw new Error('warc-worker.js runs as a worker thread');
const writer = new WarcWriter(workerData as WarcWriterOptions);

port.on('message', (msg: WarcRequest) => {
  let error: string | undefined;
  try {
    if (msg.kind === 'write') {
      for (const x of msg.exchanges) {
        writer.write({
          ...x,
          requestHead: unpack(msg.packed, x.requestHead),
          responseHead: unpack(msg.packed, x.responseHead),
          rawBody: unpack(msg.packed, x.rawBody),
        });
      }
    } else {
      writer.close();
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const reply: WarcReply = { id: msg.id, files: [...writer.files], bytes: writer.bytesWritten };
  if (error !== undefined) reply.error = error;
  port.postMessage(reply);
});
