/**
 * The WARC writer's thread. Compressing, digesting and writing records costs about
 * 100 µs per page, as much as fetching and parsing it; done here it runs on another
 * core while the crawl loop goes on. Messages come from WarcThread (warc-thread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type PackedExchange, warcExchangeOf } from './packed-exchange.js';
import { WarcWriter, type WarcWriterOptions } from './warc-writer.js';

export type WarcRequest =
  | { id: number; kind: 'write'; exchanges: PackedExchange[] }
  | { id: number; kind: 'close' };
export type WarcReply = { id: number; files: string[]; bytes: number; error?: string };

const port = parentPort;
if (port === null) throw new Error('warc-worker.js runs as a worker thread');
const writer = new WarcWriter(workerData as WarcWriterOptions);

port.on('message', (msg: WarcRequest) => {
  let error: string | undefined;
  try {
    if (msg.kind === 'write') {
      for (const x of msg.exchanges) writer.write(warcExchangeOf(x));
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
