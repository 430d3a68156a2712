import { afterEach, describe, expect, it } from 'vitest';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import { startCrawler } from '../helpers/crawler.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

let server: InProcessServer | null = null;
let site: TestServer | null = null;
afterEach(async () => {
  await site?.close();
  await server?.dispose();
  site = null;
  server = null;
});

/** A bunny of the server: the crawl machinery on a remote store, crawling `seeds` until the crawl is over. */
async function bunny(running: InProcessServer, seeds: string[]): Promise<void> {
  const remote = new RemoteFrontier({ host: '127.0.0.1', port: running.port });
  const crawler = await startCrawler(remote, seeds, { delayMs: 0, delayFactor: 0, builtinModules: false });
  try {
    await crawler.crawl();
  } finally {
    await crawler.close();
    await remote.close();
  }
}

describe("a server's bunnies and the cookie jar", () => {
  it('keeps the session in the server: a bunny started later sends what an earlier one was given', async () => {
    site = await serve(
      '127.0.0.2',
      routes({
        '/login': (_req, res) => {
          res
            .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=shared; Path=/' })
            .end(page('logged in'));
        },
        '/inside': page('inside'),
      }),
    );
    server = await startTestServer({ settings: { delayMs: 0 } });
    await bunny(server, [`${site.origin}/login`]);
    expect(await server.store.cookies()).toHaveLength(1);
    await bunny(server, [`${site.origin}/inside`]);
    const asked = site.log.filter((r) => r.path !== '/robots.txt');
    expect(asked.map((r) => [r.path, r.headers.cookie])).toEqual([
      ['/login', undefined],
      ['/inside', 'sid=shared'],
    ]);
  });
});
