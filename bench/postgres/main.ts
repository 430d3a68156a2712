// The PostgreSQL store's benchmark: `npm run bench:postgres`.
// Lease a batch + complete it with 10 outlinks each (5 new, 5 met before), with 1, 4 and 16
// client processes, at 10^5 and 10^6 URLs queued, on PostgreSQL and on the embedded SQLite
// store, side by side in one table.
//   npm run bench:postgres                       sizes 10^5 and 10^6
//   npm run bench:postgres -- --huge             also 10^7
//   npm run bench:postgres -- --sizes 1e5 --clients 1,4 --seconds 5 --batch 64
//   npm run bench:postgres -- --build DIR         another build's dist/ (a before/after)
//   npm run bench:postgres -- --warmup 3          seconds of work before each measured run
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type PgCluster, postgresUnavailable, startPostgres } from '../../test/helpers/postgres.js';
import { withClient } from '../pg-client.js';
import { describeMachine } from '../report.js';
import { measureServerCpu, postmasterPid, type ServerCpu } from './cpu.js';
import { fill, openStore, percentile, repoDir, runClients } from './runs.js';
import { PG_SETTINGS } from './server-settings.js';
import { hostsFor, KNOWN_OUTLINKS, NEW_OUTLINKS } from './work.js';

interface Args {
  sizes: number[];
  clients: number[];
  seconds: number;
  batch: number;
  /** A folder with the dist/ to measure: this checkout's, or another build. */
  build: string;
  /** Seconds the clients work before each measured run. */
  warmup: number;
}

interface Row {
  store: string;
  /** URLs the fill queued. */
  size: number;
  queued: number;
  clients: number;
  urlsPerSec: number;
  p50: number;
  p99: number;
  /** CPU seconds per 1,000 URLs completed: the database server's (PostgreSQL; null for SQLite), the clients'. */
  serverCpu: ServerCpu | null;
  clientCpu: number;
  /** The 1-minute load average during the run: lowest and highest. */
  loads: [number, number];
  /** Measured after the last run at a size (null before): the fill and every outlink the runs added. */
  mbPerMillion: number | null;
  /** Failed calls, and the first failure's message. */
  errors: number;
  firstError: string | null;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    sizes: [1e5, 1e6],
    clients: [1, 4, 16],
    seconds: 10,
    batch: 64,
    build: repoDir,
    warmup: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const list = () => (argv[++i] ?? '').split(',').map(Number);
    if (arg === '--huge') a.sizes = [...a.sizes, 1e7];
    else if (arg === '--sizes') a.sizes = list();
    else if (arg === '--clients') a.clients = list();
    else if (arg === '--seconds') a.seconds = Number(argv[++i]);
    else if (arg === '--batch') a.batch = Number(argv[++i]);
    else if (arg === '--build') a.build = resolve(argv[++i] ?? '.');
    else if (arg === '--warmup') a.warmup = Number(argv[++i]);
    else
      throw new Error(
        `unknown option ${arg}: use --huge, --sizes, --clients, --seconds, --warmup, --batch or --build`,
      );
  }
  const whole = (n: number) => Number.isInteger(n) && n > 0;
  if (![...a.sizes, ...a.clients, a.seconds, a.batch].every(whole))
    throw new Error('--sizes, --clients, --seconds and --batch take whole numbers above 0');
  return a;
}

/** A store to measure: its spec, how big it is on disk, and the CPU its server used so far. */
interface Contender {
  store: string;
  spec: string;
  bytes(): Promise<number>;
  /** Starts measuring the server's CPU; null: no server (the clients do the store's work). */
  measureServer(): { stop: () => ServerCpu } | null;
  dispose(): Promise<void>;
}

async function postgresContender(cluster: PgCluster): Promise<Contender> {
  const spec = await cluster.createDatabase();
  const postmaster = await withClient(spec, postmasterPid);
  return {
    store: 'postgres',
    spec,
    measureServer: () => measureServerCpu(postmaster),
    bytes: () =>
      withClient(spec, async (client) => {
        await client.query('CHECKPOINT');
        const r = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
        return Number(r.rows[0]?.n);
      }),
    async dispose() {},
  };
}

