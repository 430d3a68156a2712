/**
 * The fetcher's open connections across many origins: idle keep-alive connections are
 * kept up to maxOpenConnections, the ones of the origins used longest ago closed first;
 * a connection in use is never cut. Counted at the server: connections accepted, and
 * connections open.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { startServer, type TestServer } from './servers.js';

const ORIGINS = 40;
const BOUND = 4;

describe('Fetcher: open connections bounded across origins', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** One server for every name, keeping connections alive for minutes; it counts the sockets open now. */
  async function server(hold?: Promise<void>): Promise<TestServer & { open(): number }> {
    let open = 0;
    const http = createServer(async (_request, response) => {
      if (hold !== undefined) await hold;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    http.keepAliveTimeout = 120_000;
    http.on('connection', (socket: Socket) => {
      open++;
      socket.on('close', () => open--);
    });
    const started = await startServer(http);
    cleanups.push(() => started.close());
    return { ...started, open: () => open };
  }

  function fetcherFor(port: number): { fetcher: Fetcher; url: (i: number) => string } {
    const resolve = new Map<string, string>();
    for (let i = 0; i < ORIGINS; i++) resolve.set(`o${i}.test:${port}`, '127.0.0.1');
    const fetcher = new Fetcher({ userAgent: 'cobweb-test', resolve, maxOpenConnections: BOUND });
    cleanups.push(() => fetcher.close());
    return { fetcher, url: (i) => `http://o${i}.test:${port}/` };
  }

  /** Until the server has seen the closes that were sent (bounded: 200 turns of 10 ms). */
  async function settled(site: { open(): number }, atMost: number): Promise<number> {
    for (let turn = 0; turn < 200 && site.open() > atMost; turn++)
      await new Promise((r) => setTimeout(r, 10));
    return site.open();
  }

  it('keeps the idle connections of the most recent origins, up to the bound', async () => {
    const site = await server();
    const { fetcher, url } = fetcherFor(site.port);

    for (let i = 0; i < ORIGINS; i++) expect(await fetcher.fetch(url(i))).toMatchObject({ status: 200 });

    expect(site.connections()).toBe(ORIGINS);
    expect(await settled(site, BOUND)).toBe(BOUND);
    // The last origin's connection was kept and is used again; the first one's was closed.
    await fetcher.fetch(url(ORIGINS - 1));
    expect(site.connections()).toBe(ORIGINS);
    await fetcher.fetch(url(0));
    expect(site.connections()).toBe(ORIGINS + 1);
  });

  it('never cuts a connection in use: more requests in flight than the bound all complete', async () => {
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const site = await server(hold);
    const { fetcher, url } = fetcherFor(site.port);

    const inFlight = Array.from({ length: 3 * BOUND }, (_, i) => fetcher.fetch(url(i)));
    // Every request has its connection before any answer comes.
    for (let turn = 0; turn < 200 && site.connections() < 3 * BOUND; turn++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(site.open()).toBe(3 * BOUND);
    release();
    const outcomes = await Promise.all(inFlight);

    expect(outcomes.map((o) => (o.ok ? o.status : o.error))).toEqual(Array(3 * BOUND).fill(200));
    // Once they are idle, the next connection trims them back to the bound.
    await fetcher.fetch(url(ORIGINS - 1));
    expect(await settled(site, BOUND)).toBe(BOUND);
  });
});
