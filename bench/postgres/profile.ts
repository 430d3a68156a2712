// Where the PostgreSQL store's time goes: `npm run bench:postgres:profile`.
// The benchmark's work (bench/postgres/client.ts) on a cluster with pg_stat_statements, and
// for each run: CPU seconds of the server and of the clients per 1,000 URLs, the machine's
// share each got, WAL bytes per URL, what the server's backends were doing (sampled from
// pg_stat_activity every 20 ms), lock waits, and the statements by total time.
//   npm run bench:postgres:profile -- --sizes 1e5,1e6 --clients 1,4,16 --seconds 10
//   ... --builds .scratch/before,. --rounds 3   two builds (folders with a dist/), run by turns
//   ... --set wal_compression=lz4               a server setting besides the benchmark's
//   ... --socket                                 the clients connect over the Unix socket, not TCP
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../../test/helpers/postgres.js';
import { describeMachine } from '../report.js';
import { machineCpuSeconds, measureServerCpu, postmasterPid, type ServerCpu } from './cpu.js';
import { fill, percentile, repoDir, runClients } from './runs.js';
import { PG_SETTINGS } from './server-settings.js';

interface Args {
  sizes: number[];
  clients: number[];
  seconds: number;
  batch: number;
  builds: string[];
  rounds: number;
  top: number;
  /** Server settings besides the benchmark's (--set name=value). */
  settings: Record<string, string>;
  /** The clients connect over the server's Unix socket instead of TCP to 127.0.0.1. */
  socket: boolean;
  /** Seconds the clients work before each measured run. */
  warmup: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    sizes: [1e5],
    clients: [1],
    seconds: 10,
    batch: 64,
    builds: [repoDir],
    rounds: 1,
    top: 12,
    settings: {},
    socket: false,
    warmup: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => argv[++i] ?? '';
    if (arg === '--sizes') a.sizes = next().split(',').map(Number);
    else if (arg === '--clients') a.clients = next().split(',').map(Number);
    else if (arg === '--seconds') a.seconds = Number(next());
    else if (arg === '--batch') a.batch = Number(next());
    else if (arg === '--rounds') a.rounds = Number(next());
    else if (arg === '--top') a.top = Number(next());
    else if (arg === '--set') {
      const [k, v] = next().split('=');
      if (k === undefined || v === undefined) throw new Error('--set takes name=value');
      a.settings[k] = v;
    } else if (arg === '--socket') a.socket = true;
    else if (arg === '--warmup') a.warmup = Number(next());
    else if (arg === '--builds')
      a.builds = next()
        .split(',')
        .map((d) => resolve(d));
    else
      throw new Error(
        `unknown option ${arg}: use --sizes, --clients, --seconds, --batch, --rounds, --top, --set, --socket, --warmup or --builds`,
      );
  }
  return a;
}

/** What one run measured. */
interface Figures {
  completed: number;
  errors: number;
  leaseMs: number[];
  /** Lease calls answered with no lease. */
  empty: number;
  serverCpu: number;
  /** Of serverCpu, the background processes' (autovacuum, checkpointer, WAL writer). */
  backgroundCpu: number;
  clientCpu: number;
  /** The whole machine's CPU seconds in the run: busy (every process) and idle. */
  busy: number;
  idle: number;
  wal: WalRow;
  loads: number[];
  /** Backends of the benchmark's database, by what they were doing, summed over samples. */
  states: Map<string, number>;
  samples: number;
  /** Lock waits seen, by lock. */
  lockWaits: Map<string, number>;
}