function sqliteContender(): Contender {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-bench-sqlite-'));
  return {
    store: 'sqlite',
    spec: `sqlite:${join(dir, 'frontier.db')}`,
    measureServer: () => null,
    async bytes() {
      return readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function rowsOf(f: Awaited<ReturnType<typeof openStore>>): Promise<number> {
  const s = await f.stats();
  return s.queued + s.leased + s.retrying + s.done + s.failed + s.rejected;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const why = postgresUnavailable();
  if (why !== null) {
    process.stderr.write(`bench:postgres needs a PostgreSQL server: ${why}\n`);
    return 1;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = await startPostgres({ durable: true, settings: PG_SETTINGS });
  const rows: Row[] = [];
  try {
    for (const size of args.sizes) {
      for (const make of [() => postgresContender(cluster), async () => sqliteContender()]) {
        const c = await make();
        try {
          const fillSeconds = await fill(c.spec, size, args.build);
          log(`${c.store}: ${size} URLs queued over ${hostsFor(size)} hosts in ${fillSeconds.toFixed(1)} s`);
          for (const clients of args.clients) {
            let queued = 0;
            const loads: number[] = [];
            const loadTimer = setInterval(() => loads.push(loadavg()[0] as number), 1000);
            let server: { stop: () => ServerCpu } | null = null;
            const results = await runClients({
              spec: c.spec,
              clients,
              seconds: args.seconds,
              batch: args.batch,
              filled: size,
              tag: `r${clients}`,
              build: args.build,
              warmupSeconds: args.warmup,
              onStart: async () => {
                server = c.measureServer();
                const now = await openStore(c.spec, args.build);
                queued = (await now.stats()).queued;
                await now.close();
              },
            });
            clearInterval(loadTimer);
            const serverCpu = (server as { stop: () => ServerCpu } | null)?.stop() ?? null;
            const completed = results.reduce((sum, r) => sum + r.completed, 0);
            const latencies = results.flatMap((r) => r.leaseMs).sort((a, b) => a - b);
            const k = completed / 1000;
            const row: Row = {
              store: c.store,
              size,
              queued,
              clients,
              urlsPerSec: completed / args.seconds,
              p50: percentile(latencies, 50),
              p99: percentile(latencies, 99),
              serverCpu:
                serverCpu === null
                  ? null
                  : { backends: serverCpu.backends / k, background: serverCpu.background / k },
              clientCpu: results.reduce((sum, r) => sum + r.cpuMs, 0) / 1000 / k,
              loads:
                loads.length === 0
                  ? [loadavg()[0] as number, loadavg()[0] as number]
                  : [Math.min(...loads), Math.max(...loads)],
              mbPerMillion: null,
              errors: results.reduce((sum, r) => sum + r.errors, 0),
              firstError: results.find((r) => r.firstError !== null)?.firstError ?? null,
            };
            rows.push(row);
            log(
              `${c.store} ${clients} clients at ${queued} queued: ${row.urlsPerSec.toFixed(0)} URLs/s, lease p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, load ${row.loads[0].toFixed(1)}-${row.loads[1].toFixed(1)}`,
            );
          }
          // The size once the runs at this size are over (a checkpoint between runs would make
          // every page's next change in the next run write a full page image to the WAL).
          const after = await openStore(c.spec, args.build);
          const total = await rowsOf(after);
          await after.close();
          const last = rows[rows.length - 1] as Row;
          last.mbPerMillion = (await c.bytes()) / 2 ** 20 / (total / 1e6);
        } finally {
          await c.dispose();
        }
      }
    }
  } finally {
    await cluster.stop();
  }
  process.stdout.write(`${describeMachine()}\n`);
  if (args.build !== repoDir) process.stdout.write(`build measured: ${args.build}\n`);
  process.stdout.write(
    `work: lease ${args.batch} + complete them with ${NEW_OUTLINKS + KNOWN_OUTLINKS} outlinks each (${NEW_OUTLINKS} new, ${KNOWN_OUTLINKS} met before), ${args.seconds} s measured per run after ${args.warmup} s of the same work; PostgreSQL ${Object.entries(
      PG_SETTINGS,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}, fsync and synchronous_commit on; SQLite WAL, synchronous=NORMAL\n\n`,
  );
  process.stdout.write(table(rows));
  return 0;
}

/** Both stores side by side: one line per size and client count. */
function table(rows: readonly Row[]): string {
  const cores = availableParallelism();
  const lines = [
    `| queued at measured start | clients | postgres URLs/s | postgres lease p50 / p99 ms | postgres CPU s per 1,000 URLs: server's connections + its background work + clients | postgres URLs/s at that CPU on ${cores} free cores | sqlite URLs/s | sqlite lease p50 / p99 ms | sqlite CPU s per 1,000 URLs | load average (postgres run; sqlite run) |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const pgRows = rows.filter((r) => r.store === 'postgres');
  const sqliteRows = rows.filter((r) => r.store === 'sqlite');
  const load = (r: Row | undefined) =>
    r === undefined ? '-' : `${r.loads[0].toFixed(1)}-${r.loads[1].toFixed(1)}`;
  pgRows.forEach((p, i) => {
    const s = sqliteRows[i];
    const cell = (r: Row | undefined) =>
      r === undefined ? ['-', '-'] : [r.urlsPerSec.toFixed(0), `${r.p50.toFixed(2)} / ${r.p99.toFixed(2)}`];
    const pgCpu =
      p.serverCpu === null
        ? '-'
        : `${p.serverCpu.backends.toFixed(3)} + ${p.serverCpu.background.toFixed(3)} + ${p.clientCpu.toFixed(3)}`;
    // What the machine would do if the store and its clients had every core at this CPU per URL.
    const alone =
      p.serverCpu === null
        ? '-'
        : ((cores * 1000) / (p.serverCpu.backends + p.serverCpu.background + p.clientCpu)).toFixed(0);
    const sqliteCpu = s === undefined ? '-' : s.clientCpu.toFixed(3);
    lines.push(
      `| ${p.queued} | ${p.clients} | ${cell(p).join(' | ')} | ${pgCpu} | ${alone} | ${cell(s).join(' | ')} | ${sqliteCpu} | ${load(p)}; ${load(s)} |`,
    );
  });
  for (const r of rows.filter((x) => x.errors > 0)) {
    lines.push('');
    lines.push(
      `${r.store}, ${r.clients} clients at ${r.queued} queued: ${r.errors} calls failed (${r.firstError})`,
    );
  }
  lines.push('');
  const sizes = [...new Set(rows.map((r) => r.size))];
  lines.push(`| store | ${sizes.map((n) => `MB per 10^6 URLs, filled with ${n}`).join(' | ')} |`);
  lines.push(`|---|${sizes.map(() => '---|').join('')}`);
  for (const store of ['postgres', 'sqlite']) {
    // measured after the last run at each size: the fill and every outlink the runs added
    const last = sizes.map((n) => rows.filter((r) => r.store === store && r.size === n).pop());
    lines.push(
      `| ${store} | ${last.map((r) => (r?.mbPerMillion == null ? '-' : r.mbPerMillion.toFixed(0))).join(' | ')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

process.exitCode = await main();
