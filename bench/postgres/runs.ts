// What both the benchmark (main.ts) and the profile (profile.ts) do: fill a store, run client processes on it.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as OpenStore from '../../src/frontier/open-store.js';
import type { ClientResult } from './client.js';
import { BENCH_FRONTIER, filledUrl, hostsFor } from './work.js';

export const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENT = join(repoDir, 'bench', 'postgres', 'client.ts');

/** The compiled store, as a user runs it; `build`: a folder with a dist/ (another build to compare). */
export async function openStore(spec: string, build = repoDir) {
  const store = (await import(
    pathToFileURL(join(build, 'dist', 'frontier', 'open-store.js')).href
  )) as typeof OpenStore;
  return store.openFrontier(spec, BENCH_FRONTIER);
}

/** Queues `n` URLs of depth 0 over hostsFor(n) hosts, in add() calls of 5,000; resolves to the seconds it took. */
export async function fill(spec: string, n: number, build = repoDir): Promise<number> {
  const f = await openStore(spec, build);
  const c = await f.registerCrawler('fill');
  const hosts = hostsFor(n);
  const started = Date.now();
  for (let at = 0; at < n; at += 5000) {
    const links = [];
    for (let i = at; i < Math.min(n, at + 5000); i++)
      links.push({ url: filledUrl(i, hosts), depth: 0, via: null });
    await f.add(links, [], c);
  }
  await f.leave(c);
  await f.close();
  return (Date.now() - started) / 1000;
}

export interface RunOptions {
  spec: string;
  clients: number;
  seconds: number;
  batch: number;
  /** URLs the fill queued (the clients' known outlinks are among them). */
  filled: number;
  /** Makes each run's new URLs its own. */
  tag: string;
  /** A folder with the dist/ the clients run; default this checkout's. */
  build?: string;
  /** Seconds the clients work before the measured time (default 3): JIT, catalog caches, plans. */
  warmupSeconds?: number;
  /** Called when the measured time starts. */
  onStart?: () => void | Promise<void>;
}

/**
 * Starts the clients, and once all are connected, gives them one time to start working,
 * and after a warm-up, one start and one end of the measured time.
 */
export async function runClients(o: RunOptions): Promise<ClientResult[]> {
  const children = Array.from({ length: o.clients }, (_, i) =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLIENT,
        o.build ?? repoDir,
        o.spec,
        String(i),
        o.tag,
        String(o.batch),
        String(o.filled),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  // One client failing fails the run: the others are not left retrying against a store that goes away.
  const killAll = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  };
  const ready: Promise<void>[] = [];
  const results = children.map(
    (child) =>
      new Promise<ClientResult>((resolvePromise, reject) => {
        let out = '';
        let said: () => void = () => {};
        ready.push(new Promise<void>((r) => (said = r)));
        child.stdout.on('data', (d) => {
          out += String(d);
          if (out.includes('ready\n')) said();
        });
        child.on('exit', (code) => {
          said();
          if (code !== 0) {
            killAll();
            reject(new Error(`a client exited with ${code}`));
          } else resolvePromise(JSON.parse(out.trim().split('\n').pop() as string) as ClientResult);
        });
      }),
  );
  await Promise.all(ready);
  const warmAt = Date.now() + 200;
  const startAt = warmAt + (o.warmupSeconds ?? 3) * 1000;
  for (const child of children) child.stdin.write(`${warmAt} ${startAt} ${startAt + o.seconds * 1000}\n`);
  await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
  await o.onStart?.();
  return Promise.all(results);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
