// The server's own speed, with no HTTP: four clients lease URLs from one `cobweb server`
// and complete each with 10 new outlinks, once with the original one-URL packets
// (DEQUEUE, ten ENQUEUE, STOREURL) and once with the batched ones (LEASE n, COMPLETE n).
// Run: node --import tsx bench/server-throughput.ts   (npm run bench runs it after the crawl table)
// Knobs: BENCH_SERVER_URLS (completions per run, default 20000), BENCH_SERVER_BATCH (64).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RemoteFrontier } from '../src/frontier/remote/remote-frontier.js';
import type { Completion, NewLink } from '../src/frontier/types.js';
import { encode, type OriginalTarget } from '../src/protocol/index.js';
import { collectStderrTail, processCpuSeconds, spawnCobweb, waitForExit, watchPeakRss } from './child.js';
import { describeMachine } from './report.js';

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = 4;
const OUTLINKS = 10;
const HOSTS = 200;
const TARGET_BATCHED = 20_000;
const TIME_LIMIT_MS = 120_000;

function intFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

const TOTAL = intFrom('BENCH_SERVER_URLS', 20_000);
const BATCH = intFrom('BENCH_SERVER_BATCH', 64);

interface Row {
  run: string;
  urls: number;
  seconds: number;
  serverCpuSeconds: number | undefined;
  peakRssBytes: number;
}

/** URLs on HOSTS made-up hosts (never fetched: nothing here speaks HTTP). */
let serial = 0;
function freshUrl(): string {
  serial++;
  return `http://h${serial % HOSTS}.bench.test/p/${serial}`;
}

interface RunningServer {
  port: number;
  pid: number;
  stop(): Promise<number>;
}

async function startServer(dir: string): Promise<RunningServer> {
  const child = spawnCobweb(
    join(repoDir, 'bin', 'cobweb.js'),
    [
      'server',
      '--data',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--scope',
      'any',
      '--delay',
      '0',
      '--delay-factor',
      '0',
      '--per-host',
      '1000',
      '--no-builtin-modules',
    ],
    repoDir,
  );
  const stderr = collectStderrTail(child);
  const rss = watchPeakRss(child.pid as number);
  const port = await new Promise<number>((resolvePort, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr()}`)), 30_000);
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const m = /server listening on [^\s]+:(\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    });
    child.once('exit', () => reject(new Error(`server exited: ${stderr()}`)));
  });
  return {
    port,
    pid: child.pid as number,
    async stop() {
      const peak = rss.stop();
      child.kill('SIGTERM');
      await waitForExit(child, 30_000);
      return peak;
    },
  };
}

/** Queues the first URLs, untimed, so every client has work from the start. */
async function seed(port: number, count: number): Promise<void> {
  const f = new RemoteFrontier({ host: '127.0.0.1', port });
  const crawler = await f.registerCrawler('seeder');
  for (let done = 0; done < count; done += 1000) {
    const links: NewLink[] = Array.from({ length: Math.min(1000, count - done) }, () => ({
      url: freshUrl(),
      depth: 0,
      via: null,
    }));
    await f.add(links, [], crawler);
  }
  await f.close();
}

async function batchedClient(port: number, budget: { left: number }): Promise<number> {
  const f = new RemoteFrontier({ host: '127.0.0.1', port });
  const crawler = await f.registerCrawler('bench');
  let completed = 0;
  const deadline = Date.now() + TIME_LIMIT_MS;
  while (budget.left > 0 && Date.now() < deadline) {
    const want = Math.min(BATCH, budget.left);
    budget.left -= want;
    const { leases } = await f.lease(want, crawler, { waitMs: 100 });
    budget.left += want - leases.length;
    if (leases.length === 0) continue;
    const batch: Completion[] = leases.map((l) => ({
      leaseId: l.id,
      outcome: { kind: 'done' },
      report: { fetchMs: 1 },
      outlinks: Array.from({ length: OUTLINKS }, () => ({ url: freshUrl(), depth: l.depth + 1, via: l.url })),
      rejected: [],
      record: { url: l.url, status: 200 },
    }));
    await f.complete(batch, crawler);
    completed += leases.length;
  }
  await f.close();
  return completed;
}

/** A client that speaks only the original packets: DEQUEUE, ENQUEUE per outlink, STOREURL. */
async function originalClient(port: number, budget: { left: number }): Promise<number> {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await new Promise<void>((r, reject) => {
    socket.once('connect', () => r());
    socket.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | null = null;
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  });
  const read = async (n: number): Promise<Buffer> => {
    while (buffered.length < n) await new Promise<void>((r) => (wake = r));
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  const dequeue = encode({ type: 'DEQUEUE' });
  let completed = 0;
  const deadline = Date.now() + TIME_LIMIT_MS;
  while (budget.left > 0 && Date.now() < deadline) {
    budget.left--;
    socket.write(dequeue);
    const length = (await read(2)).readUInt16BE(0);
    if (length === 0) {
      budget.left++;
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    const body = await read(length - 2);
    const [host, path] = body.subarray(6).toString('latin1').split('\0') as [string, string];
    const target: OriginalTarget = { addr: '0.0.0.0', port: 80, host, path };
    const frames: Buffer[] = [];
    for (let i = 0; i < OUTLINKS; i++) {
      const u = new URL(freshUrl());
      frames.push(
        encode({ type: 'ENQUEUE', target: { addr: '0.0.0.0', port: 80, host: u.host, path: u.pathname } }),
      );
    }
    frames.push(encode({ type: 'STOREURL', target }));
    socket.write(Buffer.concat(frames));
    completed++;
  }
  // A last DEQUEUE round trip: the server has handled everything this client sent before it.
  socket.write(dequeue);
  const length = (await read(2)).readUInt16BE(0);
  if (length > 0) await read(length - 2);
  socket.destroy();
  return completed;
}

async function measure(
  label: string,
  client: (port: number, budget: { left: number }) => Promise<number>,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-bench-server-'));
  const server = await startServer(dir);
  try {
    await seed(server.port, 4 * CLIENTS * BATCH);
    const cpuBefore = processCpuSeconds(server.pid);
    const budget = { left: TOTAL };
    const started = performance.now();
    const counts = await Promise.all(Array.from({ length: CLIENTS }, () => client(server.port, budget)));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = processCpuSeconds(server.pid);
    const peakRssBytes = await server.stop();
    return {
      run: label,
      urls: counts.reduce((a, b) => a + b, 0),
      seconds,
      serverCpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
      peakRssBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows = [
    await measure(`one-URL packets (DEQUEUE, ${OUTLINKS} ENQUEUE, STOREURL)`, originalClient),
    await measure(`batched packets (LEASE ${BATCH}, COMPLETE ${BATCH})`, batchedClient),
  ];
  console.log(describeMachine());
  console.log(
    `${CLIENTS} clients, ${TOTAL} URLs leased and completed per run, ${OUTLINKS} new outlinks each, ${HOSTS} hosts; server: SQLite store, no modules\n`,
  );
  console.log('| run | URLs | seconds | URLs/s | server CPU s | server peak RSS (MiB) |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.run} | ${r.urls} | ${r.seconds.toFixed(2)} | ${(r.urls / r.seconds).toFixed(0)} | ${r.serverCpuSeconds?.toFixed(1) ?? '-'} | ${(r.peakRssBytes / 2 ** 20).toFixed(1)} |`,
    );
  }
  const batched = rows[1] as Row;
  console.log(
    `\nbatched: ${(batched.urls / batched.seconds).toFixed(0)} URLs/s (target >= ${TARGET_BATCHED})`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
