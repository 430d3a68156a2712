import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/index.js';
import type { FetcherOptions } from '../../src/fetch/types.js';
import { onRequestHead, startHttpServer, startRawServer, type TestServer } from './servers.js';

describe('Fetcher: size limits and timeouts', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function use(server: TestServer, options: Partial<FetcherOptions>): Fetcher {
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', ...options });
    cleanups.push(
      () => server.close(),
      () => fetcher.close(),
    );
    return fetcher;
  }

  it('refuses a page whose Content-Length is over the limit', async () => {
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Length': String(2 * 1024 * 1024) });
      response.end(Buffer.alloc(2 * 1024 * 1024, 'a'));
    });
    const fetcher = use(server, { maxBodyBytes: 1024 * 1024, totalTimeoutMs: 5000 });

    const result = await fetcher.fetch(server.url('/huge'));

    expect(result).toMatchObject({ ok: false, error: 'too-large', status: 200 });
  });

  it('stops reading a chunked page once it passes the limit', async () => {
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end(Buffer.alloc(300 * 1024, 'a'));
    });
    const fetcher = use(server, { maxBodyBytes: 100 * 1024, totalTimeoutMs: 5000 });

    const result = await fetcher.fetch(server.url('/huge'));

    expect(result).toMatchObject({
      ok: false,
      error: 'too-large',
      status: 200,
      message: `body over ${100 * 1024} bytes`,
    });
  });

  it('accepts a body of exactly the limit', async () => {
    const server = await startHttpServer((_request, response) => response.end(Buffer.alloc(1000, 'a')));
    const fetcher = use(server, { maxBodyBytes: 1000, totalTimeoutMs: 5000 });

    const result = await fetcher.fetch(server.url('/'));

    expect(result.ok && result.body.length).toBe(1000);
  });

  it('cuts off an endless body', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let chunksWritten = 0;
    let closedEarly = false;
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      // "Endless" but bounded: at most 1 GiB, and only as fast as the client reads.
      const writeMore = () => {
        while (chunksWritten < 16 * 1024 && !response.destroyed) {
          chunksWritten++;
          if (!response.write(chunk)) return;
        }
        if (!response.destroyed) response.end();
      };
      response.on('drain', writeMore);
      response.on('close', () => {
        closedEarly = !response.writableFinished;
      });
      writeMore();
    });
    const fetcher = use(server, { maxBodyBytes: 256 * 1024, totalTimeoutMs: 10_000 });

    const result = await fetcher.fetch(server.url('/endless'));

    expect(result).toMatchObject({ ok: false, error: 'too-large', status: 200 });
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    expect(closedEarly).toBe(true);
    expect(chunksWritten).toBeLessThan(16 * 1024);
  });

  it('times out when the response headers never come', async () => {
    const server = await startRawServer((socket) => {
      onRequestHead(socket, () => {
        // Say nothing; the socket is destroyed when the server closes.
      });
    });
    const fetcher = use(server, { firstByteTimeoutMs: 300, totalTimeoutMs: 5000 });

    const result = await fetcher.fetch(server.url('/silent'));

    expect(result).toMatchObject({
      ok: false,
      error: 'timeout',
      message: 'no response headers within 300 ms',
    });
    expect(result.ok ? undefined : result.status).toBeUndefined();
    // it connected: a slow server is not an unreachable host
    expect(result.ok ? undefined : result.connectFailed).toBeUndefined();
  });

  it('times out a body that stalls longer than the first-byte timeout', async () => {
    const server = await startRawServer((socket) => {
      onRequestHead(socket, () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'));
    });
    const fetcher = use(server, { firstByteTimeoutMs: 300, totalTimeoutMs: 5000 });

    const result = await fetcher.fetch(server.url('/stall'));

    expect(result).toMatchObject({
      ok: false,
      error: 'timeout',
      status: 200,
      message: 'no body data for 300 ms',
    });
  });

  it('times out a slowloris body with the total timeout', async () => {
    let bytesSent = 0;
    const server = await startRawServer((socket) => {
      onRequestHead(socket, () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n');
        // One byte every 200 ms: each gap is within the 300 ms body timeout. Stops by itself after 50 bytes.
        const drip = setInterval(() => {
          if (socket.destroyed || bytesSent >= 50) {
            clearInterval(drip);
            return;
          }
          bytesSent++;
          socket.write('x');
        }, 200);
        socket.on('close', () => clearInterval(drip));
      });
    });
    const fetcher = use(server, { firstByteTimeoutMs: 300, totalTimeoutMs: 1000 });

    const result = await fetcher.fetch(server.url('/slow'));

    expect(result).toMatchObject({
      ok: false,
      error: 'timeout',
      status: 200,
      message: 'no complete response within 1000 ms',
    });
    expect(bytesSent).toBeLessThan(50);
  });
});
