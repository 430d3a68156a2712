// The server's own speed, with no HTTP: four clients lease URLs from one `cobweb server`
// and complete each with 10 outlinks, once with the original one-URL packets (DEQUEUE,
// ten ENQUEUE, STOREURL) and then with the batched ones (LEASE n, COMPLETE n), on two
// link mixes side by side: all 10 new (every one a new row), and the web's mix, 9 of 10
// already known (link-mix.ts), over a few hundred hosts and over ten thousand.
// Run: node --import tsx bench/server-throughput.ts   (npm run bench runs it after the crawl table)
// Knobs: BENCH_SERVER_URLS (completions per run; by default 20000, or 10 a host where
// that is more: see urlsPerRun), BENCH_SERVER_BATCH (64),
// BENCH_SERVER_HOSTS (host counts, default 200,10000), BENCH_SERVER_MIXES (default
// all-new,nine-known; the one-URL row runs with all-new), BENCH_SERVER_FRONTIERS (the
// server's stores side by side, default sqlite,workbench), BENCH_SERVER_AGAINST (another
// checkout, built: each row runs on its server too, right after this one's, on SQLite, or
// on the stores BENCH_SERVER_AGAINST_FRONTIERS lists: a checkout older than --frontier has
// SQLite only).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RemoteFrontier } from '../src/frontier/remote/remote-frontier.js';
import type { Completion, NewLink } from '../src/frontier/types.js';
import { encode, type OriginalTarget } from '../src/protocol/index.js';
import { collectStderrTail, processCpuSeconds, spawnCobweb, waitForExit, watchPeakRss } from './child.js';
import { LinkMix, type MixName } from './link-mix.js';
import { describeMachine } from './report.js';

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = 4;
const OUTLINKS = 10;
const TARGET_NINE_KNOWN = 10_000;
const TIME_LIMIT_MS = 120_000;

function intFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** Completions in a run on few hosts, and in the one-URL row's run. */
const DEFAULT_URLS = 20_000;
/** BENCH_SERVER_URLS: one count for every run, in place of urlsPerRun's. */
const URLS_SET = process.env.BENCH_SERVER_URLS ? intFrom('BENCH_SERVER_URLS', DEFAULT_URLS) : null;

/**
 * Completions in one run: 20,000, or 10 a host on many hosts, so that each host is met
 * some ten times, as in the scale web (10^6 pages over 10^5 hosts). With 20,000 over
 * 10,000 hosts half the URLs were their host's first (its site written in the book, its
 * row read), and a run of two seconds measured mostly that and the machine's noise.
 */
function urlsPerRun(hosts: number): number {
  return URLS_SET ?? Math.max(DEFAULT_URLS, 10 * hosts);
}
const BATCH = intFrom('BENCH_SERVER_BATCH', 64);
const HOST_COUNTS = (process.env.BENCH_SERVER_HOSTS ?? '200,10000').split(',').map((h) => {
  const n = Number(h);
  if (!Number.isInteger(n) || n < 1) throw new RangeError('BENCH_SERVER_HOSTS must list positive integers');
  return n;
});
const MIXES = (process.env.BENCH_SERVER_MIXES ?? 'all-new,nine-known').split(',').map((m) => {
  if (m !== 'all-new' && m !== 'nine-known')
    throw new RangeError('BENCH_SERVER_MIXES lists all-new, nine-known');
  return m as MixName;
});

interface Row {
  run: string;
  server: string;
  mix: MixName;
  hosts: number;
  urls: number;
  seconds: number;
  serverCpuSeconds: number | undefined;
  clientCpuSeconds: number;
  peakRssBytes: number;
}

interface RunningServer {
  port: number;
  pid: number;
  stop(): Promise<number>;
}

/** A server to measure: this checkout's on one of its stores, or another's (BENCH_SERVER_AGAINST). */
interface Contender {
  name: string;
  checkout: string;
  /** --frontier: the store in the server's data folder (the option's default when absent). */
  frontier?: string;
}

const FRONTIERS = (process.env.BENCH_SERVER_FRONTIERS ?? 'sqlite,workbench').split(',').map((f) => {
  if (f !== 'sqlite' && f !== 'workbench')
    throw new RangeError('BENCH_SERVER_FRONTIERS lists sqlite, workbench');
  return f;
});

const CONTENDERS: Contender[] = [
  ...FRONTIERS.map((frontier) => ({ name: `this, ${frontier}`, checkout: repoDir, frontier })),
  ...againstContenders(process.env.BENCH_SERVER_AGAINST, process.env.BENCH_SERVER_AGAINST_FRONTIERS),
];

function againstContenders(checkout: string | undefined, frontiers: string | undefined): Contender[] {
  if (!checkout) return [];
  if (!frontiers) return [{ name: 'against', checkout: resolve(checkout) }];
  return frontiers
    .split(',')
    .map((frontier) => ({ name: `against, ${frontier}`, checkout: resolve(checkout), frontier }));
}

async function startServer(dir: string, contender: Contender): Promise<RunningServer> {
  const child = spawnCobweb(
    join(contender.checkout, 'bin', 'cobweb.js'),
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
      ...(contender.frontier === undefined ? [] : ['--frontier', contender.frontier]),
    ],
    contender.checkout,
  );
  const stderr = collectStderrTail(child);
  const rss = watchPeakRss(child.pid as number);
  // A server that does not start ends the benchmark: nothing of it may keep the process up.
  const port = await new Promise<number>((resolvePort, reject) => {
    let out = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      rss.stop();
      child.kill('SIGKILL');
      reject(new Error(`${why}: ${stderr()}`));
    };
    const timer = setTimeout(() => fail('server did not start'), 30_000);
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const m = /server listening on [^\s]+:(\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    });
    child.once('exit', () => fail('server exited'));
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

