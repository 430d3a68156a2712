import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cobweb as cobwebProcess } from '../helpers/cli-process.js';
import { listenOnLoopback, page, routes, serve, type TestServer } from '../helpers/http.js';
import { runNode } from '../helpers/run-node.js';

// The exit codes the README documents, each from the compiled command run as a process.
const BIN = join(import.meta.dirname, '../../bin/cobweb.js');

let dir: string;
let site: TestServer;
let held: Promise<void>;
let release = () => {};
let data = 0;
const nextData = () => join(dir, `run-${++data}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-exit-'));
  held = new Promise((r) => {
    release = r;
  });
  const table: Parameters<typeof routes>[0] = { '/': page('root', ['/a', '/b', '/held']) };
  table['/a'] = page('a');
  table['/b'] = page('b');
  // Answered only when the tests are over: a crawl that reaches it is still running.
  table['/held'] = (_req, res) => void held.then(() => res.writeHead(200).end());
  site = await serve('127.0.0.2', routes(table));
});

afterAll(async () => {
  release();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

/** No gap; /held is given up on after 2 s, so the fetch a signal lets finish ends soon. */
const HELD_ARGS = ['--delay', '0', '--delay-factor', '0', '--first-byte-timeout', '2000'];

const cobweb = (seed: string, ...more: string[]) =>
  runNode([BIN, 'crawl', seed, '--data', nextData(), '--delay', '0', '--delay-factor', '0', ...more]);

describe('exit codes', () => {
  it('0 when the crawl stops at --max-pages', async () => {
    const r = await cobweb(`${site.origin}/`, '--max-pages', '1');
    expect(r.stdout).toMatch(/stopped at --max-pages/);
    expect(r.code).toBe(0);
  });

  it.each([
    ['a path with no file', null, /cannot be imported/],
    ['a syntax error', `export default { name: 'x', onPage( };`, /cannot be imported: /],
    ['no name', `export default { onPage() {} };`, /its default export must be an object with a name/],
    ['no hooks', `export default { name: 'idle' };`, /it has neither an onPage nor an onSite hook/],
    [
      'a failing selfTest',
      `export default { name: 'broken', selfTest() { throw new Error('no dictionary'); }, onPage() {} };`,
      /selfTest failed: no dictionary/,
    ],
  ])('2 for a --module with %s: one line, and the crawl never starts', async (what, source, why) => {
    const module = join(dir, `bad-${what.replace(/\W+/g, '-')}.mjs`);
    if (source !== null) writeFileSync(module, source);
    const data = join(dir, `never-${what.replace(/\W+/g, '-')}`);
    const asked = site.log.length;
    const r = await runNode([BIN, 'crawl', `${site.origin}/`, '--data', data, '--module', module]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^cobweb: module ${module} cannot be loaded: .*${why.source}`));
    expect(lines[0]).toMatch(/; fix it, or leave it out$/);
    expect(site.log.length).toBe(asked);
    expect(existsSync(data)).toBe(false);
  });

  it('4 when nothing could be fetched: the seed refused the connection', async () => {
    // A port that was just free: nothing listens on it.
    const probe = await listenOnLoopback(createServer(), '127.0.0.3');
    await probe.close();
    const r = await cobweb(`${probe.origin}/`, '--retries', '0');
    expect(r.stdout).toMatch(/finished: nothing left to fetch/);
    expect(r.stdout).toMatch(/ {4}errors: 1 \(refused 1\)/);
    expect(r.code).toBe(4);
  });

  it('4 when every one of several seeds failed: one refused, one cut off before answering', async () => {
    const closed = await listenOnLoopback(createServer(), '127.0.0.3');
    await closed.close();
    const cut = await listenOnLoopback(
      createServer((socket) => socket.destroy()),
      '127.0.0.5',
    );
    try {
      const out = nextData();
      const r = await runNode([
        BIN,
        'crawl',
        `${closed.origin}/`,
        `${cut.origin}/`,
        '--data',
        out,
        '--retries',
        '0',
      ]);
      expect(r.stdout).toMatch(/finished: nothing left to fetch/);
      expect(r.stdout).toMatch(/ {4}fetched: 0 URLs\n {4}errors: 2 \(/);
      const records = readFileSync(join(out, 'pages.jsonl'), 'utf8').trim().split('\n');
      expect(records.map((l) => (JSON.parse(l) as { status: number | null }).status)).toEqual([null, null]);
      expect(r.code).toBe(4);
    } finally {
      await cut.close();
    }
  });

  it('4 when nothing could be fetched: the seed never answered', async () => {
    const sockets: Socket[] = [];
    const silent = await listenOnLoopback(
      createServer((s) => void sockets.push(s)),
      '127.0.0.4',
    );
    try {
      const r = await cobweb(
        `${silent.origin}/`,
        '--retries',
        '0',
        '--first-byte-timeout',
        '300',
        '--timeout',
        '600',
      );
      expect(r.stdout).toMatch(/ {4}errors: 1 \(timeout 1\)/);
      expect(r.code).toBe(4);
    } finally {
      await silent.close();
    }
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${code} when stopped by ${signal}, after the summary`, async () => {
      const out = nextData();
      const child = spawn(process.execPath, [BIN, 'crawl', `${site.origin}/`, '--data', out, ...HELD_ARGS], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += String(d);
      });
      child.stderr.on('data', (d) => {
        stderr += String(d);
      });
      await untilFetched(out, 3, () => child.exitCode !== null);
      child.kill(signal);
      const [exit] = await once(child, 'exit');
      expect(stderr).toMatch(/cobweb: stopping: finishing the fetches in flight/);
      expect(stdout).toMatch(/cobweb: stopped by signal; /);
      expect(exit).toBe(code);
    });
  }

  it('a second signal quits at once, with its own code, without waiting for the fetch in flight', async () => {
    const out = nextData();
    // /held would keep the first signal's clean stop waiting for 30 s.
    const crawl = cobwebProcess([
      'crawl',
      `${site.origin}/`,
      '--data',
      out,
      '--delay',
      '0',
      '--delay-factor',
      '0',
      '--first-byte-timeout',
      '30000',
    ]);
    await untilFetched(out, 3, () => crawl.child.exitCode !== null);
    crawl.child.kill('SIGINT');
    await crawl.line(/cobweb: stopping: /);
    crawl.child.kill('SIGTERM');
    expect(await crawl.exit()).toBe(143);
    expect(crawl.stdout()).toBe(''); // no summary: it did not wait for the end
    // What was written stays written.
    expect(readFileSync(join(out, 'pages.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('130 with --quiet, and no word on either stream but the stopping line', async () => {
    const out = nextData();
    const child = spawn(
      process.execPath,
      [BIN, 'crawl', `${site.origin}/`, '--data', out, ...HELD_ARGS, '--quiet'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let printed = '';
    child.stdout.on('data', (d) => {
      printed += String(d);
    });
    child.stderr.on('data', (d) => {
      printed += String(d);
    });
    await untilFetched(out, 3, () => child.exitCode !== null);
    child.kill('SIGINT');
    const [exit] = await once(child, 'exit');
    expect(printed).toBe('cobweb: stopping: finishing the fetches in flight (again to quit at once)\n');
    expect(exit).toBe(130);
  });
});

/** Waits (bounded) until pages.jsonl has `n` lines: the crawl is then waiting on /held. */
async function untilFetched(data: string, n: number, ended: () => boolean): Promise<void> {
  const file = join(data, 'pages.jsonl');
  for (let i = 0; i < 2000 && !ended(); i++) {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').length - 1 >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the crawl into ${data} did not get ${n} pages in`);
}
