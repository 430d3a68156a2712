/**
 * The WARC writer's thread. Compressing, digesting and writing records costs about
 * 100 µs per page, as much as fetching and parsing it; done here it runs on another
 * core while the crawl loop goes on. It takes over from the writer on the crawl's
 * thread, in the file that one has open ('adopt'). Messages come from WarcThread
 * (warc-thread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type PackedExchange, warcExchangeOf } from './packed-exchange.js';
import { WarcWriter, type WarcWriterOptions, type WarcWriterState } from './warc-writer.js';

export type WarcRequest =
  | { id: number; kind: 'adopt'; state: WarcWriterState }
  | { id: number; kind: 'write'; exchanges: PackedExchange[] }
  | { id: number; kind: 'close' };
export type WarcReply =
  | { kind: 'ready' }
  | { kind: 'done'; id: number; files: string[]; bytes: number; error?: string };

const port = parentPort;
if (port === null) throw new Error('warc-worker.js runs as a worker thread');
const options = workerData as WarcWriterOptions;
let writer: WarcWriter | null = null;

port.on('message', (msg: WarcRequest) => {
  let error: string | undefined;
  try {
    if (msg.kind === 'adopt') writer = new WarcWriter(options, msg.state);
    else if (writer === null) throw new Error('no writer handed over yet');
    else if (msg.kind === 'write') {
      writer.writeAll(msg.exchanges.map(warcExchangeOf));
    } else {
      writer.close();
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const reply: WarcReply = {
    kind: 'done',
    id: msg.id,
    files: [...(writer?.files ?? [])],
    bytes: writer?.bytesWritten ?? 0,
  };
  if (error !== undefined) reply.error = error;
  port.postMessage(reply);
});
port.postMessage({ kind: 'ready' } satisfies WarcReply);
