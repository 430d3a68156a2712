import { afterEach, describe, expect, it } from 'vitest';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * Times on the wire are whole milliseconds, while a gap earned from a response time (twice
 * 3.3 ms) is not: the server rounds what it sends, and never fails a reply over it.
 */
let server: InProcessServer | null = null;
let bunny: RemoteFrontier | null = null;

afterEach(async () => {
  await bunny?.close();
  await server?.dispose();
  bunny = null;
  server = null;
});

describe('times a server sends', () => {
  it('a gap of a fraction of a millisecond still gives a LEASES reply, with whole-millisecond times', async () => {
    server = await startTestServer({ settings: { delayMs: 0, delayFactor: 2.5, perHost: 1 } });
    bunny = new RemoteFrontier({ host: '127.0.0.1', port: server.port });
    const crawler = await bunny.registerCrawler('b');
    await bunny.add(
      [
        { url: 'http://127.0.0.2/a', depth: 0, via: null },
        { url: 'http://127.0.0.2/b', depth: 0, via: null },
      ],
      [],
      crawler,
    );
    const first = await bunny.lease(1, crawler);
    const lease = first.leases[0];
    expect(lease).toBeDefined();
    // 2.5 x 40.3 ms = 100.75 ms of gap, from now: the host's next start is not a whole ms.
    await bunny.release([{ leaseId: lease?.id as number, report: { fetchMs: 40.3 } }]);
    const second = await bunny.lease(1, crawler);
    expect(second.leases).toEqual([]);
    expect(second.ended).toBeNull();
    expect(Number.isInteger(second.nextReadyAt)).toBe(true);
    // and the server is still up and answering
    expect((await bunny.stats()).leased).toBe(1);
  });
});
