import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/index.js';
import type { FetchOutcome, FetchSuccess } from '../../src/fetch/types.js';
import { startHttpServer, type TestServer } from './servers.js';

const PAGE = `<html><body>${'<p>compressible text, repeated. </p>'.repeat(2000)}</body></html>`;

function expectSuccess(outcome: FetchOutcome): FetchSuccess {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error}: ${outcome.message}`);
  return outcome;
}

describe('Fetcher: content-decoding', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serveEncoded(encoding: string, body: Buffer): Promise<TestServer> {
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': encoding });
      response.end(body);
    });
    cleanups.push(() => server.close());
    return server;
  }

  function newFetcher(options: { maxBodyBytes?: number } = {}): Fetcher {
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', totalTimeoutMs: 10_000, ...options });
    cleanups.push(() => fetcher.close());
    return fetcher;
  }

  const encodings: Array<[string, (input: Buffer) => Buffer]> = [
    ['gzip', (input) => gzipSync(input)],
    ['x-gzip', (input) => gzipSync(input)],
    ['deflate', (input) => deflateSync(input)],
    ['br', (input) => brotliCompressSync(input)],
  ];

  it.each(encodings)(
    'decodes a %s body and keeps the compressed bytes as rawBody',
    async (encoding, compress) => {
      const compressed = compress(Buffer.from(PAGE));
      const server = await serveEncoded(encoding, compressed);

      const result = expectSuccess(await newFetcher().fetch(server.url('/')));

      expect(result.body.toString()).toBe(PAGE);
      expect(result.exchange.rawBody.equals(compressed)).toBe(true);
      expect(result.headers['content-encoding']).toBe(encoding);
      expect(result.exchange.responseHead.toString('latin1')).toContain(
        `\r\nContent-Encoding: ${encoding}\r\n`,
      );
    },
  );

  it('decodes raw deflate (no zlib wrapper), as some servers send it', async () => {
    const compressed = deflateRawSync(Buffer.from(PAGE));
    const server = await serveEncoded('deflate', compressed);

    const result = expectSuccess(await newFetcher().fetch(server.url('/')));

    expect(result.body.toString()).toBe(PAGE);
  });

  it('undoes stacked codings in reverse order', async () => {
    const compressed = brotliCompressSync(gzipSync(Buffer.from(PAGE)));
    const server = await serveEncoded('gzip, br', compressed);

    const result = expectSuccess(await newFetcher().fetch(server.url('/')));

    expect(result.body.toString()).toBe(PAGE);
  });

  it('keeps the body as it is for an unknown coding', async () => {
    const server = await serveEncoded('zstd', Buffer.from('opaque bytes'));

    const result = expectSuccess(await newFetcher().fetch(server.url('/')));

    expect(result.body.toString()).toBe('opaque bytes');
  });

  it('fails a corrupt gzip body as a protocol error', async () => {
    const server = await serveEncoded('gzip', Buffer.from('this is not gzip at all, just text'));

    const result = await newFetcher().fetch(server.url('/'));

    expect(result).toMatchObject({ ok: false, error: 'protocol', status: 200 });
    expect(result.ok ? '' : result.message).toMatch(/gzip/);
  });

  it('cuts off a gzip bomb at the decoded-size limit and never holds the expanded body', async () => {
    const oneGiB = 1024 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024);
    let generated = 0;
    let peakArrayBuffers = 0;
    let serverFinished = false;
    // 1 GiB of zeros, gzipped on the fly (about 1 MiB on the wire), generated only as fast as it is sent.
    const zeros = new Readable({
      read() {
        peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
        if (generated >= oneGiB) {
          this.push(null);
          return;
        }
        generated += chunk.length;
        this.push(chunk);
      },
    });
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' });
      response.on('close', () => {
        serverFinished = response.writableFinished;
      });
      pipeline(zeros, createGzip(), response).catch(() => {});
    });
    cleanups.push(() => server.close());
    const limit = 4 * 1024 * 1024;
    const baseline = process.memoryUsage().arrayBuffers;

    const result = await newFetcher({ maxBodyBytes: limit }).fetch(server.url('/bomb'));

    expect(result).toMatchObject({ ok: false, error: 'too-large', status: 200 });
    expect(result.ok ? '' : result.message).toBe(`body over ${limit} bytes after decoding`);
    // The connection was cut: the server never got to finish sending the bomb.
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    expect(serverFinished).toBe(false);
    expect(generated).toBeLessThan(oneGiB);
    // Nothing near the expanded size was ever held (it would be 1 GiB).
    expect(peakArrayBuffers - baseline).toBeLessThan(256 * 1024 * 1024);
  });
});