interface WalRow {
  wal_records: number;
  wal_fpi: number;
  wal_bytes: number;
  wal_sync: number;
  wal_sync_time: number;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const cluster = await startPostgres({
    durable: true,
    settings: {
      ...PG_SETTINGS,
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track_planning': 'on',
      track_wal_io_timing: 'on',
      ...args.settings,
    },
  });
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(describeMachine());
  out(
    `server: ${Object.entries({ ...PG_SETTINGS, ...args.settings })
      .map(([k, v]) => `${k}=${v}`)
      .join(
        ' ',
      )}, fsync and synchronous_commit on; the clients connect over ${args.socket ? 'the Unix socket' : 'TCP to 127.0.0.1'}`,
  );
  const name = (build: string) => (build === repoDir ? 'this build' : build);
  try {
    for (const size of args.sizes) {
      const specs = new Map<string, string>();
      for (const build of args.builds) {
        const tcp = await cluster.createDatabase();
        const spec = args.socket ? cluster.socketUrl(tcp) : tcp;
        specs.set(build, spec);
        const seconds = await fill(spec, size, build);
        out(`${name(build)}: filled ${size} in ${seconds.toFixed(1)} s`);
      }
      for (const clients of args.clients) {
        const runs = new Map<string, Figures[]>(args.builds.map((b) => [b, []]));
        // Builds take turns, round by round, so a slow spell of the machine weighs on each.
        for (let round = 1; round <= args.rounds; round++) {
          for (const build of args.builds) {
            const f = await measureRun(args, build, specs.get(build) as string, size, clients, round);
            runs.get(build)?.push(f);
            out(`${name(build)}, ${size} filled, ${clients} clients, round ${round}: ${summary(f, args)}`);
          }
        }
        for (const build of args.builds) {
          out();
          out(`## ${name(build)}: ${size} filled, ${clients} clients, ${args.rounds} x ${args.seconds} s`);
          report(runs.get(build) ?? [], args, out);
          await statements(specs.get(build) as string, args, runs.get(build) ?? [], out);
        }
      }
    }
  } finally {
    await cluster.stop();
  }
  return 0;
}

async function measureRun(
  args: Args,
  build: string,
  spec: string,
  size: number,
  clients: number,
  round: number,
): Promise<Figures> {
  const admin = new pg.Client({ connectionString: spec });
  await admin.connect();
  const sampler = new pg.Client({ connectionString: spec });
  await sampler.connect();
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const postmaster = await postmasterPid(admin);
    // set when the measured time starts
    const at: {
      begin?: {
        server: { stop: () => ServerCpu };
        machine: ReturnType<typeof machineCpuSeconds>;
        wal: WalRow;
      };
      sampling?: ReturnType<typeof sampleActivity>;
    } = {};
    const loads: number[] = [];
    const loadTimer = setInterval(() => loads.push(loadavg()[0] as number), 1000);
    const results = await runClients({
      spec,
      clients,
      seconds: args.seconds,
      batch: args.batch,
      filled: size,
      tag: `p${clients}r${round}`,
      build,
      warmupSeconds: args.warmup,
      onStart: async () => {
        // The statements are counted over every round of a build at a client count.
        if (round === 1)
          await admin.query(
            'SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)',
          );
        at.begin = {
          server: measureServerCpu(postmaster),
          machine: machineCpuSeconds(),
          wal: await wal(admin),
        };
        at.sampling = sampleActivity(sampler);
      },
    });
    clearInterval(loadTimer);
    if (at.begin === undefined || at.sampling === undefined) throw new Error('the run did not start');
    const sample = await at.sampling.stop();
    const start = at.begin;
    // The clients stop asking at the end time but finish the calls in flight: close enough at 10 s.
    const server = start.server.stop();
    const machine = machineCpuSeconds();
    const walEnd = await wal(admin);
    return {
      completed: results.reduce((s, r) => s + r.completed, 0),
      errors: results.reduce((s, r) => s + r.errors, 0),
      leaseMs: results.flatMap((r) => r.leaseMs),
      empty: results.reduce((s, r) => s + r.empty, 0),
      serverCpu: server.backends + server.background,
      backgroundCpu: server.background,
      clientCpu: results.reduce((s, r) => s + r.cpuMs, 0) / 1000,
      busy: machine.busy - start.machine.busy,
      idle: machine.idle - start.machine.idle,
      wal: Object.fromEntries(
        Object.keys(walEnd).map((k) => [k, walEnd[k as keyof WalRow] - start.wal[k as keyof WalRow]]),
      ) as unknown as WalRow,
      loads: loads.length > 0 ? loads : [loadavg()[0] as number],
      ...sample,
    };
  } finally {
    await sampler.end();
    await admin.end();
  }
}

