import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

/**
 * `cobweb server` and `cobweb bunny` as a user runs them, as processes, on test webs on
 * 127.0.0.x. Fetches are counted at the web servers themselves.
 */

let dir: string;
let web: RunningWeb | null = null;
const sites: TestServer[] = [];
const processes: CliProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-cluster-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await web?.close();
  web = null;
  for (const s of sites.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): CliProcess {
  const p = cobweb(args);
  processes.push(p);
  return p;
}

/**
 * A server on `port`, or on a port the system picks (0): the port it took is read from its
 * first line. A port asked for by number (a restart on the port bunnies know) may still be
 * held for a moment by another test's process: it is tried again, a bounded number of times.
 */
async function server(
  seeds: string[],
  port: number,
  extra: string[] = [],
): Promise<CliProcess & { port: number }> {
  for (let attempt = 1; ; attempt++) {
    const s = run([
      'server',
      ...seeds,
      '--data',
      join(dir, 'server'),
      '--listen',
      `127.0.0.1:${port}`,
      '--quiet',
      ...extra,
    ]);
    try {
      const m = await s.line(/server listening on [^\s]+:(\d+)/);
      return Object.assign(s, { port: Number(m[1]) });
    } catch (err) {
      if (attempt >= 20 || !/EADDRINUSE/.test(s.stderr())) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

function bunny(name: string, port: number, extra: string[] = []): CliProcess {
  return run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, name), '--quiet', ...extra]);
}

const serverPages = () => readPages(join(dir, 'server', 'pages.jsonl'));
const fetchedUrls = () =>
  serverPages()
    .filter((r) => r.status !== null)
    .map((r) => r.url);