/** Queues the first URLs, untimed, so every client has work from the start, on every host. */
async function seed(port: number, mix: LinkMix, count: number): Promise<void> {
  const f = new RemoteFrontier({ host: '127.0.0.1', port });
  const crawler = await f.registerCrawler('seeder');
  for (let done = 0; done < count; done += 1000) {
    const links: NewLink[] = Array.from({ length: Math.min(1000, count - done) }, () => ({
      url: mix.fresh(),
      depth: 0,
      via: null,
    }));
    await f.add(links, [], crawler);
    mix.added(links.map((l) => l.url));
  }
  await f.close();
}

type Client = (port: number, mix: LinkMix, budget: { left: number }) => Promise<number>;

async function batchedClient(port: number, mix: LinkMix, budget: { left: number }): Promise<number> {
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
    const fresh: string[] = [];
    const batch: Completion[] = leases.map((l) => {
      const links = mix.outlinks(l.host);
      fresh.push(...links.slice(0, mix.newPerPage));
      return {
        leaseId: l.id,
        outcome: { kind: 'done' },
        report: { fetchMs: 1 },
        outlinks: links.map((url) => ({ url, depth: l.depth + 1, via: l.url })),
        rejected: [],
        record: { url: l.url, status: 200 },
      };
    });
    await f.complete(batch, crawler);
    mix.added(fresh);
    completed += leases.length;
  }
  await f.close();
  return completed;
}

/** A client that speaks only the original packets: DEQUEUE, ENQUEUE per outlink, STOREURL. */
async function originalClient(port: number, mix: LinkMix, budget: { left: number }): Promise<number> {
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
      const u = new URL(mix.fresh());
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
  client: Client,
  mixName: MixName,
  hosts: number,
  contender: Contender,
  urls: number,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-bench-server-'));
  const server = await startServer(dir, contender);
  try {
    // The mix is shared by the clients: a link one found is a link the others know.
    const mix = new LinkMix(mixName, hosts, OUTLINKS);
    await seed(server.port, mix, Math.max(4 * CLIENTS * BATCH, hosts));
    const cpuBefore = processCpuSeconds(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const budget = { left: urls };
    const started = performance.now();
    const counts = await Promise.all(Array.from({ length: CLIENTS }, () => client(server.port, mix, budget)));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = processCpuSeconds(server.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const peakRssBytes = await server.stop();
    return {
      run: label,
      server: contender.name,
      mix: mixName,
      hosts,
      urls: counts.reduce((a, b) => a + b, 0),
      seconds,
      serverCpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
      clientCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6,
      peakRssBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const batched = `batched packets (LEASE ${BATCH}, COMPLETE ${BATCH})`;
  const rows: Row[] = [];
  if (MIXES.includes('all-new')) {
    const oneUrl = `one-URL packets (DEQUEUE, ${OUTLINKS} ENQUEUE, STOREURL)`;
    for (const c of CONTENDERS)
      rows.push(
        await measure(
          oneUrl,
          originalClient,
          'all-new',
          HOST_COUNTS[0] as number,
          c,
          URLS_SET ?? DEFAULT_URLS,
        ),
      );
  }
  for (const hosts of HOST_COUNTS) {
    for (const mix of MIXES) {
      for (const c of CONTENDERS)
        rows.push(await measure(batched, batchedClient, mix, hosts, c, urlsPerRun(hosts)));
    }
  }
  console.log(describeMachine());
  console.log(
    `${CLIENTS} clients in one process, the URLs column's count leased and completed per run (${URLS_SET ?? '20,000, or 10 a host where that is more'}), ${OUTLINKS} outlinks each (all-new: 10 new; nine-known: 1 new, 9 added before, most on the page's host); server: no modules, its store as named\n`,
  );
  const against = CONTENDERS.find((c) => c.name === 'against');
  if (against !== undefined) console.log(`against: ${against.checkout}\n`);
  console.log(
    '| run | server | mix | hosts | URLs | seconds | URLs/s | server CPU s | server CPU µs/URL | clients CPU s | server peak RSS (MiB) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const perUrl = r.serverCpuSeconds === undefined ? '-' : ((r.serverCpuSeconds * 1e6) / r.urls).toFixed(0);
    console.log(
      `| ${r.run} | ${r.server} | ${r.mix} | ${r.hosts} | ${r.urls} | ${r.seconds.toFixed(2)} | ${(r.urls / r.seconds).toFixed(0)} | ${r.serverCpuSeconds?.toFixed(1) ?? '-'} | ${perUrl} | ${r.clientCpuSeconds.toFixed(1)} | ${(r.peakRssBytes / 2 ** 20).toFixed(1)} |`,
    );
  }
  for (const r of rows.filter((row) => row.run === batched && row.mix === 'nine-known')) {
    console.log(
      `\n${r.server}: batched, nine-known, ${r.hosts} hosts: ${(r.urls / r.seconds).toFixed(0)} URLs/s (target >= ${TARGET_NINE_KNOWN})`,
    );
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
