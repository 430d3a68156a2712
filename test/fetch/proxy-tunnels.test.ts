/**
 * https:// sites through a proxy: each site's CONNECT tunnel is its keep-alive
 * connection, and the tunnels open at once are bounded across sites as direct
 * connections are (maxOpenConnections): a crawl of many hosts through a proxy keeps a
 * socket per recent site, not per site seen. Counted at the proxy: tunnels asked for,
 * and tunnels open.
 */
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { openTunnel, startServer, type TestServer } from './servers.js';
import { SITE_A_CERT, SITE_A_KEY } from './tls-fixture.js';

const SITES = 12;
const BOUND = 3;

describe('Fetcher: tunnels through a proxy bounded across sites', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** site-a.test on SITES ports of 127.0.0.2, keeping connections alive for minutes. */
  async function sites(): Promise<TestServer[]> {
    const started: TestServer[] = [];
    for (let i = 0; i < SITES; i++) {
      const site = createSecureServer({ key: SITE_A_KEY, cert: SITE_A_CERT }, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      });
      site.keepAliveTimeout = 120_000;
      const one = await startServer(site, '127.0.0.2', 'https');
      cleanups.push(() => one.close());
      started.push(one);
    }
    return started;
  }

  /** A CONNECT proxy on 127.0.0.4 that dials site-a.test at 127.0.0.2 and counts its tunnels. */
  async function proxy(): Promise<{ port: number; asked(): number; open(): number }> {
    let asked = 0;
    let open = 0;
    const server = createHttpServer((_req, res) => res.writeHead(405).end());
    server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      asked++;
      open++;
      client.on('close', () => open--);
      openTunnel(client, head, Number((req.url ?? '').split(':')[1]), '127.0.0.2');
    });
    const started = await startServer(server, '127.0.0.4');
    cleanups.push(() => started.close());
    return { port: started.port, asked: () => asked, open: () => open };
  }

  /** Until the proxy has seen the closes that were sent (bounded: 200 turns of 10 ms). */
  async function settled(p: { open(): number }, atMost: number): Promise<number> {
    for (let turn = 0; turn < 200 && p.open() > atMost; turn++) await new Promise((r) => setTimeout(r, 10));
    return p.open();
  }

  it('keeps the tunnels of the most recent sites, up to the bound, and sends again through a kept one', async () => {
    const targets = await sites();
    const through = await proxy();
    const resolve = new Map(targets.map((t) => [`site-a.test:${t.port}`, '127.0.0.2']));
    const fetcher = new Fetcher({
      userAgent: 'cobweb-test',
      resolve,
      ca: [SITE_A_CERT],
      maxOpenConnections: BOUND,
      proxy: { http: null, https: `http://127.0.0.4:${through.port}`, noProxy: [] },
    });
    cleanups.push(() => fetcher.close());
    const url = (i: number) => `https://site-a.test:${targets[i]?.port}/`;

    for (let i = 0; i < SITES; i++) expect(await fetcher.fetch(url(i))).toMatchObject({ status: 200 });

    expect(through.asked()).toBe(SITES);
    expect(await settled(through, BOUND)).toBe(BOUND);
    // The last site's tunnel was kept and carries its next request; the first one's was closed.
    await fetcher.fetch(url(SITES - 1));
    expect(through.asked()).toBe(SITES);
    await fetcher.fetch(url(0));
    expect(through.asked()).toBe(SITES + 1);
  });

  it("fails a request whose CONNECT the proxy refuses, naming the proxy's answer", async () => {
    const refusing = createHttpServer();
    refusing.on('connect', (_req: IncomingMessage, client: Socket) => {
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
    const started = await startServer(refusing, '127.0.0.4');
    cleanups.push(() => started.close());
    const fetcher = new Fetcher({
      userAgent: 'cobweb-test',
      proxy: { http: null, https: `http://127.0.0.4:${started.port}`, noProxy: [] },
    });
    cleanups.push(() => fetcher.close());

    const outcome = await fetcher.fetch('https://site-a.test:4443/');

    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.message).toMatch(/403.*CONNECT site-a\.test:4443/);
  });
});
