import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/index.js';
import type { FetcherOptions } from '../../src/fetch/types.js';
import { onRequestHead, startHttpServer, startRawServer, startServer, type TestServer } from './servers.js';
import { SITE_A_CERT, SITE_A_KEY } from './tls-fixture.js';

describe('Fetcher: failures are classified', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function newFetcher(options: Partial<FetcherOptions> = {}): Fetcher {
    const fetcher = new Fetcher({
      userAgent: 'cobweb-test',
      firstByteTimeoutMs: 2000,
      totalTimeoutMs: 5000,
      ...options,
    });
    cleanups.push(() => fetcher.close());
    return fetcher;
  }

  async function serve(server: Promise<TestServer>): Promise<TestServer> {
    const started = await server;
    cleanups.push(() => started.close());
    return started;
  }

  it('reports refused for a port with nothing listening', async () => {
    // Take a free port, then free it again: nothing listens there afterwards.
    const closed = await startRawServer((socket) => socket.destroy(), '127.0.0.3');
    await closed.close();

    const result = await newFetcher().fetch(closed.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'refused', connectFailed: true });
    expect(result.ok ? '' : result.message).toContain('ECONNREFUSED');
    expect(result.ok ? undefined : result.status).toBeUndefined();
  });

  it('reports reset when the server resets the connection in mid-body', async () => {
    const server = await serve(
      startRawServer((socket) => {
        onRequestHead(socket, () => {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(1000)}`, () =>
            setTimeout(() => socket.resetAndDestroy(), 20),
          );
        });
      }),
    );

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'reset', status: 200 });
  });

  it('reports reset when the server closes before the declared body is complete', async () => {
    const server = await serve(
      startRawServer((socket) => {
        onRequestHead(socket, () =>
          socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(1000)}`),
        );
      }),
    );

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'reset', status: 200 });
  });

  it('reports reset when the server closes without answering', async () => {
    const server = await serve(startRawServer((socket) => onRequestHead(socket, () => socket.end())));

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'reset' });
  });

  it('reports protocol for an invalid status line', async () => {
    const server = await serve(
      startRawServer((socket) => {
        onRequestHead(socket, () => socket.end('HTTZ/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi'));
      }),
    );

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'protocol' });
  });

  it('reports protocol for a malformed header line', async () => {
    const server = await serve(
      startRawServer((socket) => {
        onRequestHead(socket, () => socket.end('HTTP/1.1 200 OK\r\nNo colon on this line\r\n\r\nhi'));
      }),
    );

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'protocol' });
  });

  it('reports tls when an https URL reaches a plain-HTTP server', async () => {
    const server = await serve(startHttpServer((_request, response) => response.end('plain')));

    const result = await newFetcher().fetch(`https://127.0.0.1:${server.port}/`);

    expect(result).toMatchObject({ ok: false, error: 'tls' });
  });

  it('reports tls for an untrusted certificate, having sent the URL hostname as SNI to the resolved address', async () => {
    const serverNames: string[] = [];
    const context = createSecureContext({ key: SITE_A_KEY, cert: SITE_A_CERT });
    const tlsServer = createTlsServer(
      {
        key: SITE_A_KEY,
        cert: SITE_A_CERT,
        // Called with the ClientHello's server name, before the client gets to judge the certificate.
        SNICallback: (serverName, callback) => {
          serverNames.push(serverName);
          callback(null, context);
        },
      },
      (socket) => socket.end(),
    );
    tlsServer.on('tlsClientError', () => {});
    const server = await serve(startServer(tlsServer, '127.0.0.2', 'https'));
    const fetcher = newFetcher({ resolve: new Map([[`site-a.test:${server.port}`, '127.0.0.2']]) });

    const result = await fetcher.fetch(`https://site-a.test:${server.port}/`);

    expect(result).toMatchObject({ ok: false, error: 'tls' });
    expect(result.ok ? '' : result.message).toMatch(/self[- ]signed/i);
    expect(serverNames).toEqual(['site-a.test']);
  });

  it('never rejects, even after close', async () => {
    const fetcher = newFetcher();
    await fetcher.close();

    const result = await fetcher.fetch('http://127.0.0.1:9/');

    expect(result).toMatchObject({ ok: false, error: 'network' });
  });
});