function summary(f: Figures, args: Args): string {
  const k = f.completed / 1000;
  const sorted = [...f.leaseMs].sort((a, b) => a - b);
  return `${(f.completed / args.seconds).toFixed(0)} URLs/s, CPU s per 1,000 URLs: server ${(f.serverCpu / k).toFixed(3)}, clients ${(f.clientCpu / k).toFixed(3)}; lease p50 ${percentile(sorted, 50).toFixed(1)} ms, ${f.leaseMs.length} lease calls (${f.empty} with none); load ${Math.min(...f.loads).toFixed(1)}-${Math.max(...f.loads).toFixed(1)}${f.errors > 0 ? `; ${f.errors} calls failed` : ''}`;
}

/** The rounds of one build together: sums, and the spread of the per-round figures. */
function report(runs: readonly Figures[], args: Args, out: (line?: string) => void): void {
  const sum = (f: (r: Figures) => number) => runs.reduce((s, r) => s + f(r), 0);
  const completed = sum((r) => r.completed);
  const k = completed / 1000;
  const serverCpu = sum((r) => r.serverCpu);
  const clientCpu = sum((r) => r.clientCpu);
  const busy = sum((r) => r.busy);
  const idle = sum((r) => r.idle);
  const spread = (f: (r: Figures) => number) => {
    const v = runs.map(f).sort((a, b) => a - b);
    return `${(v[0] as number).toFixed(3)}-${(v[v.length - 1] as number).toFixed(3)}`;
  };
  const latencies = runs.flatMap((r) => r.leaseMs).sort((a, b) => a - b);
  const loads = runs.flatMap((r) => r.loads);
  const pct = (part: number) => `${((part / (busy + idle)) * 100).toFixed(0)}%`;
  out(
    `${(completed / (args.seconds * runs.length)).toFixed(0)} URLs/s; lease p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  );
  out(
    `CPU s per 1,000 URLs: server ${(serverCpu / k).toFixed(3)} (${(sum((r) => r.backgroundCpu) / k).toFixed(3)} of it in background processes; rounds ${spread((r) => r.serverCpu / (r.completed / 1000))}), clients ${(clientCpu / k).toFixed(3)} (rounds ${spread((r) => r.clientCpu / (r.completed / 1000))})`,
  );
  out(
    `of the machine's ${(busy + idle).toFixed(1)} CPU s: server ${pct(serverCpu)}, clients ${pct(clientCpu)}, other work ${pct(busy - serverCpu - clientCpu)}, idle ${pct(idle)}`,
  );
  const w = (f: keyof WalRow) => sum((r) => r.wal[f]);
  out(
    `WAL per URL: ${(w('wal_bytes') / completed).toFixed(0)} bytes, ${(w('wal_records') / completed).toFixed(1)} records, ${(w('wal_fpi') / completed).toFixed(2)} full pages; ${w('wal_sync')} flushes (${(w('wal_sync_time') / Math.max(1, w('wal_sync'))).toFixed(2)} ms each)`,
  );
  const samples = sum((r) => r.samples);
  const states = new Map<string, number>();
  const waits = new Map<string, number>();
  for (const r of runs) {
    for (const [s, n] of r.states) states.set(s, (states.get(s) ?? 0) + n);
    for (const [s, n] of r.lockWaits) waits.set(s, (waits.get(s) ?? 0) + n);
  }
  out(
    `backends, mean per sample (${samples} samples): ${[...states]
      .sort((a, b) => b[1] - a[1])
      .map(([s, n]) => `${s} ${(n / samples).toFixed(2)}`)
      .join(', ')}`,
  );
  out(
    `lock waits seen: ${
      waits.size === 0
        ? 'none'
        : [...waits]
            .sort((a, b) => b[1] - a[1])
            .map(([s, n]) => `${s} (${n} samples)`)
            .join(', ')
    }`,
  );
  const errors = sum((r) => r.errors);
  if (errors > 0) out(`${errors} calls failed`);
}

