import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { type CliProcess, cobweb, freePort } from '../helpers/cli-process.js';
import { fetchCounts, readPages } from '../helpers/pages.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';

/**
 * `cobweb bunny --store postgres://...` as a user runs it: bunny processes straight on a
 * PostgreSQL that the test starts, no cobweb server, on test webs on 127.0.0.x. Fetches
 * are counted at the web servers themselves.
 */

const postgres = postgresPerTest('cobweb bunny on PostgreSQL');
let dir = '';
let web: RunningWeb | null = null;
const processes: CliProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-pg-bunnies-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await web?.close();
  web = null;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const p = cobweb(args, env);
  processes.push(p);
  return p;
}

function bunny(name: string, seeds: string[], extra: string[] = []): CliProcess {
  return run(['bunny', ...seeds, '--store', postgres.db, '--data', join(dir, name), '--quiet', ...extra]);
}

/** Page requests (not robots.txt) the web got, per path. */
function pageRequests(w: RunningWeb): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of w.requestLog) {
    if (r.path === '/robots.txt') continue;
    const key = `${r.host}${r.path}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

const reachableKeys = (w: RunningWeb) =>
  w.reachable().map((u) => `${new URL(u).hostname}${new URL(u).pathname}`);

// Several processes start (each loads its module threads): slow on a busy machine.
describe('bunnies straight on PostgreSQL', { timeout: 180_000 }, () => {
  it('four bunnies fetch every page once, and the per-host gap holds across them at the web server', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 12,
      minLinks: 3,
      maxLinks: 6,
    });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const delay = 200;
    const opts = ['--delay', String(delay), '--delay-factor', '0', '--per-host', '1', '--concurrency', '4'];
    const bunnies = ['b1', 'b2', 'b3', 'b4'].map((n) => bunny(n, seeds, opts));
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0, 0, 0]);
    const requests = pageRequests(web);
    expect([...requests.keys()].sort()).toEqual(reachableKeys(web).sort());
    expect([...requests.values()].every((n) => n === 1)).toBe(true);
    // More than one bunny did the work: each wrote its own pages.jsonl.
    const fetchedBy = ['b1', 'b2', 'b3', 'b4'].map(
      (n) => fetchCounts(readPages(join(dir, n, 'pages.jsonl'))).size,
    );
    expect(fetchedBy.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(fetchedBy.reduce((a, b) => a + b, 0)).toBe(requests.size);
    // Arrivals of any two requests to one host (robots.txt included), across the four
    // processes, as the web server logged them. The store spaces leases by the gap and a
    // bunny starts its request within a quarter of it (or gives the lease back), so starts
    // are at least 3/4 of the gap apart; 20 ms of slack is for timers and the loopback.
    for (const host of ['127.0.0.2', '127.0.0.3']) {
      const arrivals = web.requestLog
        .filter((r) => r.host === host)
        .map((r) => r.at)
        .sort((a, b) => a - b);
      for (let i = 1; i < arrivals.length; i++) {
        expect((arrivals[i] as number) - (arrivals[i - 1] as number)).toBeGreaterThanOrEqual(
          delay * 0.75 - 20,
        );
      }
    }
  });

  it('kill -9 of a bunny mid-crawl: its URLs come back to the next bunny, and every page is fetched', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 40,
      minLinks: 3,
      maxLinks: 6,
    });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const opts = ['--delay', '0', '--delay-factor', '0', '--per-host', '4', '--concurrency', '8'];
    // The web answers 20 requests, then holds the rest: the bunny is mid-crawl, whatever the machine's speed.
    web.holdAfter(20);
    const doomed = bunny('doomed', seeds, opts);
    while (web.requestLog.length < 21) await new Promise((r) => setTimeout(r, 20));
    doomed.child.kill('SIGKILL');
    await doomed.exit();
    web.release();
    // Its leases (five minutes long) come back at once: its process is gone.
    const after = bunny('after', [], opts);
    expect(await after.exit()).toBe(0);
    expect(after.stderr()).toBe('');
    expect([...pageRequests(web).keys()].sort()).toEqual(reachableKeys(web).sort());
    const done = fetchCounts(readPages(join(dir, 'after', 'pages.jsonl')));
    expect(done.size).toBeGreaterThan(0);
  });

  it('pg_ctl restart mid-crawl: the bunnies reconnect and go on; nothing is lost, nothing fetched twice', async () => {
    web = await startSyntheticWeb({
      hosts: ['127.0.0.2', '127.0.0.3'],
      pagesPerHost: 40,
      minLinks: 3,
      maxLinks: 6,
    });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const opts = ['--delay', '0', '--delay-factor', '0', '--per-host', '2', '--concurrency', '4'];
    web.holdAfter(30);
    const bunnies = [bunny('b1', seeds, opts), bunny('b2', seeds, opts)];
    while (web.requestLog.length < 31) await new Promise((r) => setTimeout(r, 20));
    // Every connection is cut while fetches are held, and the fetches end while the
    // server is going down and coming up: their completions meet a server that is away.
    const restarted = postgres.cluster.restart();
    await new Promise((r) => setTimeout(r, 50));
    web.release();
    await restarted;
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0]);
    const requests = pageRequests(web);
    expect([...requests.keys()].sort()).toEqual(reachableKeys(web).sort());
    expect([...requests.values()].every((n) => n === 1)).toBe(true);
  });

  it('two crawls (--crawl) in one database do not see each other: each fetches the same web once', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 15, minLinks: 2, maxLinks: 5 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const opts = ['--delay', '0', '--delay-factor', '0', '--per-host', '2'];
    const a = bunny('a', seeds, [...opts, '--crawl', 'first']);
    const b = bunny('b', seeds, [...opts, '--crawl', 'second']);
    expect(await Promise.all([a.exit(), b.exit()])).toEqual([0, 0]);
    const requests = pageRequests(web);
    expect([...requests.keys()].sort()).toEqual(reachableKeys(web).sort());
    // once for each crawl: neither took the other's URLs as seen
    expect([...requests.values()].every((n) => n === 2)).toBe(true);
    for (const name of ['a', 'b']) {
      const fetched = fetchCounts(readPages(join(dir, name, 'pages.jsonl')));
      expect([...fetched.values()].every((n) => n === 1)).toBe(true);
      expect(fetched.size).toBe(requests.size);
    }
  });

  it('--http gives a bunny on PostgreSQL its own console: /metrics times its leases, and Stop hands its URLs back to the next bunny', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 12, minLinks: 2, maxLinks: 4 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const port = await freePort();
    const slow = ['--delay', '1000', '--delay-factor', '0'];
    const first = run(
      [
        'bunny',
        ...seeds,
        '--store',
        postgres.db,
        '--data',
        join(dir, 'b1'),
        ...slow,
        '--http',
        `127.0.0.1:${port}`,
      ],
      { COBWEB_TOKEN: '' },
    );
    await first.line(/console on http:\/\/127\.0\.0\.1:\d+\//);
    await first.line(/fetched/, 60_000);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const leases =
      /cobweb_store_operation_duration_seconds_count\{[^}]*operation="lease(?:_wait)?"[^}]*\}\s+(\d+)/.exec(
        metrics,
      );
    expect(Number(leases?.[1])).toBeGreaterThan(0);
    const token = readFileSync(join(dir, 'b1', 'token'), 'utf8').trim();
    const stopped = await fetch(`http://127.0.0.1:${port}/api/stop`, {
      method: 'POST',
      headers: { 'x-cobweb-token': token },
    });
    expect(stopped.status).toBe(200);
    expect(await first.exit()).toBe(0);
    expect(first.stderr()).toMatch(/stopped from the console/);
    const second = bunny('b2', [], ['--delay', '0']);
    expect(await second.exit()).toBe(0);
    const requests = pageRequests(web);
    expect([...requests.keys()].sort()).toEqual(reachableKeys(web).sort());
    expect([...requests.values()].every((n) => n === 1)).toBe(true);
  });

  it('cobweb crawl --store crawls on PostgreSQL; a bunny that joins the crawl after it finds it over', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 10, minLinks: 2, maxLinks: 4 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const crawl = run([
      'crawl',
      ...seeds,
      '--store',
      postgres.db,
      '--crawl',
      'solo',
      '--data',
      join(dir, 'crawl'),
      '--delay',
      '0',
      '--quiet',
    ]);
    expect(await crawl.exit()).toBe(0);
    const fetched = fetchCounts(readPages(join(dir, 'crawl', 'pages.jsonl')));
    expect([...fetched.keys()].sort()).toEqual([...web.reachable()].sort());
    // no seeds: it takes the crawl's settings and seeds from the database
    const late = run(['bunny', '--crawl', 'solo', '--data', join(dir, 'late')], {
      COBWEB_STORE: postgres.db,
    });
    expect(await late.exit()).toBe(0);
    expect(late.stderr()).toMatch(/joining the crawl "solo"/);
    expect(late.stderr()).toMatch(/the crawl is over \(finished\): 0 fetched/);
    expect(pageRequests(web).size).toBe(fetched.size);
  });

  it('cobweb server --store keeps its crawl in PostgreSQL; its bunnies crawl through it', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 10, minLinks: 2, maxLinks: 4 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const server = run([
      'server',
      ...seeds,
      '--store',
      postgres.db,
      '--data',
      join(dir, 'server'),
      '--listen',
      '127.0.0.1:0',
      '--delay',
      '0',
      '--quiet',
    ]);
    const port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
    const b = run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'b'), '--quiet']);
    expect(await b.exit()).toBe(0);
    const fetched = fetchCounts(readPages(join(dir, 'server', 'pages.jsonl')));
    expect([...fetched.keys()].sort()).toEqual([...web.reachable()].sort());
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
  });

  it('cobweb server --store --crawl NAME: each crawl is its row in the database, its outputs in crawls/NAME', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 10, minLinks: 2, maxLinks: 4 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const server = run([
      'server',
      ...seeds,
      '--store',
      postgres.db,
      '--crawl',
      'shop',
      '--data',
      join(dir, 'server'),
      '--listen',
      '127.0.0.1:0',
      '--scope',
      'host',
      '--delay',
      '0',
      '--quiet',
    ]);
    const port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
    const outputs = (crawl: string) =>
      fetchCounts(readPages(join(dir, 'server', 'crawls', crawl, 'pages.jsonl')));
    // No --crawl: the bunny works on the server's own crawl.
    const b = run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'b'), '--quiet']);
    expect(await b.exit()).toBe(0);
    expect([...outputs('shop').keys()].sort()).toEqual([...web.reachable()].sort());
    // A crawl a bunny names is another row: nothing of shop's is seen there.
    const c = run([
      'bunny',
      ...seeds,
      '--server',
      `127.0.0.1:${port}`,
      '--crawl',
      'again',
      '--data',
      join(dir, 'c'),
      '--quiet',
    ]);
    expect(await c.exit()).toBe(0);
    expect(outputs('again').size).toBe(web.reachable().length);
    expect([...pageRequests(web).values()].every((n) => n === 2)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
    // The database holds crawl shop: a bunny straight on it, joining shop, finds it over.
    const late = run(['bunny', '--crawl', 'shop', '--store', postgres.db, '--data', join(dir, 'late')]);
    expect(await late.exit()).toBe(0);
    expect(late.stderr()).toMatch(/joining the crawl "shop"/);
    expect(late.stderr()).toMatch(/the crawl is over \(finished\): 0 fetched/);
    expect([...pageRequests(web).values()].every((n) => n === 2)).toBe(true);
  });

  it("a bunny with --server refuses the crawl's own options, which are the server's", async () => {
    const b = run(['bunny', '--server', '127.0.0.1:1', '--delay', '5', '--data', join(dir, 'b')]);
    expect(await b.exit()).toBe(2);
    expect(b.stderr()).toMatch(/--delay is the crawl's to set: give it to cobweb server/);
  });

  it('a bad password or a missing database: one line, exit code 2, nothing crawled', async () => {
    const u = new URL(postgres.db);
    const badPassword = `postgres://${u.username}:wrong@${u.host}${u.pathname}`;
    const missing = `postgres://${u.username}:${u.password}@${u.host}/no_such_database`;
    const crawl = run([
      'crawl',
      'http://127.0.0.2/',
      '--store',
      badPassword,
      '--data',
      join(dir, 'c'),
      '--quiet',
    ]);
    expect(await crawl.exit()).toBe(2);
    expect(crawl.stderr()).toMatch(
      /^cobweb: PostgreSQL refused the password for postgres:\/\/cobweb:\*\*\*@/,
    );
    expect(crawl.stderr().trim().split('\n')).toHaveLength(1);
    expect(crawl.stderr()).not.toContain('wrong');
    expect(existsSync(join(dir, 'c'))).toBe(false);
    const joined = run(['bunny', '--data', join(dir, 'b'), '--quiet'], { COBWEB_STORE: missing });
    expect(await joined.exit()).toBe(2);
    expect(joined.stderr()).toMatch(/^cobweb: the database in .* does not exist: create it first/);
    expect(joined.stderr().trim().split('\n')).toHaveLength(1);
  });
});
