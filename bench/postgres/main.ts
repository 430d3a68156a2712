// The PostgreSQL store's benchmark: `npm run bench:postgres`.
// Lease a batch + complete it with 10 outlinks each (5 new, 5 met before), with 1, 4 and 16
// client processes, at 10^5 and 10^6 URLs queued, on PostgreSQL and on the embedded SQLite
// store, side by side in one table.
//   npm run bench:postgres                       sizes 10^5 and 10^6
//   npm run bench:postgres -- --huge             also 10^7
//   npm run bench:postgres -- --sizes 1e5 --clients 1,4 --seconds 5 --batch 64
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type PgCluster, postgresUnavailable, startPostgres } from '../../test/helpers/postgres.js';
import { describeMachine } from '../report.js';
import { fill, openStore, percentile, runClients } from './runs.js';
import { PG_SETTINGS } from './server-settings.js';
import { hostsFor, KNOWN_OUTLINKS, NEW_OUTLINKS } from './work.js';

interface Args {
  sizes: number[];
  clients: number[];
  seconds: number;
  batch: number;
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
  mbPerMillion: number;
  /** Failed calls, and the first failure's message. */
  errors: number;
  firstError: string | null;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { sizes: [1e5, 1e6], clients: [1, 4, 16], seconds: 10, batch: 64 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const list = () => (argv[++i] ?? '').split(',').map(Number);
    if (arg === '--huge') a.sizes = [...a.sizes, 1e7];
    else if (arg === '--sizes') a.sizes = list();
    else if (arg === '--clients') a.clients = list();
    else if (arg === '--seconds') a.seconds = Number(argv[++i]);
    else if (arg === '--batch') a.batch = Number(argv[++i]);
    else throw new Error(`unknown option ${arg}: use --huge, --sizes, --clients, --seconds or --batch`);
  }
  const whole = (n: number) => Number.isInteger(n) && n > 0;
  if (![...a.sizes, ...a.clients, a.seconds, a.batch].every(whole))
    throw new Error('--sizes, --clients, --seconds and --batch take whole numbers above 0');
  return a;
}

/** A store to measure: its spec, and how big it is on disk. */
interface Contender {
  store: string;
  spec: string;
  bytes(): Promise<number>;
  dispose(): Promise<void>;
}

async function postgresContender(cluster: PgCluster): Promise<Contender> {
  const spec = await cluster.createDatabase();
  return {
    store: 'postgres',
    spec,
    async bytes() {
      const client = new pg.Client({ connectionString: spec });
      await client.connect();
      try {
        await client.query('CHECKPOINT');
        const r = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
        return Number(r.rows[0]?.n);
      } finally {
        await client.end();
      }
    },
    async dispose() {},
  };
}

function sqliteContender(): Contender {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-bench-sqlite-'));
  return {
    store: 'sqlite',
    spec: `sqlite:${join(dir, 'frontier.db')}`,
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
          const fillSeconds = await fill(c.spec, size);
          log(`${c.store}: ${size} URLs queued over ${hostsFor(size)} hosts in ${fillSeconds.toFixed(1)} s`);
          for (const clients of args.clients) {
            const before = await openStore(c.spec);
            const queued = (await before.stats()).queued;
            await before.close();
            const results = await runClients({
              spec: c.spec,
              clients,
              seconds: args.seconds,
              batch: args.batch,
              filled: size,
              tag: `r${clients}`,
            });
            const completed = results.reduce((sum, r) => sum + r.completed, 0);
            const latencies = results.flatMap((r) => r.leaseMs).sort((a, b) => a - b);
            const after = await openStore(c.spec);
            const total = await rowsOf(after);
            await after.close();
            const row: Row = {
              store: c.store,
              size,
              queued,
              clients,
              urlsPerSec: completed / args.seconds,
              p50: percentile(latencies, 50),
              p99: percentile(latencies, 99),
              mbPerMillion: (await c.bytes()) / 2 ** 20 / (total / 1e6),
              errors: results.reduce((sum, r) => sum + r.errors, 0),
              firstError: results.find((r) => r.firstError !== null)?.firstError ?? null,
            };
            rows.push(row);
            log(
              `${c.store} ${clients} clients at ${queued} queued: ${row.urlsPerSec.toFixed(0)} URLs/s, lease p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms`,
            );
          }
        } finally {
          await c.dispose();
        }
      }
    }
  } finally {
    await cluster.stop();
  }
  process.stdout.write(`${describeMachine()}\n`);
  process.stdout.write(
    `work: lease ${args.batch} + complete them with ${NEW_OUTLINKS + KNOWN_OUTLINKS} outlinks each (${NEW_OUTLINKS} new, ${KNOWN_OUTLINKS} met before), ${args.seconds} s per run; PostgreSQL ${Object.entries(
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
  const lines = [
    '| queued at start | clients | postgres URLs/s | postgres lease p50 / p99 ms | sqlite URLs/s | sqlite lease p50 / p99 ms |',
    '|---|---|---|---|---|---|',
  ];
  const pgRows = rows.filter((r) => r.store === 'postgres');
  const sqliteRows = rows.filter((r) => r.store === 'sqlite');
  pgRows.forEach((p, i) => {
    const s = sqliteRows[i];
    const cell = (r: Row | undefined) =>
      r === undefined ? ['-', '-'] : [r.urlsPerSec.toFixed(0), `${r.p50.toFixed(2)} / ${r.p99.toFixed(2)}`];
    lines.push(`| ${p.queued} | ${p.clients} | ${cell(p).join(' | ')} | ${cell(s).join(' | ')} |`);
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
      `| ${store} | ${last.map((r) => (r === undefined ? '-' : r.mbPerMillion.toFixed(0))).join(' | ')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

process.exitCode = await main();
