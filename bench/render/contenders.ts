import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { collectStderrTail, spawnCobweb, waitForExit } from '../child.js';
import { type TreeMemory, watchTreeMemory } from './tree-rss.js';

export interface ContenderRun {
  pages: number;
  seconds: number;
  memory: TreeMemory;
  failed: string | undefined;
  /** cobweb: pages rendered, by kind of page (their path: /s/ script-built, /p/ plain). */
  rendered?: { scriptBuilt: number; scriptBuiltPages: number; plain: number; plainPages: number };
}

export interface RunSpec {
  origin: string;
  concurrency: number;
  browser: string;
  workDir: string;
  timeoutSeconds: number;
}

/** `cobweb crawl --render <mode>` of the site, no politeness wait, as many pages at once as Crawlee. */
export async function runCobweb(
  repoDir: string,
  spec: RunSpec,
  render: 'always' | 'auto',
  extraArgs: readonly string[] = [],
): Promise<ContenderRun> {
  const dataDir = join(spec.workDir, `cobweb-${render}-${extraArgs.join('')}`);
  const c = String(spec.concurrency);
  const args = [
    'crawl',
    `${spec.origin}/`,
    '--data',
    dataDir,
    '--delay',
    '0',
    '--delay-factor',
    '0',
    '--per-host',
    c,
    '--concurrency',
    c,
    '--render',
    render,
    '--render-concurrency',
    c,
    '--browser',
    spec.browser,
    '--quiet',
    ...extraArgs,
  ];
  const startedAt = performance.now();
  const child = spawnCobweb(join(repoDir, 'bin', 'cobweb.js'), args, repoDir, 'ignore');
  child.stdin?.end();
  const tail = collectStderrTail(child);
  const memory = child.pid === undefined ? undefined : watchTreeMemory(child.pid);
  const exit = await waitForExit(child, spec.timeoutSeconds * 1000);
  const seconds = (performance.now() - startedAt) / 1000;
  const peak = memory?.stop() ?? { rssBytes: 0, pssBytes: 0, processes: 0 };
  const tally = await tallyPages(join(dataDir, 'pages.jsonl'));
  const failed =
    exit.code === 0 ? undefined : `exit ${exit.code}${exit.timedOut ? ' (timed out)' : ''}: ${tail()}`;
  return { pages: tally.pages, seconds, memory: peak, failed, rendered: tally.rendered };
}

/** Crawlee's PlaywrightCrawler (crawlee/crawl.mjs), run from its own folder's node_modules. */
export async function runCrawlee(crawleeDir: string, spec: RunSpec): Promise<ContenderRun> {
  const dir = join(spec.workDir, 'crawlee');
  mkdirSync(dir, { recursive: true });
  const options = { start: `${spec.origin}/`, concurrency: spec.concurrency, browser: spec.browser };
  const startedAt = performance.now();
  const child = spawn(process.execPath, [join(crawleeDir, 'crawl.mjs'), JSON.stringify(options)], {
    cwd: dir,
    env: { ...process.env, CRAWLEE_STORAGE_DIR: join(dir, 'storage'), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = collectStderrTail(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += String(chunk);
  });
  const memory = child.pid === undefined ? undefined : watchTreeMemory(child.pid);
  const exit = await waitForExit(child, spec.timeoutSeconds * 1000);
  const seconds = (performance.now() - startedAt) / 1000;
  const peak = memory?.stop() ?? { rssBytes: 0, pssBytes: 0, processes: 0 };
  const last = out.trim().split('\n').pop() ?? '';
  let pages = 0;
  let failed =
    exit.code === 0 ? undefined : `exit ${exit.code}${exit.timedOut ? ' (timed out)' : ''}: ${tail()}`;
  try {
    const result = JSON.parse(last) as { pages: number; failed: number };
    pages = result.pages;
    if (result.failed > 0) failed = `${result.failed} requests failed`;
  } catch {
    failed ??= `no result line: ${tail()}`;
  }
  return { pages, seconds, memory: peak, failed };
}

interface Tally {
  pages: number;
  rendered: NonNullable<ContenderRun['rendered']>;
}

/** The crawl's pages (status 200, not requisites) and, by the kind its path names, how many were rendered. */
async function tallyPages(path: string): Promise<Tally> {
  const tally: Tally = {
    pages: 0,
    rendered: { scriptBuilt: 0, scriptBuiltPages: 0, plain: 0, plainPages: 0 },
  };
  if (!existsSync(path)) return tally;
  const file = await open(path);
  try {
    for await (const line of file.readLines()) {
      if (line.trim() === '') continue;
      const r = JSON.parse(line) as { url: string; status: number | null; rendered?: true; requisite?: true };
      if (r.status !== 200 || r.requisite) continue;
      tally.pages++;
      const plain = new URL(r.url).pathname.startsWith('/p/');
      if (plain) {
        tally.rendered.plainPages++;
        if (r.rendered) tally.rendered.plain++;
      } else {
        tally.rendered.scriptBuiltPages++;
        if (r.rendered) tally.rendered.scriptBuilt++;
      }
    }
  } finally {
    await file.close();
  }
  return tally;
}
