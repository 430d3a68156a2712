/**
 * A request that reads a body only up to a cut (robots.txt's 500 KiB): a longer body is
 * used up to there, the rest never read, and the connection closed rather than drained.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/index.js';
import { robotsFetchOf } from '../../src/fetch/robots/robots-fetch.js';
import { MAX_ROBOTS_BYTES } from '../../src/fetch/robots/robots-txt.js';
import { pump } from '../helpers/hostile-servers.js';
import { startHttpServer, type TestServer } from './servers.js';

const MiB = 1024 * 1024;
const CUT = 100 * 1024;

describe('Fetcher: a body read up to a cut', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function use(server: TestServer): Fetcher {
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', maxBodyBytes: 10 * MiB, totalTimeoutMs: 10_000 });
    cleanups.push(
      () => server.close(),
      () => fetcher.close(),
    );
    return fetcher;
  }

  /** A server whose every answer is `bytes` bytes of 'a' (at most; it stops when the client leaves). */
  async function endless(bytes: number, headers: Record<string, string> = {}) {
    const sent: Array<() => number> = [];
    const server = await startHttpServer((_request, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/plain', ...headers });
      sent.push(pump(response, Buffer.alloc(64 * 1024, 'a'), bytes));
    });
    return { server, sentBytes: () => sent.reduce((n, s) => n + s(), 0) };
  }

  it('keeps the first bytes of a 50 MB body announced by Content-Length, and reads no further', async () => {
    const { server, sentBytes } = await endless(50 * MiB, { 'content-length': String(50 * MiB) });
    const fetcher = use(server);

    const result = await fetcher.fetch(server.url('/big'), undefined, undefined, { readAtMostBytes: CUT });

    expect(result).toMatchObject({ ok: true, status: 200, truncated: true });
    expect(result.ok && result.body).toEqual(Buffer.alloc(CUT, 'a'));
    expect(result.ok && result.exchange.rawBody.length).toBe(CUT);
    // The server wrote what the socket buffers took before the connection closed, far from 50 MB.
    expect(sentBytes()).toBeLessThan(20 * MiB);
  });

  it('cuts a chunked body the same way', async () => {
    const { server, sentBytes } = await endless(50 * MiB);
    const fetcher = use(server);

    const result = await fetcher.fetch(server.url('/big'), undefined, undefined, { readAtMostBytes: CUT });

    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body.length).toBe(CUT);
    expect(sentBytes()).toBeLessThan(20 * MiB);
  });

  it('cuts a gzipped body after decoding, keeping the decoded head', async () => {
    const text = 'Disallow: /x\n'.repeat(100_000);
    const gzipped = gzipSync(text);
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipped);
    });
    const fetcher = use(server);

    const result = await fetcher.fetch(server.url('/z'), undefined, undefined, { readAtMostBytes: CUT });

    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body.toString()).toBe(text.slice(0, CUT));
  });

  it('leaves a body within the cut whole and not marked', async () => {
    const server = await startHttpServer((_request, response) =>
      response.end('User-agent: *\nDisallow: /\n'),
    );
    const fetcher = use(server);

    const result = await fetcher.fetch(server.url('/robots.txt'), undefined, undefined, {
      readAtMostBytes: CUT,
    });

    expect(result.ok && result.body.toString()).toBe('User-agent: *\nDisallow: /\n');
    expect(result.ok && result.truncated).toBeUndefined();
  });

  it("robots.txt's fetch reads one byte past the parser's limit", async () => {
    const { server } = await endless(50 * MiB);
    const robots = robotsFetchOf(use(server));

    const result = await robots(server.url('/robots.txt'));

    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body.length).toBe(MAX_ROBOTS_BYTES + 1);
  });
});
