/** Real loopback servers for the fetcher tests. Every server listens on a free port and is closed after use. */
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import {
  type AddressInfo,
  connect as connectTo,
  createServer as createNetServer,
  type Server,
  type Socket,
} from 'node:net';

export interface TestServer {
  readonly host: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: () => number;
  url(path?: string): string;
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

async function track(server: Server, host: string, scheme = 'http', port = 0): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const bound = await listen(server, host, port);
  return {
    host,
    port: bound,
    connections: () => accepted,
    url: (path = '/') => `${scheme}://${host}:${bound}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An ordinary node:http server. */
export function startHttpServer(handler: RequestListener, host = '127.0.0.1'): Promise<TestServer> {
  return track(createHttpServer(handler), host);
}

/** A raw TCP server, for responses that node:http would refuse to produce. */
export function startRawServer(onSocket: (socket: Socket) => void, host = '127.0.0.1'): Promise<TestServer> {
  return track(createNetServer(onSocket), host);
}

/** Any server, e.g. a TLS one, tracked the same way; on `port` when one is given. */
export function startServer(
  server: Server,
  host = '127.0.0.1',
  scheme = 'http',
  port = 0,
): Promise<TestServer> {
  return track(server, host, scheme, port);
}

/**
 * A site on `host` that answers every request with `hello from HOST`, on `port` when
 * one is given. With `keepAlive` false each connection is closed after its answer, so
 * every fetch makes a new connection (and a new lookup).
 */
export function startSiteOn(host: string, port = 0, keepAlive = false): Promise<TestServer> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', ...(keepAlive ? {} : { connection: 'close' }) });
    response.end(`hello from ${host}`);
  });
  return track(server, host, 'http', port);
}

/**
 * Two sites on one port of two loopback addresses, so that which one a name reaches
 * depends on the address alone. The port is the first's free one; taken on the second
 * address, another is tried (a few times at most).
 */
export async function sitesOnOnePort(
  firstHost: string,
  secondHost: string,
  keepAlive = false,
): Promise<[TestServer, TestServer]> {
  for (let attempt = 0; ; attempt++) {
    const first = await startSiteOn(firstHost, 0, keepAlive);
    try {
      return [first, await startSiteOn(secondHost, first.port, keepAlive)];
    } catch (error) {
      await first.close();
      if (attempt >= 4) throw error;
    }
  }
}

/** Reads until the end of a request head, then calls back once with it. */
export function onRequestHead(socket: Socket, callback: (head: string) => void): void {
  let received = '';
  const onData = (data: Buffer) => {
    received += data.toString('latin1');
    const end = received.indexOf('\r\n\r\n');
    if (end === -1) return;
    socket.off('data', onData);
    callback(received.slice(0, end + 4));
  };
  socket.on('data', onData);
  socket.on('error', () => {});
}

/**
 * A proxy's answer to CONNECT: dials the target, says 200, then pipes both ways (the
 * bytes that came after the CONNECT's head first). Either side's end ends the other.
 */
export function openTunnel(client: Socket, head: Buffer, port: number, host: string): void {
  const upstream = connectTo(port, host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
}
