import type { ServerResponse } from 'node:http';

/** The most pages watching at once; one more is told to come back later. */
const MAX_CLIENTS = 32;

/**
 * The pages watching, over server-sent events: each gets every event as
 * `event: NAME` and one `data:` line of JSON. A client that does not read (its socket's
 * buffer past a limit) is dropped rather than buffered for.
 */
export class SseClients {
  private readonly clients = new Set<ServerResponse>();

  get size(): number {
    return this.clients.size;
  }

  /** Takes a response as an event stream, with `first` sent to it alone; false when full. */
  add(res: ServerResponse, first: { event: string; data: unknown }): boolean {
    if (this.clients.size >= MAX_CLIENTS) return false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    res.write(frame(first.event, first.data));
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    return true;
  }

  send(event: string, data: unknown): void {
    if (this.clients.size === 0) return;
    const text = frame(event, data);
    for (const res of this.clients) {
      if (res.writableLength > 1 << 20) {
        res.destroy();
        this.clients.delete(res);
        continue;
      }
      res.write(text);
    }
  }

  /** Ends every stream (the process is stopping). */
  close(): void {
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
