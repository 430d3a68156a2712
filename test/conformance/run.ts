import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerConnection } from '../../src/frontier/remote/connection.js';
import { bunny, serve } from '../../src/index.js';
import { type ConformanceWeb, startConformanceWeb } from './web.js';

/**
 * The conformance run (docs/protocol.md, "Checking a bunny"): a cobweb server over the
 * conformance web, crawled once by cobweb's own bunny (the reference) and once by each
 * client given as a command line, each on a server of its own. A client passes when it
 * leaves the same pages.jsonl lines (when and how long a fetch took aside, and a failure's
 * message, which is the client's own words), asked the web for the same paths as many
 * times, left no lease to expire and no completion refused, and the server logged no error.
 */

/** Fields a client may write differently: when and how long, and which crawler. */
const FREE_FIELDS = new Set(['fetchedAt', 'durationMs', 'crawler']);
const TOKEN = 'conformance-token';

export interface ClientResult {
  command: string[];
  /** What differs from the reference; empty when the client passes. */
  problems: string[];
  /** Warnings the server logged about the client (modules it runs none of, say). */
  notes: string[];
  lines: number;
  ms: number;
}

export interface ConformanceReport {
  /** Lines the reference bunny left in pages.jsonl. */
  referenceLines: number;
  clients: ClientResult[];
}

interface RunOutput {
  lines: Record<string, unknown>[];
  requests: string[];
  logged: { line: string; level: string }[];
  expired: number;
  stale: number;
  /** Why the client did not end as it should, if it did not. */
  exit: string | null;
  /** The server echoed a bogus lease id in `stale`, as sent. */
  staleEcho: boolean;
}

