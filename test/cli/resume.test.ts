import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { layoutOf, lockDataDir } from '../../src/bunny/data-dir.js';
import { readPages } from '../helpers/pages.js';

// The CLI as a user runs it: the compiled bin (npm test builds first).
const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
const CONCURRENCY = 8;

let web: RunningWeb;
let dir: string;

beforeAll(async () => {
  web = await startSyntheticWeb({
    hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
    pagesPerHost: 150,
    pageBytes: 1500,
  });
  dir = mkdtempSync(join(tmpdir(), 'cobweb-resume-'));
});

afterAll(async () => {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

function startCrawl(): ChildProcess {
  const seeds = web.sites.map((s) => `${s.origin}/`);
  return spawn(
    process.execPath,
    [
      BIN,
      'crawl',
      ...seeds,
      '--data',
      dir,
      '--delay',
      '0',
      '--per-host',
      '2',
      '--concurrency',
      String(CONCURRENCY),
      '--quiet',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

function pagesLines(): number {
  const file = join(dir, 'pages.jsonl');
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').length - 1;
}

/** Waits (bounded) until pages.jsonl has at least `lines` lines or the child exits. */
async function waitForLines(child: ChildProcess, lines: number): Promise<boolean> {
  for (let i = 0; i < 3000; i++) {
    if (child.exitCode !== null) return false;
    if (pagesLines() >= lines) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

describe('resume after kill -9', () => {
  it('finds every reachable page, each once except those in flight at each kill', async () => {
    const kills = [40, 160, 300];
    for (const at of kills) {
      // The web answers only a few requests past the kill point, so the crawl is still
      // running there however fast the machine is.
      web.holdAfter(web.requestLog.length + (at - pagesLines()) + 10);
      const child = startCrawl();
      const reached = await waitForLines(child, at);
      expect(reached, `crawl should still be running at ${at} lines`).toBe(true);
      child.kill('SIGKILL');
      await once(child, 'exit');
      web.release();
    }
    const last = startCrawl();
    let stderr = '';
    last.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const [code] = await once(last, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);

    const records = readPages(join(dir, 'pages.jsonl'));
    const fetched = records.filter((r) => r.status === 200);
    const counts = new Map<string, number>();
    for (const r of fetched) counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...web.reachable()].sort());
    const extra = fetched.length - counts.size;
    expect(extra).toBeLessThanOrEqual(CONCURRENCY * kills.length);
    // The lock went with the process: this one can take it (the file itself stays).
    const release = await lockDataDir(layoutOf(dir));
    release();
    expect(statSync(join(dir, 'frontier.db')).size).toBeGreaterThan(0);
  });
});
