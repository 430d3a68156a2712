import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny, serve } from '../../src/index.js';
import type { CrawlProgress } from '../../src/options/options.js';
import { serve as httpServe, page, routes, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { startTestWeb } from '../helpers/test-web.js';

// A server and a bunny from the library alone, as `cobweb server` and `cobweb bunny` run
// them, on a test web on 127.0.0.x; fetches counted at the web servers themselves.

const PAGES = 5;
let dir = '';
let sites: TestServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-serve-bunny-'));
  sites = await startTestWeb(['127.0.0.2', '127.0.0.3'], PAGES);
});

afterEach(async () => {
  for (const site of sites.splice(0)) await site.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each site's page requests (robots.txt aside), by path. */
function pageRequests(site: TestServer): string[] {
  return site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
}

// A server and a bunny start their module threads: slow on a busy machine.
describe('serve() and bunny()', { timeout: 120_000 }, () => {
  it('a bunny crawls a server’s crawl to its end, every page fetched once, and both summaries say so', async () => {
    const serverLines: string[] = [];
    const stop = new AbortController();
    let listening = '';
    const server = await serve({
      seeds: sites.map((s) => `${s.origin}/`),
      data: join(dir, 'server'),
      listen: '127.0.0.1:0',
      delayMs: 0,
      delayFactor: 0,
      onLog: (line) => serverLines.push(line),
      onListening: ({ listen }) => {
        listening = listen;
      },
      signal: stop.signal,
    });
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.listen).toBe(`127.0.0.1:${server.port}`);
    expect(listening).toBe(server.listen);
    expect(server.token.length).toBeGreaterThan(0);
    expect(serverLines).toContain('2 of 2 seeds queued');
    // The lifecycle is info, as --log-level documents: it reaches onLog.
    expect(serverLines).toContain(`server started on ${server.listen}, data in ${join(dir, 'server')}`);

    const bunnyLines: string[] = [];
    const summary = await bunny({
      server: server.listen,
      token: server.token,
      data: join(dir, 'bunny'),
      onLog: (line) => bunnyLines.push(line),
    });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.server).toBe(server.listen);
    expect(summary.crawl).toBeNull();
    expect(summary.fetchedThisRun).toBe(2 * PAGES);
    expect(summary.queued).toBe(0);
    expect(summary.done).toBe(2 * PAGES);
    expect(summary.thisRun.fetched).toEqual({ '2xx': 2 * PAGES });
    expect(summary.warcFiles.length).toBeGreaterThan(0);
    expect(bunnyLines[0]).toBe(`bunny ${summary.crawler} crawling for ${server.listen}`);
    expect(bunnyLines.at(-1)).toMatch(
      new RegExp(`^the crawl is over \\(finished\\): ${2 * PAGES} fetched by this bunny`),
    );

    // Every page reached its web server once.
    for (const site of sites) {
      const asked = pageRequests(site);
      expect(asked).toHaveLength(PAGES);
      expect(new Set(asked).size).toBe(PAGES);
    }

    // The caller's signal stops the server; its summary has what its bunny did.
    stop.abort();
    const ended = await server.done;
    expect(ended.stoppedBy).toBe('signal');
    expect(ended.listen).toBe(server.listen);
    expect(ended.data).toBe(join(dir, 'server'));
    expect(ended.fetchedThisRun).toBe(2 * PAGES);
    expect(ended.done).toBe(2 * PAGES);
    expect(ended.queued).toBe(0);
    // Its stop line, then the module calls its bunny made on every page, counted here.
    const stopped = serverLines.find((l) => l.startsWith('server stopped'))?.split('\n');
    expect(stopped?.[0]).toBe(`server stopped (signal): ${2 * PAGES} URLs fetched by its bunnies this run`);
    expect(stopped).toContainEqual(
      expect.stringMatching(new RegExp(`^  module meta: ${2 * PAGES} calls, 0 errors`)),
    );
    // A connection (a bunny's, a show's) is debug: the bunny said it joined, at info.
    expect(serverLines.filter((l) => l.startsWith('connection from'))).toEqual([]);
    expect(serverLines.some((l) => /^bunny \d+ .*joined/.test(l))).toBe(true);
    const lines = readPages(join(dir, 'server', 'pages.jsonl'));
    expect(lines.map((l) => l.url).sort()).toEqual(
      sites.flatMap((s) => pageRequests(s).map((p) => `${s.origin}${p}`)).sort(),
    );
  });

  it('stop() stops a server at once, with nothing crawled, and frees its data folder for the next', async () => {
    const data = join(dir, 'server');
    const first = await serve({ data, listen: '127.0.0.1:0', onLog: () => {} });
    first.stop();
    const summary = await first.done;
    expect(summary.stoppedBy).toBe('signal');
    expect(summary.fetchedThisRun).toBe(0);
    expect(summary.bunnies).toBe(0);
    // The folder's lock is let go: a second server opens the same folder, with the token it made.
    const second = await serve({ data, listen: '127.0.0.1:0', onLog: () => {} });
    expect(second.token).toBe(first.token);
    expect((await second.close()).stoppedBy).toBe('signal');
  });

  it("reports its progress as a crawl does: its own pages, and the crawl's queue as the server sees it", async () => {
    // One page that answers slowly: the bunny is still crawling at its progress ticks.
    const slow = await httpServe(
      '127.0.0.4',
      routes({
        '/': page('home', ['/slow']),
        '/slow': (_req, res) => {
          setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page('slow')), 400);
        },
      }),
    );
    sites.push(slow);
    const server = await serve({
      seeds: [`${slow.origin}/`],
      data: join(dir, 'server'),
      listen: '127.0.0.1:0',
      delayMs: 0,
      delayFactor: 0,
      onLog: () => {},
    });
    const seen: CrawlProgress[] = [];
    const summary = await bunny({
      server: server.listen,
      token: server.token,
      data: join(dir, 'bunny'),
      progressMs: 50,
      onProgress: (p) => seen.push(p),
      onLog: () => {},
    });
    await server.close();
    expect(summary.fetchedThisRun).toBe(2);
    expect(seen.length).toBeGreaterThan(0);
    // While /slow was fetched: leased at the server, this bunny's own count below the crawl's end.
    expect(seen.some((p) => p.inFlight === 1 && p.fetchedThisRun < 2)).toBe(true);
    expect(seen.every((p) => p.done + p.failed <= summary.done)).toBe(true);
  });

  it('a bunny with neither a server nor a store is refused before it touches anything', async () => {
    await expect(bunny({ data: join(dir, 'never') })).rejects.toMatchObject({
      code: 'COBWEB_OPTION',
      message: expect.stringMatching(/^a bunny needs --server HOST:PORT/),
    });
  });
});