/** Runs the reference bunny, then each client command (the server's address, token and a folder appended). */
export async function runConformance(
  commands: readonly string[][],
  timeoutMs = 60_000,
): Promise<ConformanceReport> {
  const deadPort = await freePort();
  const web = await startConformanceWeb(deadPort);
  const root = mkdtempSync(join(tmpdir(), 'cobweb-conformance-'));
  try {
    const reference = await crawlWith(web, join(root, 'reference'), null, timeoutMs);
    const clients: ClientResult[] = [];
    for (const [i, command] of commands.entries()) {
      const started = Date.now();
      const run = await crawlWith(web, join(root, `client-${i}`), command, timeoutMs);
      clients.push({
        command,
        problems: compare(reference, run),
        notes: run.logged.filter((l) => l.level === 'warning').map((l) => l.line),
        lines: run.lines.length,
        ms: Date.now() - started,
      });
    }
    return { referenceLines: reference.lines.length, clients };
  } finally {
    await web.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** One crawl of the web by a server and one client: the in-process reference bunny when `command` is null. */
async function crawlWith(
  web: ConformanceWeb,
  dir: string,
  command: readonly string[] | null,
  timeoutMs: number,
): Promise<RunOutput> {
  web.reset();
  const logged: { line: string; level: string }[] = [];
  const server = await serve({
    seeds: [`${web.origin}/`],
    data: join(dir, 'server'),
    listen: '127.0.0.1:0',
    token: TOKEN,
    delayMs: 0,
    delayFactor: 0,
    retryDelayMs: 200,
    hostBackoffMs: 100,
    onLog: (line, level) => logged.push({ line, level }),
  });
  let exit: string | null = null;
  try {
    if (command === null) {
      const summary = await bunny({
        server: server.listen,
        token: TOKEN,
        data: join(dir, 'client'),
        onLog: () => {},
      });
      if (summary.stoppedBy !== 'finished') exit = `the reference bunny stopped by ${summary.stoppedBy}`;
    } else {
      exit = await runClient(
        [...command, '--server', server.listen, '--token', TOKEN, '--data', join(dir, 'client')],
        timeoutMs,
      );
    }
    const probe = new ServerConnection({
      host: server.host,
      port: server.port,
      token: TOKEN,
      name: 'conformance-probe',
      // It runs no page: nothing is missing.
      modules: ['forms', 'meta'],
    });
    try {
      const stats = await probe.request('STATS', {});
      const echo = await probe.request('COMPLETE', {
        completions: [
          {
            lease: 'bogus',
            outcome: { kind: 'done' },
            report: { fetchMs: 0 },
            page: null,
            outlinks: [],
            rejected: [],
            modules: [],
          },
        ],
      });
      return {
        lines: readLines(join(dir, 'server', 'pages.jsonl')),
        requests: [...web.requests],
        logged,
        expired: stats.expiredLeases ?? 0,
        stale: stats.staleCompletions ?? 0,
        exit,
        staleEcho: echo.stale.length === 1 && echo.stale[0] === 'bogus',
      };
    } finally {
      probe.close();
    }
  } finally {
    await server.close();
  }
}

/** Runs a client to its end: null when it exited 0 in time, else what went wrong (with its stderr's tail). */
function runClient(argv: readonly string[], timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv as [string, ...string[]];
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-2000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(`it could not be started: ${err.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(null);
      else if (signal === 'SIGKILL') resolve(`it did not end within ${timeoutMs} ms\n${stderr}`);
      else resolve(`it exited with ${code ?? signal}\n${stderr}`);
    });
  });
}

function readLines(file: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l.url === 'string');
}

/** What differs between the reference's run and a client's. */
export function compare(reference: RunOutput, run: RunOutput): string[] {
  const problems: string[] = [];
  if (run.exit !== null) problems.push(`the client did not end well: ${run.exit}`);
  const mine = byUrl(run.lines, problems);
  const theirs = byUrl(reference.lines, []);
  for (const [url, line] of theirs) {
    const got = mine.get(url);
    if (got === undefined) {
      problems.push(`missing from pages.jsonl: ${url}`);
      continue;
    }
    const diff = lineDiff(line, got);
    if (diff.length > 0) problems.push(`${url}: ${diff.join('; ')}`);
  }
  for (const url of mine.keys())
    if (!theirs.has(url)) problems.push(`in pages.jsonl, not the reference's: ${url}`);
  const asked = counts(run.requests);
  for (const [path, n] of counts(reference.requests)) {
    const m = asked.get(path) ?? 0;
    if (m !== n) problems.push(`${path} was asked for ${m} times, the reference ${n}`);
  }
  for (const path of asked.keys()) {
    if (!reference.requests.includes(path)) problems.push(`${path} was asked for; the reference never did`);
  }
  if (run.expired > 0) problems.push(`${run.expired} leases ran out (the client left them to expire)`);
  if (run.stale > 0) problems.push(`${run.stale} completions were refused as stale`);
  for (const l of run.logged) if (l.level === 'error') problems.push(`the server logged an error: ${l.line}`);
  if (!run.staleEcho) problems.push('the server did not echo a bogus lease id in stale as sent');
  return problems;
}

function byUrl(
  lines: readonly Record<string, unknown>[],
  problems: string[],
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const l of lines) {
    const url = l.url as string;
    if (out.has(url)) problems.push(`written twice: ${url}`);
    else out.set(url, l);
  }
  return out;
}

/** Field by field, the free ones aside; a failure's `detail` is the client's own message. */
function lineDiff(want: Record<string, unknown>, got: Record<string, unknown>): string[] {
  const diff: string[] = [];
  const failure = want.error !== undefined && want.error !== 'filtered';
  for (const key of new Set([...Object.keys(want), ...Object.keys(got)])) {
    if (FREE_FIELDS.has(key)) continue;
    if (key === 'detail' && failure) {
      if (typeof got.detail !== 'string') diff.push('detail: missing');
      continue;
    }
    if (JSON.stringify(want[key]) !== JSON.stringify(got[key])) {
      diff.push(`${key}: ${JSON.stringify(got[key])}, the reference ${JSON.stringify(want[key])}`);
    }
  }
  if (typeof want.fetchedAt === 'string') {
    if (typeof got.fetchedAt !== 'string' || Number.isNaN(Date.parse(got.fetchedAt)))
      diff.push(`fetchedAt: ${JSON.stringify(got.fetchedAt)} is no ISO 8601 instant`);
    if (typeof got.durationMs !== 'number') diff.push('durationMs: not a number');
  }
  return diff;
}

function counts(items: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of items) out.set(i, (out.get(i) ?? 0) + 1);
  return out;
}

/** A port nothing listens on: taken, then let go. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
