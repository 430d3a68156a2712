import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import { bloomParameters } from '../../src/seen/bloom.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { fetchCounts, readPages } from '../helpers/pages.js';

/** `cobweb server --seen KIND`, as processes: the server's store holds that seen set, and says so. */

let dir: string;
let web: RunningWeb | null = null;
const processes: CliProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-server-seen-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await web?.close();
  web = null;
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): CliProcess {
  const p = cobweb(args);
  processes.push(p);
  return p;
}

const data = () => join(dir, 'server');

async function serverWith(seen: string[]): Promise<{ server: CliProcess; port: number }> {
  web = await startSyntheticWeb({
    hosts: ['127.0.0.2', '127.0.0.3'],
    pagesPerHost: 30,
    minLinks: 2,
    maxLinks: 5,
  });
  const server = run([
    'server',
    ...web.sites.map((s) => `${s.origin}/`),
    '--data',
    data(),
    '--listen',
    '127.0.0.1:0',
    '--delay',
    '0',
    '--per-host',
    '2',
    '--quiet',
    ...seen,
  ]);
  const port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
  return { server, port };
}

async function crawlWithBunny(port: number): Promise<void> {
  const b = run([
    'bunny',
    '--server',
    `127.0.0.1:${port}`,
    '--data',
    join(dir, 'bunny'),
    '--concurrency',
    '4',
  ]);
  expect(await b.exit()).toBe(0);
}

async function show(port: number): Promise<string> {
  const p = run(['show', '--server', `127.0.0.1:${port}`]);
  expect(await p.exit()).toBe(0);
  return p.stdout();
}

describe('cobweb server --seen', { timeout: 120_000 }, () => {
  it('drum: a bunny fetches every page once, the set keeps its files beside the store, and show says which set it is', async () => {
    const { server, port } = await serverWith(['--seen', 'drum']);
    await crawlWithBunny(port);
    const w = web as RunningWeb;
    const counts = fetchCounts(readPages(join(data(), 'pages.jsonl')));
    expect([...counts.keys()].sort()).toEqual([...w.reachable()].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(w.requestLog.filter((r) => r.path !== '/robots.txt')).toHaveLength(counts.size);
    for (const file of ['seen.drum', 'seen.drum-journal', 'seen.drum-flushed']) {
      expect(existsSync(join(data(), 'frontier.db-seen', file))).toBe(true);
    }
    expect(await show(port)).toContain(`seen set: drum, ${w.reachable().length} URLs`);
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
    const db = new Database(join(data(), 'frontier.db'), { readonly: true });
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'seen'`).pluck().get()).toBe('drum');
    db.close();
  });

  it("bloom: show and STATS report the filter's estimated false-positive rate, sized by --seen-capacity and --seen-fp-rate", async () => {
    const { server, port } = await serverWith([
      '--seen',
      'bloom',
      '--seen-capacity',
      '100',
      '--seen-fp-rate',
      '0.01',
    ]);
    await crawlWithBunny(port);
    const text = await show(port);
    const { bits, hashes } = bloomParameters(100, 0.01);
    const m = new RegExp(
      `seen set: bloom, (\\d+) URLs of its capacity 100 \\(m ${bits} bits, k ${hashes}\\); estimated false-positive rate now (\\S+) \\(target 0\\.01\\)`,
    ).exec(text);
    expect(m, text).not.toBeNull();
    const rate = Number(m?.[2]);
    // 30 to 60 URLs in a filter sized for 100: below the target, well above nothing.
    expect(rate).toBeGreaterThan(1e-5);
    expect(rate).toBeLessThan(0.01);
    const remote = new RemoteFrontier({ host: '127.0.0.1', port, name: 'stats' });
    try {
      const seen = (await remote.stats()).seen;
      expect(seen).toMatchObject({
        kind: 'bloom',
        size: Number(m?.[1]),
        capacity: 100,
        fpRate: 0.01,
        bits,
        hashes,
      });
      expect(seen?.estimatedFpRate).toBeCloseTo(rate, 4);
    } finally {
      await remote.close();
    }
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
  });
});
