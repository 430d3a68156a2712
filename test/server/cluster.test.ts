import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { encode } from '../../src/protocol/index.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { flaky, page, routes, serve, type TestServer } from '../helpers/http.js';
import { readAllLines, readPages } from '../helpers/pages.js';
import { parseMetrics } from '../helpers/prometheus.js';
import { RawClient } from '../helpers/raw-socket.js';

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

/** Waits (a bounded number of `show` calls) until the server's book of sites counts `pages()` URLs in all. */
async function untilBookCounts(port: number, pages: () => number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const show = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await show.exit()).toBe(0);
    const counted = [...show.stdout().matchAll(/ {2}(\d+) URLs {2}hosts:/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    if (counted === pages()) return;
    if (attempt >= 40) throw new Error(`the book counts ${counted} URLs, pages.jsonl has ${pages()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const serverPages = () => readPages(join(dir, 'server', 'pages.jsonl'));
const fetchedUrls = () =>
  serverPages()
    .filter((r) => r.status !== null)
    .map((r) => r.url);

// Several processes start (each loads its module threads): slow on a busy machine.
describe('a server with bunnies', { timeout: 180_000 }, () => {
  it('three bunnies fetch every page once, and the per-host gap holds across them at the web server', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 16,
      minLinks: 3,
      maxLinks: 6,
    });
    // Long enough that the quarter of it a bunny may start late is well above the
    // scheduling noise of a busy machine.
    const delay = 300;
    const s = await server(
      web.sites.map((x) => `${x.origin}/`),
      0,
      ['--delay', String(delay), '--delay-factor', '0', '--per-host', '2'],
    );
    const bunnies = ['b1', 'b2', 'b3'].map((n) => bunny(n, s.port, ['--concurrency', '4']));
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0, 0]);
    const urls = fetchedUrls();
    expect([...urls].sort()).toEqual([...web.reachable()].sort());
    // every page reached a web server once, whichever bunny fetched it
    const pageRequests = web.requestLog.filter((r) => r.path !== '/robots.txt');
    expect(pageRequests).toHaveLength(urls.length);
    // more than one bunny did the work (each names its crawler id in pages.jsonl)...
    const crawlers = new Set(serverPages().map((r) => r.crawler));
    expect(crawlers.size).toBeGreaterThan(1);
    // ...and each keeps its WARC files in its own --data, named with its crawler id
    const warcIds = ['b1', 'b2', 'b3'].flatMap((n) =>
      readdirSync(join(dir, n, 'warc')).map((f) => {
        const m = /^cobweb-c(\d+)-\d+-\d{5}-\d+\.warc\.gz$/.exec(f);
        if (m === null) throw new Error(`${n}/warc/${f} is not named with a crawler id`);
        return Number(m[1]);
      }),
    );
    for (const id of crawlers) expect(warcIds).toContain(id);
    // Requests to one host, robots.txt included, as the web server saw them arrive: at
    // least --delay apart. A bunny starts a request by its lease's startBy (else it gives
    // the lease back), and the store hands the host's next lease out no sooner than the
    // gap after that; less a little for timers and the network between the bunny's start
    // and the server's log.
    const SLACK_MS = 15;
    for (const host of ['127.0.0.2', '127.0.0.3']) {
      const arrivals = web.requestLog
        .filter((r) => r.host === host)
        .map((r) => r.at)
        .sort((a, b) => a - b);
      expect(arrivals.length).toBeGreaterThan(10);
      const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(delay - SLACK_MS);
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
    // The web answers 30 requests, then holds the rest: once one is held the bunny is mid-crawl, whatever the machine's speed.
    web.holdAfter(30);
    const doomed = bunny('doomed', port, ['--concurrency', '8']);
    while (web.requestLog.length < 31) await new Promise((r) => setTimeout(r, 20));
    doomed.child.kill('SIGKILL');
    await doomed.exit();
    web.release();
    const after = bunny('after', port, ['--concurrency', '8']);
    expect(await after.exit()).toBe(0);
    expect([...new Set(fetchedUrls())].sort()).toEqual([...web.reachable()].sort());
  });

  it.each([
    { how: '--per-host 3', flags: ['--per-host', '3'], config: null },
    { how: 'a host section of perHost 3 (--per-host 1)', flags: ['--per-host', '1'], config: 'perHost: 3' },
  ])(
    "the server's $how reaches its bunnies: a bunny fetches that many of the host's pages at once",
    async ({ flags, config }) => {
      web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 40, minLinks: 6, maxLinks: 8 });
      const extra = ['--delay', '0', '--delay-factor', '0', ...flags];
      if (config !== null) {
        const file = join(dir, 'crawl.yaml');
        writeFileSync(file, `hosts:\n  "127.0.0.2":\n    ${config}\n`);
        extra.push('--config', file);
      }
      const { port } = await server([`${web.sites[0]?.origin}/`], 0, extra);
      // robots.txt and the seed are answered; every page after them is held, in flight.
      web.holdAfter(2);
      const b = bunny('b', port, ['--concurrency', '8']);
      for (let turn = 0; turn < 300 && web.requestLog.length < 5; turn++)
        await new Promise((r) => setTimeout(r, 100));
      expect(web.requestLog.length - 2).toBe(3);
      b.child.kill('SIGKILL');
      await b.exit();
      web.release();
    },
  );

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
    while (web.requestLog.length < 41) await new Promise((r) => setTimeout(r, 20));
    // The book writes its visit counts once a second (a kill -9 loses at most the last
    // second's): the kill comes once they cover every page written so far.
    await untilBookCounts(port, () => fetchedUrls().length);
    first.child.kill('SIGKILL');
    await first.exit();
    web.release();
    const second = await server(seeds, port, opts);
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0]);
    expect([...new Set(fetchedUrls())].sort()).toEqual([...web.reachable()].sort());
    // The book of sites lived through the kill too: `show` counts every page pages.jsonl
    // has, those fetched before the kill with them.
    const show = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await show.exit()).toBe(0);
    expect(show.stdout()).toMatch(/^sites: 2\n/);
    for (const site of web.sites) {
      const fetched = fetchedUrls().filter((u) => u.startsWith(`${site.origin}/`)).length;
      expect(show.stdout()).toContain(
        `${site.origin} ${site.host}:${new URL(site.origin).port}  ${fetched} URLs`,
      );
    }
    second.child.kill('SIGTERM');
    await second.exit();
  });

  it("loadmod while a bunny crawls (it started with no modules): the page hook runs on pages fetched after, the site hook on sites first visited after, and the server counts the bunnies' calls", async () => {
    // b is only linked from a's /2, which the web holds back until the module is in.
    const b = await serve(
      '127.0.0.3',
      routes({ '/': page('b', ['/1']), '/1': page('b1'), '/3': page('b3') }),
    );
    let answer2: () => void = () => {};
    const held = new Promise<void>((r) => {
      answer2 = r;
    });
    const a = await serve(
      '127.0.0.2',
      routes({
        '/': page('a', ['/1', '/2']),
        '/1': page('a1'),
        '/2': (_req, res) => {
          void held.then(() =>
            res.writeHead(200, { 'content-type': 'text/html' }).end(page('a2', [`${b.origin}/`])),
          );
        },
      }),
    );
    sites.push(a, b);
    const modules = join(dir, 'modules');
    mkdirSync(modules);
    // NAME.js, not NAME.mjs: loadmod takes either
    writeFileSync(
      join(modules, 'tagger.js'),
      `export default {
        name: 'tagger',
        onSite(site, ctx) { ctx.emit({ site: site.origin }); return { tagged: true }; },
        onPage(page, ctx) { ctx.emit({ page: page.url }); return { tagged: true }; },
      };\n`,
    );
    const s = await server([`${a.origin}/`], 0, [
      '--delay',
      '0',
      '--scope',
      'any',
      '--modules',
      modules,
      '--no-builtin-modules',
      '--http',
      '127.0.0.1:0',
      '--json',
    ]);
    const [, consoleUrl] = (await s.line(/console on (http:\/\/\S+\/)/)) as RegExpMatchArray;
    const at = `127.0.0.1:${s.port}`;
    const token = ['--server', at, '--data', join(dir, 'server')];
    // not --quiet: it says when a module from the server is loaded
    const crawling = run([
      'bunny',
      '--server',
      at,
      '--data',
      join(dir, 'b1'),
      '--no-builtin-modules',
      '--allow-private', // b, on 127.0.0.3, is no seed
    ]);
    const pageLines = () => (existsSync(join(dir, 'server', 'pages.jsonl')) ? serverPages() : []);
    for (let i = 0; i < 2400 && !(a.log.some((r) => r.path === '/2') && pageLines().length >= 2); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(
      pageLines()
        .map((r) => r.url)
        .sort(),
    ).toEqual([`${a.origin}/`, `${a.origin}/1`]);
    const loaded = run(['loadmod', 'tagger', ...token]);
    expect(await loaded.exit()).toBe(0);
    expect(loaded.stdout()).toMatch(
      /module tagger loaded \(hooks: page, site\); its selfTest passed; sent to 1 bunny/,
    );
    await crawling.line(/module tagger loaded from the server/);
    answer2();
    expect(await crawling.exit()).toBe(0);
    expect(crawling.child.exitCode).toBe(0);

    const tagged = (url: string) =>
      (serverPages().find((r) => r.url === url) as unknown as Record<string, unknown> | undefined)?.tagged;
    expect([`${a.origin}/`, `${a.origin}/1`].map(tagged)).toEqual([undefined, undefined]);
    expect([`${a.origin}/2`, `${b.origin}/`, `${b.origin}/1`].map(tagged)).toEqual([true, true, true]);
    // the records the bunny's page hook emitted reach the server's data/tagger.jsonl,
    // beside the server's site hook's, which ran for b alone
    const emitted = () =>
      readFileSync(join(dir, 'server', 'data', 'tagger.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, string>);
    expect(emitted().filter((e) => 'site' in e)).toEqual([{ site: b.origin }]);
    expect(
      emitted()
        .filter((e) => 'page' in e)
        .map((e) => e.page)
        .sort(),
    ).toEqual([`${a.origin}/2`, `${b.origin}/`, `${b.origin}/1`]);

    // a bunny that connects after loadmod gets the module at once
    const later = run(['bunny', `${b.origin}/3`, '--server', at, '--data', join(dir, 'b2'), '--quiet']);
    expect(await later.exit()).toBe(0);
    expect(tagged(`${b.origin}/3`)).toBe(true);

    // the control commands as a user types them
    const modstat = run(['modstat', '--server', at]);
    expect(await modstat.exit()).toBe(0);
    // the site hook's call on the server, and the page hook's four in the two bunnies;
    // the later bunny ran the built-ins on its one page
    expect(modstat.stdout()).toMatch(
      /^modules: 3\n {2}tagger: 5 calls, 0 errors, 0 timeouts, 0 pages skipped, .*\n {2}forms: 1 call, .*\n {2}meta: 1 call, /,
    );
    const metrics = parseMetrics(await (await fetch(`${consoleUrl}metrics`)).text());
    expect(metrics.get('cobweb_module_calls_total')?.metrics).toContainEqual(
      expect.objectContaining({ labels: { module: 'tagger' }, value: '5' }),
    );
    const status = (await (await fetch(`${consoleUrl}status`)).json()) as {
      modules: { name: string; calls: number }[];
    };
    expect(status.modules).toContainEqual(expect.objectContaining({ name: 'tagger', calls: 5 }));
    const show = run(['show', '--server', at, '--limit', '1']);
    expect(await show.exit()).toBe(0);
    expect(show.stdout()).toMatch(
      /^sites: 2\n {2}http:\/\/127\.0\.0\.\d:\d+ .*\n {4}directories: \/\n( {4}modules: .*\n)? {2}\.\.\. and 1 more\nqueue: /,
    );
    const log = run(['log', 'again.log', ...token]);
    expect(await log.exit()).toBe(0);
    expect(log.stdout()).toBe(
      "cobweb: wrote 2 sites (one JSON line each) to again.log in the server's data folder\n",
    );
    const logged = readFileSync(join(dir, 'server', 'again.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(logged.find((l) => l.origin === b.origin)).toMatchObject({
      count: 3,
      info: { tagger: { tagged: true } },
    });
    expect(logged.find((l) => l.origin === a.origin)).toMatchObject({ count: 3, info: {} });
    const read = run(['read', 'again.log', ...token]);
    expect(await read.exit()).toBe(0);
    expect(read.stdout()).toBe(
      'cobweb: read again.log: its sites count as visited; the server now knows 2 sites\n',
    );
    const quit = run(['quit', ...token]);
    expect(await quit.exit()).toBe(0);
    expect(await s.exit()).toBe(0);
    const summary = JSON.parse(s.stdout().trim().split('\n').pop() ?? '') as { modules: unknown[] };
    expect(summary.modules).toContainEqual(expect.objectContaining({ name: 'tagger', calls: 5, skipped: 0 }));
    expect(readFileSync(join(dir, 'server', 'cobweb.log'), 'utf8')).toBe(
      readFileSync(join(dir, 'server', 'again.log'), 'utf8'),
    );
  });

  it('--wait: a bunny stays for URLs added after the crawl was over; the links it finds take --skip-substring', async () => {
    const a = await serve('127.0.0.2', routes({ '/': page('a', ['/ok', '/cgi-bin/x']), '/ok': page('ok') }));
    const b = await serve('127.0.0.3', routes({ '/': page('b') }));
    sites.push(a, b);
    const s = await server([`${a.origin}/`], 0, [
      '--delay',
      '0',
      '--scope',
      'any',
      '--skip-substring',
      'cgi-bin',
    ]);
    const waiting = bunny('waiting', s.port, ['--wait', '--allow-private']);
    const fetched = (w: TestServer, path: string) => w.log.some((r) => r.path === path);
    for (let i = 0; i < 600 && !fetched(a, '/ok'); i++) await new Promise((r) => setTimeout(r, 50));
    // the crawl of a is over; the bunny, told to wait, is still there
    const stats = await RawClient.connect(s.port);
    stats.send(
      encode({ type: 'ENQUEUE', target: { addr: '0.0.0.0', port: b.port, host: b.address, path: '/' } }),
    );
    stats.send(encode({ type: 'DEQUEUE' })); // answered once the ENQUEUE before it is stored
    await stats.read(2);
    stats.close();
    for (let i = 0; i < 600 && !fetched(b, '/'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fetched(b, '/')).toBe(true);
    expect(waiting.child.exitCode).toBeNull();
    waiting.child.kill('SIGTERM');
    expect(await waiting.exit()).toBe(143);
    // the bunny refused the link itself: it never reached the web, and is recorded once
    expect(a.log.map((r) => r.path)).not.toContain('/cgi-bin/x');
    expect(readAllLines(join(dir, 'server')).filter((r) => r.url === `${a.origin}/cgi-bin/x`)).toEqual([
      expect.objectContaining({ error: 'filtered', detail: 'substring' }),
    ]);
    s.child.kill('SIGTERM');
    await s.exit();
  });

  it('a resumed server retries failures with --retry-failed and queues what its changed rules no longer refuse', async () => {
    const flakyPage = flaky();
    const a = await serve(
      '127.0.0.2',
      routes({
        '/': page('a', ['/flaky', '/1']),
        '/1': page('1', ['/1/2']),
        '/1/2': page('2'),
        '/flaky': flakyPage.route,
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
    flakyPage.mend();
    // Without --max-depth now, and with --retry-failed.
    const second = await server([`${a.origin}/`], 0, [...opts, '--retry-failed']);
    expect(await bunny('b2', second.port).exit()).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(143);
    expect([asked('/'), asked('/flaky'), asked('/1'), asked('/1/2')]).toEqual([1, 2, 1, 1]);
  });

  it('QUIT and log without the token are refused in command-line words, loadmod without --modules on stderr, and the server stays up', async () => {
    const s = await server([], 0);
    const port = s.port;
    const quit = run(['quit', '--server', `127.0.0.1:${port}`]);
    expect(await quit.exit()).toBe(2);
    expect(quit.stderr()).toBe(
      "cobweb: cobweb quit needs the server's token: pass --token TOKEN, set COBWEB_TOKEN, or give --data the server's folder (its token file); the server printed the token when it first started\n",
    );
    const log = run(['log', 'sites.log', '--server', `127.0.0.1:${port}`]);
    expect(await log.exit()).toBe(2);
    expect(log.stderr()).toMatch(/^cobweb: cobweb log needs the server's token: pass --token TOKEN, /);
    const loadmod = run(['loadmod', 'x', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'server')]);
    expect(await loadmod.exit()).toBe(1);
    expect(loadmod.stdout()).toBe('');
    expect(loadmod.stderr()).toBe('cobweb: no module loaded: the server was started without --modules DIR\n');
    const show = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await show.exit()).toBe(0);
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
    // --quiet: nothing but the line saying it stops.
    expect(s.stderr()).toBe('cobweb: stopping: the bunnies are told, their leases go back to the queue\n');
  });
});

/**
 * --lease-time: how long a URL handed to a bunny stays its own without word from it. A
 * server given a short one tells its bunnies in WELCOME; a bunny whose fetch outlasts it
 * keeps its URL by EXTEND at half the time, so a second bunny never gets the URL while
 * the first still fetches it.
 */
describe('--lease-time', { timeout: 120_000 }, () => {
  it('a fetch longer than the lease keeps its URL: the page is fetched once, by one bunny of two', async () => {
    const SLOW_MS = 3000;
    const site = await serve(
      '127.0.0.2',
      routes({
        '/': page('home', ['/slow', '/a', '/b']),
        '/slow': (_req, res) => {
          setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page('slow')), SLOW_MS);
        },
        '/a': page('a'),
        '/b': page('b'),
      }),
    );
    sites.push(site);
    const s = await server([`${site.origin}/`], 0, ['--lease-time', '1s', '--delay', '0', '--per-host', '4']);
    const bunnies = ['b1', 'b2'].map((name) => bunny(name, s.port, ['--wait']));

    // Until the four pages are written: the slow one some lease times after its fetch began.
    const written = () => serverPages().filter((r) => r.status !== null);
    for (let turn = 0; turn < 300 && written().length < 4; turn++)
      await new Promise((r) => setTimeout(r, 100));
    for (const b of bunnies) b.child.kill('SIGTERM');
    await Promise.all(bunnies.map((b) => b.exit()));
    s.child.kill('SIGTERM');
    await s.exit();

    const requested = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
    expect(requested.sort()).toEqual(['/', '/a', '/b', '/slow']);
    expect(
      written()
        .filter((r) => r.url === `${site.origin}/slow`)
        .map((r) => r.status),
    ).toEqual([200]);
  });

  it("is the crawl's to set: a bunny of a server refuses it", async () => {
    const b = bunny('b', 9, ['--lease-time', '1s']);
    expect(await b.exit()).toBe(2);
    expect(b.stderr()).toMatch(/--lease-time is the crawl's to set/);
  });
});
