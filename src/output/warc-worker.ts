/**
 * The WARC writer's thread. Compressing, digesting and writing records costs about
 * 100 µs per page, as much as fetching and parsing it; done here it runs on another
 * core while the crawl loop goes on. Messages come from WarcThread (warc-thread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type WarcExchange, WarcWriter, type WarcWriterOptions } from './warc-writer.js';

export type WarcRequest =
  | { id: number; kind: 'write'; exchanges: WarcExchange[] }
  | { id: number; kind: 'close' };
export type WarcReply = { id: number; files: string[]; error?: string };

const port = parentPort;
if (port === null) throw new Error('warc-worker.js runs as a worker thread');
const writer = new WarcWriter(workerData as WarcWriterOptions);

/** Structured cloning turns Buffers into plain Uint8Arrays; view them as Buffers again, no copy. */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

port.on('message', (msg: WarcRequest) => {
  let error: string | undefined;
  try {
    if (msg.kind === 'write') {
      for (const x of msg.exchanges) {
        writer.write({
          ...x,
          requestHead: asBuffer(x.requestHead),
          responseHead: asBuffer(x.responseHead),
          rawBody: asBuffer(x.rawBody),
        });
      }
    } else {
      writer.close();
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const reply: WarcReply = { id: msg.id, files: [...writer.files] };
  if (error !== undefined) reply.error = error;
  port.postMessage(reply);
});
