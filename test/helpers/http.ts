import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';

export interface LoggedRequest {
  host: string;
  path: string;
  /** Arrival time in ms (sub-ms precision). */
  at: number;
}

export interface TestServer {
  /** http://127.0.0.x:port */
  origin: string;
  address: string;
  port: number;
  log: LoggedRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A listening test server: where it is, and a close() that drops every open connection. */
export interface Listening {
  origin: string;
  address: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on a free port of a loopback address (for node:http and raw node:net servers
 * alike) and tracks connections, so close() need not wait for idle keep-alive sockets.
 */
export async function listenOnLoopback(server: NetServer, address: string): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, address);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://${address}:${port}`,
    address,
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

/** A real HTTP server on a loopback address, logging every request it gets. */
export async function serve(address: string, handler: Handler): Promise<TestServer> {
  const log: LoggedRequest[] = [];
  const server: Server = createServer((req, res) => {
    log.push({
      host: req.headers.host ?? '',
      path: req.url ?? '',
      at: performance.timeOrigin + performance.now(),
    });
    handler(req, res);
  });
  return { ...(await listenOnLoopback(server, address)), log };
}

/** Serves fixed pages by path; anything else is a 404. */
export function routes(table: Record<string, Handler | string>): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = table[req.url ?? '/'] ?? table[path];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<title>not found</title>');
    } else if (typeof route === 'string') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route);
    } else {
      route(req, res);
    }
  };
}

export function page(title: string, links: readonly string[] = [], extra = ''): string {
  const a = links.map((l) => `<a href="${l}">${l}</a>`).join('\n');
  return `<!doctype html><html><head><title>${title}</title></head><body>${a}${extra}</body></html>`;
}

/** A route that drops the connection (a failure with no response) until mend(), then serves a page. */
export function flaky(): { route: Handler; mend(): void } {
  let broken = true;
  return {
    route: (_req, res) => {
      if (broken) res.socket?.destroy();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>');
    },
    mend: () => {
      broken = false;
    },
  };
}
