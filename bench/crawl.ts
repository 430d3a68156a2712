import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { collectStderrTail, processCpuSeconds, spawnCobweb, waitForExit, watchPeakRss } from './child.js';

export interface CobwebRunOptions {
  repoDir: string;
  seeds: readonly string[];
  dataDir: string;
  concurrency: number;
  perHost: number;
  timeoutSeconds: number;
  /** Extra command-line flags (e.g. --no-builtin-modules). */
  extraArgs?: readonly string[];
}

export interface CobwebRun {
  /** Wall time from spawn to exit, so start-up and shutdown count too. */
  seconds: number;
  peakRssBytes: number;
  exitCode: number | null;
  timedOut: boolean;
  stderrTail: string;
  /** A cluster's server: its CPU seconds when the last bunny was done (its shutdown not included). */
  serverCpuSeconds?: number;
}

/** bin/cobweb.js runs the compiled CLI; without dist/ there is nothing to measure. */
export function cobwebIsBuilt(repoDir: string): boolean {
  return existsSync(join(repoDir, 'dist', 'cli', 'main.js'));
}

export async function runCobwebCrawl(options: CobwebRunOptions): Promise<CobwebRun> {
  const args = [
    'crawl',
    ...options.seeds,
    '--data',
    options.dataDir,
    // No politeness wait at all: --delay 0 alone still leaves the adaptive gap
    // (2 x response time), which would measure the politeness, not the crawler.
    '--delay',
    '0',
    '--delay-factor',
    '0',
    '--per-host',
    String(options.perHost),
    '--concurrency',
    String(options.concurrency),
    '--quiet',
    ...(options.extraArgs ?? []),
  ];
  const startedAt = performance.now();
  const child = spawnCobweb(join(options.repoDir, 'bin', 'cobweb.js'), args, options.repoDir, 'ignore');
  child.stdin?.end();
  const stderrTail = collectStderrTail(child);
  const rss = child.pid === undefined ? undefined : watchPeakRss(child.pid);
  const exit = await waitForExit(child, options.timeoutSeconds * 1000);
  const seconds = (performance.now() - startedAt) / 1000;
  return {
    seconds,
    peakRssBytes: rss?.stop() ?? 0,
    exitCode: exit.code,
    timedOut: exit.timedOut,
    stderrTail: stderrTail(),
  };
}

export interface ClusterRunOptions extends CobwebRunOptions {
  /** Crawling processes beside the server; the concurrency is split among them. */
  bunnies: number;
}

/**
 * A `cobweb server` holding the seeds and the store, and `bunnies` crawling processes
 * talking to it over loopback: timed from the server's spawn to the last bunny's exit
 * (the server is then stopped). Pages land in the server's pages.jsonl. Peak RSS is the
 * sum of the processes' peaks.
 */
export async function runCobwebCluster(options: ClusterRunOptions): Promise<CobwebRun> {
  const bin = join(options.repoDir, 'bin', 'cobweb.js');
  const startedAt = performance.now();
  const server = spawnCobweb(
    bin,
    [
      'server',
      ...options.seeds,
      '--data',
      options.dataDir,
      '--listen',
      '127.0.0.1:0',
      '--delay',
      '0',
      '--delay-factor',
      '0',
      '--per-host',
      String(options.perHost),
      '--quiet',
      ...(options.extraArgs ?? []),
    ],
    options.repoDir,
  );
  const serverTail = collectStderrTail(server);
  const serverRss = server.pid === undefined ? undefined : watchPeakRss(server.pid);
  const port = await new Promise<number | null>((resolvePort) => {
    let out = '';
    const timer = setTimeout(() => resolvePort(null), options.timeoutSeconds * 1000);
    server.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const m = /server listening on [^\s]+:(\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    });
    server.once('exit', () => resolvePort(null));
  });
  if (port === null) {
    server.kill('SIGKILL');
    return { seconds: 0, peakRssBytes: 0, exitCode: 1, timedOut: false, stderrTail: serverTail() };
  }
  const each = Math.max(1, Math.round(options.concurrency / options.bunnies));
  const bunnies = Array.from({ length: options.bunnies }, (_, i) => {
    const child = spawnCobweb(
      bin,
      [
        'bunny',
        '--server',
        `127.0.0.1:${port}`,
        '--data',
        `${options.dataDir}-bunny-${i + 1}`,
        '--concurrency',
        String(each),
        '--quiet',
      ],
      options.repoDir,
      'ignore',
    );
    child.stdin?.end();
    return {
      child,
      tail: collectStderrTail(child),
      rss: child.pid === undefined ? undefined : watchPeakRss(child.pid),
    };
  });
  const exits = await Promise.all(bunnies.map((b) => waitForExit(b.child, options.timeoutSeconds * 1000)));
  const seconds = (performance.now() - startedAt) / 1000;
  const serverCpuSeconds = server.pid === undefined ? undefined : processCpuSeconds(server.pid);
  server.kill('SIGTERM');
  await waitForExit(server, 30_000);
  const peaks = [serverRss?.stop() ?? 0, ...bunnies.map((b) => b.rss?.stop() ?? 0)];
  const failed = exits.findIndex((e) => e.code !== 0);
  return {
    seconds,
    peakRssBytes: peaks.reduce((a, b) => a + b, 0),
    exitCode: failed === -1 ? 0 : (exits[failed]?.code ?? null),
    timedOut: exits.some((e) => e.timedOut),
    stderrTail: [serverTail(), ...bunnies.map((b) => b.tail())].join('\n').slice(-4000),
    ...(serverCpuSeconds === undefined ? {} : { serverCpuSeconds }),
  };
}

export interface PagesFileSummary {
  /** URLs of page records with status 200, as written (requisites are not pages). */
  okUrls: string[];
  /** Records of a page's requisites (--requisites), whatever their status. */
  requisites: number;
  records: number;
  /** Lines that are not JSON objects with a string url. */
  malformed: number;
}

/** Reads <data>/pages.jsonl line by line (it can be large) and keeps the 200 URLs. */
export async function summarizePagesFile(path: string): Promise<PagesFileSummary> {
  const summary: PagesFileSummary = { okUrls: [], requisites: 0, records: 0, malformed: 0 };
  if (!existsSync(path)) return summary;
  const file = await open(path);
  try {
    for await (const line of file.readLines()) {
      if (line.trim() === '') continue;
      summary.records++;
      const record = parseRecord(line);
      if (!record) summary.malformed++;
      else if (record.requisite === true) summary.requisites++;
      else if (record.status === 200) summary.okUrls.push(record.url);
    }
  } finally {
    await file.close();
  }
  return summary;
}

function parseRecord(line: string): { url: string; status: unknown; requisite: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const { url, status, requisite } = value as { url?: unknown; status?: unknown; requisite?: unknown };
    return typeof url === 'string' ? { url, status, requisite } : undefined;
  } catch {
    return undefined;
  }
}

export interface UrlSetDifference {
  missing: string[];
  unexpected: string[];
  /** URLs recorded more than once. */
  repeated: number;
}

export function compareUrlSets(actual: readonly string[], expected: readonly string[]): UrlSetDifference {
  const actualSet = new Set(actual);
  const expectedSet = new Set(expected);
  return {
    missing: expected.filter((url) => !actualSet.has(url)),
    unexpected: [...actualSet].filter((url) => !expectedSet.has(url)),
    repeated: actual.length - actualSet.size,
  };
}
