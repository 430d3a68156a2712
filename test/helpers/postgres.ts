import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './cli-process.js';

/**
 * A throwaway PostgreSQL cluster for tests (and the benchmark): initdb and pg_ctl in a
 * temp folder, listening on 127.0.0.1 only, on a free port, with its unix socket inside
 * that folder, and stopped (and removed) afterwards. One cluster per test file; a fresh
 * database per test (createDatabase).
 *
 * The server binaries are looked for in COBWEB_PG_BIN, else the newest
 * /usr/lib/postgresql/N/bin (Debian's `postgresql` package, which .ci/run installs).
 *
 * Root: initdb and postgres refuse to run as root. When this process is root (CI and
 * the sandboxes here are), the cluster's folder is given to an unprivileged user and
 * every server command runs as that user through `runuser -u USER --` (util-linux, on
 * every Debian; it needs no password and no tty, unlike su): the `postgres` user that
 * Debian's package makes, else `nobody`. Tests connect over TCP with a password, so
 * the user the server runs as does not matter to them.
 */

export const PG_USER = 'cobweb';
export const PG_PASSWORD = 'cobweb-test-password';

/** The folder with initdb, pg_ctl and postgres, or null. */
export function postgresBin(): string | null {
  const given = process.env.COBWEB_PG_BIN;
  const candidates =
    given !== undefined && given !== ''
      ? [given]
      : existsSync('/usr/lib/postgresql')
        ? readdirSync('/usr/lib/postgresql')
            .filter((v) => /^\d+$/.test(v))
            .sort((a, b) => Number(b) - Number(a))
            .map((v) => `/usr/lib/postgresql/${v}/bin`)
        : [];
  return candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'))) ?? null;
}

/** Why PostgreSQL tests cannot run here, or null. */
export function postgresUnavailable(): string | null {
  if (postgresBin() === null) {
    return "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or COBWEB_PG_BIN; .ci/run installs Debian's postgresql package";
  }
  if (isRoot() && serverUser() === null)
    return 'running as root and no unprivileged user (postgres, nobody) to run initdb as';
  return null;
}

export interface PgCluster {
  port: number;
  /** postgres://cobweb:PASSWORD@127.0.0.1:PORT/DB */
  url(database: string): string;
  /** The same database over the server's Unix socket (trusted: no password). */
  socketUrl(tcpUrl: string): string;
  /** A new, empty database; resolves to its connection string. */
  createDatabase(): Promise<string>;
  /** pg_ctl restart (fast): every connection is cut, the server comes back on the same port. */
  restart(): Promise<void>;
  /** pg_ctl stop, then the cluster's folder is removed. */
  stop(): Promise<void>;
  /** The postmaster's pid (the first line of postmaster.pid), or undefined when it is not running. */
  serverPid(): number | undefined;
}

export interface PgClusterOptions {
  /** Keep fsync and synchronous commits on (the benchmark's figures); tests turn them off for speed. */
  durable?: boolean;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

const running = new Set<string>();
process.on('exit', () => {
  // A test process that ends without its afterAll (a crash, a timeout) leaves no server behind.
  for (const dir of running)
    runAsServer(['pg_ctl', '-D', join(dir, 'data'), 'stop', '-m', 'immediate'], true);
});

export async function startPostgres(options: PgClusterOptions = {}): Promise<PgCluster> {
  const why = postgresUnavailable();
  if (why !== null) throw new Error(`cannot start PostgreSQL: ${why}`);
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-pg-'));
  if (isRoot()) {
    const { uid, gid } = serverUser() as { uid: number; gid: number };
    chownSync(dir, uid, gid);
  }
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (isRoot()) {
    const { uid, gid } = serverUser() as { uid: number; gid: number };
    chownSync(pwfile, uid, gid);
  }
  runAsServer([
    'initdb',
    '-D',
    join(dir, 'data'),
    '-U',
    PG_USER,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--locale=C',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    max_connections: '200',
    ...(options.durable === true ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...options.settings,
  };
  let port = 0;
  // The port is free when asked, but another process may take it before the server
  // binds it: then the start fails with "could not bind", and another port is tried.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const config = Object.entries({ ...settings, port: String(port) })
      .map(([k, v]) => `${k} = '${v}'`)
      .join('\n');
    writeFileSync(join(dir, 'data', 'postgresql.auto.conf'), `${config}\n`);
    const started = runAsServer(pgCtl(dir, 'start'), true);
    if (started.ok) break;
    const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : '';
    if (attempt >= 10 || !/could not bind|already in use/i.test(log)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pg_ctl start failed: ${started.output}\n${log.slice(-2000)}`);
    }
  }
  running.add(dir);
  let databases = 0;
  const url = (db: string) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${db}`;
  return {
    port,
    url,
    socketUrl(tcpUrl) {
      const db = new URL(tcpUrl).pathname.slice(1);
      return `postgres://${PG_USER}@/${db}?host=${encodeURIComponent(dir)}&port=${port}`;
    },
    async createDatabase() {
      const name = `cobweb_test_${++databases}`;
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart() {
      // Not in this thread: the test's own servers (a web the bunnies fetch) keep answering meanwhile.
      const r = await runAsServerAsync(pgCtl(dir, 'restart', ['-m', 'fast']));
      if (!r.ok) throw new Error(`pg_ctl restart failed: ${r.output}`);
    },
    serverPid() {
      try {
        const pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      runAsServer(pgCtl(dir, 'stop', ['-m', 'fast']), true);
      running.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function pgCtl(dir: string, command: string, extra: string[] = []): string[] {
  return ['pg_ctl', '-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', '-t', '60', command, ...extra];
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

let cachedUser: { name: string; uid: number; gid: number } | null | undefined;

/** The unprivileged user the server runs as when this process is root. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (cachedUser !== undefined) return cachedUser;
  cachedUser = null;
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (r.status === 0 && g.status === 0) {
      cachedUser = { name, uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
      break;
    }
  }
  return cachedUser;
}

/** The command line that runs a server binary, as the unprivileged user when root. */
function serverCommand(args: string[]): { file: string; argv: string[]; env: NodeJS.ProcessEnv } {
  const bin = postgresBin() as string;
  const [tool, ...rest] = args as [string, ...string[]];
  const command = join(bin, tool);
  const user = isRoot() ? serverUser() : null;
  const [file, argv] =
    user === null ? [command, rest] : ['runuser', ['-u', user.name, '--', command, ...rest]];
  // A clean environment: no PG* variables of the caller's, the C locale.
  return { file, argv, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' } };
}

/** runAsServer without blocking this thread: the test's own servers keep answering meanwhile. */
function runAsServerAsync(args: string[]): Promise<{ ok: boolean; output: string }> {
  const { file, argv, env } = serverCommand(args);
  return new Promise((resolve) => {
    execFile(file, argv, { env, encoding: 'utf8', cwd: '/' }, (err, stdout, stderr) =>
      resolve({ ok: err === null, output: `${stdout}${stderr}` }),
    );
  });
}

/** Runs a server binary (as the unprivileged user when root); throws unless `soft`. */
function runAsServer(args: string[], soft = false): { ok: boolean; output: string } {
  const { file, argv, env } = serverCommand(args);
  try {
    const output = execFileSync(file, argv, {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: '/',
    });
    return { ok: true, output };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
    if (soft) return { ok: false, output };
    throw new Error(`${args[0]} failed: ${output}`);
  }
}
