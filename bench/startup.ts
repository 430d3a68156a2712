import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectStderrTail, spawnCobweb, spawnNode, waitForExit } from './child.js';

/** A one-page crawl, spawn to exit, must take less than this. */
export const TARGET_STARTUP_SECONDS = 0.3;

export interface StartupResult {
  /** `node -e 0`, spawn to exit: what any Node.js program pays. */
  nodeSeconds: number[];
  /** `cobweb crawl <one page> --delay 0`, spawn to exit, with its store, WARC, pages.jsonl and robots.txt. */
  crawlSeconds: number[];
  /** The 1-minute load average when the measurement started. */
  load: number;
  failure: string | undefined;
}

/**
 * How long a one-page crawl takes, against how long node takes to do nothing, the two
 * alternating: a site of one page without links (robots.txt a 404), served from this
 * process, crawled into a new data folder each time.
 */
export async function measureStartup(repoDir: string, rounds: number): Promise<StartupResult> {
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!DOCTYPE html><html lang="en"><head><title>One page</title></head><body><p>Hello.</p></body></html>',
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const { port } = server.address() as AddressInfo;
  const work = mkdtempSync(join(tmpdir(), 'cobweb-bench-startup-'));
  const result: StartupResult = {
    nodeSeconds: [],
    crawlSeconds: [],
    load: loadavg()[0] ?? 0,
    failure: undefined,
  };
  try {
    for (let round = 0; round < rounds && result.failure === undefined; round++) {
      result.nodeSeconds.push((await timed(() => spawnNode(['-e', '0'], repoDir, 'ignore'))).seconds);
      const bin = join(repoDir, 'bin', 'cobweb.js');
      const args = [
        'crawl',
        `http://127.0.0.2:${port}/`,
        '--data',
        join(work, `data-${round}`),
        '--delay',
        '0',
        '--quiet',
      ];
      const crawl = await timed(() => spawnCobweb(bin, args, repoDir, 'ignore'));
      if (crawl.failure !== undefined) result.failure = crawl.failure;
      else result.crawlSeconds.push(crawl.seconds);
    }
  } finally {
    server.close();
    rmSync(work, { recursive: true, force: true });
  }
  return result;
}

async function timed(start: () => ChildProcess): Promise<{ seconds: number; failure: string | undefined }> {
  const startedAt = performance.now();
  const child = start();
  child.stdin?.end();
  const tail = collectStderrTail(child);
  const exit = await waitForExit(child, 30_000);
  const seconds = (performance.now() - startedAt) / 1000;
  const failure =
    exit.code === 0 ? undefined : `exit ${exit.code ?? exit.signal}: ${tail().trim() || '(no stderr)'}`;
  return { seconds, failure };
}

/** The lines the benchmark prints for it. */
export function startupLines(result: StartupResult): string[] {
  if (result.failure !== undefined) return [`**WARNING: the one-page crawl failed: ${result.failure}**`];
  const median = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)} to ${Math.max(...xs).toFixed(3)}`;
  return [
    `one-page crawl (cobweb crawl URL --delay 0), spawn to exit: ${median(result.crawlSeconds).toFixed(3)} s median of ${result.crawlSeconds.length} (${range(result.crawlSeconds)}; target < ${TARGET_STARTUP_SECONDS} s)`,
    `node -e 0 in the same rounds: ${median(result.nodeSeconds).toFixed(3)} s (${range(result.nodeSeconds)}); load ${result.load.toFixed(2)} at start`,
  ];
}
