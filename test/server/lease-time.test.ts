import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

/**
 * --lease-time: how long a URL handed to a bunny stays its own without word from it. A
 * server given a short one tells its bunnies in WELCOME; a bunny whose fetch outlasts it
 * keeps its URL by EXTEND at half the time, so a second bunny never gets the URL while
 * the first still fetches it. Fetches are counted at the web server.
 */

let dir: string;
const sites: TestServer[] = [];
const processes: CliProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-lease-time-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const s of sites.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): CliProcess {
  const p = cobweb(args);
  processes.push(p);
  return p;
}

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
    const server = run([
      'server',
      `${site.origin}/`,
      '--data',
      join(dir, 'server'),
      '--listen',
      '127.0.0.1:0',
      '--lease-time',
      '1s',
      '--delay',
      '0',
      '--per-host',
      '4',
      '--quiet',
    ]);
    const port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
    const bunnies = ['b1', 'b2'].map((name) =>
      run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, name), '--quiet', '--wait']),
    );

    // Until the slow page is written, and a few lease times after its fetch began.
    const written = () => readPages(join(dir, 'server', 'pages.jsonl')).filter((r) => r.status !== null);
    for (let turn = 0; turn < 300 && written().length < 4; turn++)
      await new Promise((r) => setTimeout(r, 100));
    for (const b of bunnies) b.child.kill('SIGTERM');
    await Promise.all(bunnies.map((b) => b.exit()));
    server.child.kill('SIGTERM');
    await server.exit();

    const requested = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
    expect(requested.sort()).toEqual(['/', '/a', '/b', '/slow']);
    const slow = written().filter((r) => r.url === `${site.origin}/slow`);
    expect(slow.map((r) => r.status)).toEqual([200]);
  });

  it("is the crawl's to set: a bunny of a server refuses it", async () => {
    const bunny = run(['bunny', '--server', '127.0.0.1:9', '--data', join(dir, 'b'), '--lease-time', '1s']);
    expect(await bunny.exit()).toBe(2);
    expect(bunny.stderr()).toMatch(/--lease-time is the crawl's to set/);
  });
});
