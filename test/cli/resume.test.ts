import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { lockDataDir } from '../../src/data-dir/data-dir.js';
import { layoutOf } from '../../src/data-dir/layout.js';
import { readPages } from '../helpers/pages.js';

// The CLI as a user runs it: the compiled bin (npm test builds first).
const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
const CONCURRENCY = 8;
/**
 * What a kill may cost, as documented: the fetches in flight and the finished ones whose
 * outputs were not written yet, at most four times --concurrency (drum's answers make the
 * latter wait for a merge).
 */
const UNFINISHED_AT_A_KILL = 4 * CONCURRENCY;

let web: RunningWeb;
let root: string;
/** This kind's data folder. */
let dir: string;

beforeAll(async () => {
  web = await startSyntheticWeb({
    hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
    pagesPerHost: 150,
    pageBytes: 1500,
  });
  root = mkdtempSync(join(tmpdir(), 'cobweb-resume-'));
});

afterAll(async () => {
  await web.close();
  rmSync(root, { recursive: true, force: true });
});

function startCrawl(seen: string): ChildProcess {
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
      '--seen',
      seen,
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

/** Waits (bounded: a minute) until pages.jsonl has at least `lines` lines or the child exits. */
async function waitForLines(child: ChildProcess, lines: number): Promise<boolean> {
  for (let i = 0; i < 6000; i++) {
    if (child.exitCode !== null) return false;
    if (pagesLines() >= lines) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

// Every seen set, through the same kills: a URL the set holds is always queued, done or
// recorded, so none is lost; drum's links waiting for a merge at a kill belong to pages
// still leased, which are fetched again (within the in-flight bound) and their links
// derived again.
// Four runs of a crawl each: 20 to 40 s on a busy machine, so more than vitest's minute is allowed.
describe.each(['memory', 'drum', 'lmdb', 'bloom'])(
  'resume after kill -9 with --seen %s',
  { timeout: 240_000 },
  (seen) => {
    it('finds every reachable page, each fetched once except those unfinished at each kill', async () => {
      dir = join(root, seen);
      const firstRequest = web.requestLog.length;
      const kills = [40, 160, 300];
      for (const at of kills) {
        // The web answers only a few requests past the kill point, so the crawl is still
        // running there however fast the machine is.
        web.holdAfter(web.requestLog.length + (at - pagesLines()) + 10);
        const child = startCrawl(seen);
        const reached = await waitForLines(child, at);
        expect(reached, `crawl should still be running at ${at} lines`).toBe(true);
        child.kill('SIGKILL');
        await once(child, 'exit');
        web.release();
      }
      const last = startCrawl(seen);
      let stderr = '';
      last.stderr?.on('data', (d) => {
        stderr += String(d);
      });
      const [code] = await once(last, 'exit');
      expect(stderr).toBe('');
      expect(code).toBe(0);

      const reachable = [...web.reachable()].sort();
      const records = readPages(join(dir, 'pages.jsonl'));
      const fetched = records.filter((r) => r.status === 200);
      const counts = new Map<string, number>();
      for (const r of fetched) counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
      const got = [...counts.keys()].sort();
      if (seen === 'bloom') {
        // At most its false-positive rate of new URLs taken as seen (0.001 of a filter
        // sized for 10^7 URLs, far emptier here).
        expect(got.every((u) => reachable.includes(u))).toBe(true);
        expect(reachable.length - got.length).toBeLessThanOrEqual(Math.ceil(0.001 * reachable.length));
      } else {
        expect(got).toEqual(reachable);
      }
      // Counted at the web servers: every page asked for once, but those unfinished at a kill.
      const pageRequests = web.requestLog.slice(firstRequest).filter((r) => r.path !== '/robots.txt');
      expect(pageRequests.length - got.length).toBeLessThanOrEqual(UNFINISHED_AT_A_KILL * kills.length);
      expect(fetched.length - counts.size).toBeLessThanOrEqual(UNFINISHED_AT_A_KILL * kills.length);
      // The lock went with the process: this one can take it (the file itself stays).
      const release = await lockDataDir(layoutOf(dir));
      release();
      expect(statSync(join(dir, 'frontier.db')).size).toBeGreaterThan(0);
    });
  },
);