// Several processes start (each loads its module threads): slow on a busy machine.
describe('a server with bunnies', { timeout: 180_000 }, () => {
  it('three bunnies fetch every page once, and the per-host gap holds across them', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 25,
      minLinks: 3,
      maxLinks: 6,
    });
    const s = await server(
      web.sites.map((x) => `${x.origin}/`),
      0,
      ['--delay', '100', '--delay-factor', '0', '--per-host', '2'],
    );
    const bunnies = ['b1', 'b2', 'b3'].map((n) => bunny(n, s.port, ['--concurrency', '4']));
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0, 0]);
    const urls = fetchedUrls();
    expect([...urls].sort()).toEqual([...web.reachable()].sort());
    // every page reached a web server once, whichever bunny fetched it
    const pageRequests = web.requestLog.filter((r) => r.path !== '/robots.txt');
    expect(pageRequests).toHaveLength(urls.length);
    // more than one bunny did the work (each names its crawler id in pages.jsonl)
    expect(new Set(serverPages().map((r) => r.crawler)).size).toBeGreaterThan(1);
    // Request starts to one host at least --delay apart, across all bunnies. The store
    // spaces the leases by the gap, and a bunny starts a request at most a quarter of the
    // gap after its lease (else it gives the lease back), so the starts the bunnies record
    // (fetchedAt) are at least 75 ms apart (2 ms of slack for the clock's rounding).
    // The arrival times at the web server add the operating system's scheduling of the
    // bunny's socket writes, which a busy machine stretches without bound, so the gap is
    // checked where the bunny starts the request.
    for (const host of ['127.0.0.2', '127.0.0.3']) {
      const starts = serverPages()
        .filter((r) => r.fetchedAt !== null && new URL(r.url).hostname === host)
        .map((r) => Date.parse(r.fetchedAt as string))
        .sort((a, b) => a - b);
      for (let i = 1; i < starts.length; i++) {
        expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(73);
      }
      // The web server sees the same requests, once each: no host got more of them than it has pages.
      const arrivals = web.requestLog.filter((r) => r.host === host && r.path !== '/robots.txt');
      expect(arrivals).toHaveLength(starts.length);
    }
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
  });

  it('kill -9 of a bunny mid-crawl: its URLs come back, and another bunny completes the crawl', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 60,
      minLinks: 3,
      maxLinks: 6,
    });
    const { port } = await server(
      web.sites.map((x) => `${x.origin}/`),
      0,
      ['--delay', '0', '--delay-factor', '0', '--per-host', '4'],
    );
    // The web answers 30 requests, then holds the rest: the bunny is mid-crawl, whatever the machine's speed.
    web.holdAfter(30);
    const doomed = bunny('doomed', port, ['--concurrency', '8']);
    while (web.requestLog.length < 35) await new Promise((r) => setTimeout(r, 20));
    doomed.child.kill('SIGKILL');
    await doomed.exit();
    web.release();
    const after = bunny('after', port, ['--concurrency', '8']);
    expect(await after.exit()).toBe(0);
    expect([...new Set(fetchedUrls())].sort()).toEqual([...web.reachable()].sort());
  });

  it('kill -9 of the server, then a restart on the same data: the bunnies reconnect and nothing is lost', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 60,
      minLinks: 3,
      maxLinks: 6,
    });
    const seeds = web.sites.map((x) => `${x.origin}/`);
    const opts = ['--delay', '0', '--delay-factor', '0', '--per-host', '4'];
    const first = await server(seeds, 0, opts);
    const port = first.port;
    web.holdAfter(40);
    const bunnies = [bunny('b1', port, ['--concurrency', '4']), bunny('b2', port, ['--concurrency', '4'])];
    while (web.requestLog.length < 45) await new Promise((r) => setTimeout(r, 20));
    first.child.kill('SIGKILL');
    await first.exit();
    web.release();
    const second = await server(seeds, port, opts);
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0]);
    expect([...new Set(fetchedUrls())].sort()).toEqual([...web.reachable()].sort());
    second.child.kill('SIGTERM');
    await second.exit();
  });

  it('loadmod into a running crawl: the site hook runs on sites first visited after it, the page hook on pages after it', async () => {
    const a = await serve('127.0.0.2', routes({ '/': page('a', ['/1']), '/1': page('a1') }));
    const b = await serve('127.0.0.3', routes({ '/': page('b', ['/1']), '/1': page('b1') }));
    sites.push(a, b);
    const modules = join(dir, 'modules');
    mkdirSync(modules);
    writeFileSync(
      join(modules, 'tagger.mjs'),
      `export default {
        name: 'tagger',
        onSite(site, ctx) { ctx.emit({ site: site.origin }); return { tagged: true }; },
        onPage(page) { return { tagged: true }; },
      };\n`,
    );
    const s = await server([`${a.origin}/`], 0, ['--delay', '0', '--scope', 'any', '--modules', modules]);
    const port = s.port;
    expect(await bunny('first', port).exit()).toBe(0);
    const loaded = run(['loadmod', 'tagger', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'server')]);
    expect(await loaded.exit()).toBe(0);
    expect(loaded.stdout()).toMatch(/module tagger loaded \(hooks: page, site\)/);
    const second = run([
      'bunny',
      `${b.origin}/`,
      '--server',
      `127.0.0.1:${port}`,
      '--data',
      join(dir, 'second'),
      '--quiet',
    ]);
    expect(await second.exit()).toBe(0);
    const tagged = serverPages().filter((r) => (r as unknown as Record<string, unknown>).tagged === true);
    expect(tagged.map((r) => r.url).sort()).toEqual([`${b.origin}/`, `${b.origin}/1`]);
    const emitted = readFileSync(join(dir, 'server', 'data', 'tagger.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(emitted.map((l) => JSON.parse(l))).toEqual([{ site: b.origin }]);
    const show = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await show.exit()).toBe(0);
    expect(show.stdout()).toContain('"tagger":{"tagged":true}');
    const quit = run(['quit', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'server')]);
    expect(await quit.exit()).toBe(0);
    expect(await s.exit()).toBe(0);
    expect(existsSync(join(dir, 'server', 'cobweb.log'))).toBe(true);
  });

  it('a resumed server retries failures with --retry-failed and queues what its changed rules no longer refuse', async () => {
    let broken = true;
    const a = await serve(
      '127.0.0.2',
      routes({
        '/': page('a', ['/flaky', '/1']),
        '/1': page('1', ['/1/2']),
        '/1/2': page('2'),
        '/flaky': (_req, res) => {
          // broken: the connection is dropped, a failure with no response
          if (broken) res.socket?.destroy();
          else res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>');
        },
      }),
    );
    sites.push(a);
    const asked = (path: string) => a.log.filter((r) => r.path === path).length;
    const opts = ['--delay', '0', '--delay-factor', '0', '--retries', '0'];
    const first = await server([`${a.origin}/`], 0, [...opts, '--max-depth', '1']);
    expect(await bunny('b1', first.port).exit()).toBe(0);
    first.child.kill('SIGTERM');
    expect(await first.exit()).toBe(143);
    expect([asked('/'), asked('/flaky'), asked('/1'), asked('/1/2')]).toEqual([1, 1, 1, 0]);
    broken = false;
    // Without --max-depth now, and with --retry-failed.
    const second = await server([`${a.origin}/`], 0, [...opts, '--retry-failed']);
    expect(await bunny('b2', second.port).exit()).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(143);
    expect([asked('/'), asked('/flaky'), asked('/1'), asked('/1/2')]).toEqual([1, 2, 1, 1]);
  });

  it('QUIT without the token is refused, and the server stays up', async () => {
    const s = await server([], 0);
    const port = s.port;
    const quit = run(['quit', '--server', `127.0.0.1:${port}`]);
    expect(await quit.exit()).toBe(2);
    expect(quit.stderr()).toMatch(/the server refused quit: QUIT needs the token/);
    const show = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await show.exit()).toBe(0);
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
    // --quiet: nothing but the line saying it stops.
    expect(s.stderr()).toBe('cobweb: stopping: the bunnies are told, their leases go back to the queue\n');
  });
});