/** What the benchmark database's backends do, every 20 ms until stopped. */
function sampleActivity(client: pg.Client): {
  stop: () => Promise<Pick<Figures, 'states' | 'samples' | 'lockWaits'>>;
} {
  const s = { states: new Map<string, number>(), samples: 0, lockWaits: new Map<string, number>() };
  let running = true;
  const loop = (async () => {
    while (running) {
      const r = await client.query<{ what: string; n: number }>(
        `SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || ':' || wait_event, 'on CPU (or waiting for it)')
                     ELSE state END AS what, count(*)::int AS n
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`,
      );
      for (const row of r.rows) s.states.set(row.what, (s.states.get(row.what) ?? 0) + row.n);
      // Who waits for a lock, in which statement (its first words), for what kind of lock.
      const w = await client.query<{ what: string; n: number }>(
        `SELECT l.locktype || ' ' || coalesce(l.relation::regclass::text, '') || ' ' || l.mode || ', in: '
                  || left(regexp_replace(a.query, '[[:space:]]+', ' ', 'g'), 60) AS what, count(*)::int AS n
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted GROUP BY 1`,
      );
      for (const row of w.rows) s.lockWaits.set(row.what, (s.lockWaits.get(row.what) ?? 0) + row.n);
      s.samples++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return s;
    },
  };
}

interface Statement {
  query: string;
  calls: number;
  total_exec_time: number;
  total_plan_time: number;
  rows: number;
  shared_blks_hit: number;
  shared_blks_read: number;
  shared_blks_dirtied: number;
  wal_bytes: number;
}

/** The statements of the rounds (pg_stat_statements), by total time; the profile's own are left out. */
async function statements(
  spec: string,
  args: Args,
  runs: readonly Figures[],
  out: (line?: string) => void,
): Promise<void> {
  const admin = new pg.Client({ connectionString: spec });
  await admin.connect();
  try {
    const rows = (
      await admin.query<Statement>(
        `SELECT query, calls::float8 AS calls, total_exec_time, total_plan_time, rows::float8 AS rows,
                shared_blks_hit::float8 AS shared_blks_hit, shared_blks_read::float8 AS shared_blks_read,
                shared_blks_dirtied::float8 AS shared_blks_dirtied, wal_bytes::float8 AS wal_bytes
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query !~ 'pg_stat_activity|pg_locks|pg_stat_statements|pg_stat_wal|pg_backend_pid\\(\\) AS pid|CHECKPOINT|CREATE EXTENSION'
         ORDER BY total_exec_time + total_plan_time DESC`,
      )
    ).rows;
    const completed = runs.reduce((s, r) => s + r.completed, 0);
    const k = completed / 1000;
    const total = rows.reduce((s, r) => s + r.total_exec_time + r.total_plan_time, 0);
    const serverCpu = runs.reduce((s, r) => s + r.serverCpu, 0);
    out(
      `statements: ${(total / 1000).toFixed(2)} s of planning and execution (wall time, waits for the CPU included; the server's CPU: ${serverCpu.toFixed(2)} s), ${(rows.reduce((s, r) => s + r.calls, 0) / (completed / args.batch)).toFixed(1)} statements per batch of ${args.batch} leased and completed`,
    );
    out();
    out(
      '| ms per 1,000 URLs | calls per 1,000 URLs | ms per call | of which planning | rows per call | blocks hit / read / dirtied per call | WAL bytes per call | statement |',
    );
    out('|---|---|---|---|---|---|---|---|');
    for (const s of rows.slice(0, args.top)) {
      const per = (v: number) => (v / s.calls).toFixed(1);
      out(
        `| ${((s.total_exec_time + s.total_plan_time) / k).toFixed(1)} | ${(s.calls / k).toFixed(1)} | ${((s.total_exec_time + s.total_plan_time) / s.calls).toFixed(3)} | ${(s.total_plan_time / s.calls).toFixed(3)} | ${per(s.rows)} | ${per(s.shared_blks_hit)} / ${per(s.shared_blks_read)} / ${per(s.shared_blks_dirtied)} | ${per(s.wal_bytes)} | ${oneLine(s.query)} |`,
      );
    }
  } finally {
    await admin.end();
  }
}

async function wal(client: pg.Client): Promise<WalRow> {
  const r = await client.query<WalRow>(
    `SELECT wal_records::float8 AS wal_records, wal_fpi::float8 AS wal_fpi, wal_bytes::float8 AS wal_bytes,
            wal_sync::float8 AS wal_sync, wal_sync_time FROM pg_stat_wal`,
  );
  return r.rows[0] as WalRow;
}

function oneLine(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return (flat.length > 120 ? `${flat.slice(0, 120)}...` : flat).replace(/\|/g, '\\|');
}

process.exitCode = await main();
