import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CliProcess, cobweb } from './cli-process.js';
import type { Handler, TestServer } from './http.js';
import { readJsonLines } from './json-lines.js';
import { folderAndSites } from './test-folder.js';

/** One JSON line of a --log-file (pino's: level, time, msg, and the event's fields). */
export interface LogLine {
  level: number;
  msg: string;
  event?: string;
  [field: string]: unknown;
}

/** pino's level numbers. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export interface ServerProcesses {
  /** This test's folder: the server's and the bunnies' --data folders go in it. */
  readonly dir: string;
  /** A routes() site on a loopback address, closed after the test. */
  site(address: string, table: Record<string, Handler | string>): Promise<TestServer>;
  /** `cobweb server` on a port the system picks, with --data DIR/server; resolves once it listens. */
  server(args: string[]): Promise<CliProcess & { port: number }>;
  /** `cobweb bunny --server` for it, with --data DIR/NAME. */
  bunny(name: string, port: number, args?: string[]): CliProcess;
  /** The lines of a --log-file (none yet: an empty list). */
  logLines(file: string): LogLine[];
  /** The one JSON object a --json command printed last on stdout. */
  summaryOf(p: CliProcess): Record<string, unknown>;
}

/**
 * `cobweb server` and `cobweb bunny` as a user runs them, as processes: a fresh folder per
 * test, sites on 127.0.0.x, and every process and site stopped after the test. Call once at
 * the top level of a test file.
 */
export function serverProcesses(name: string): ServerProcesses {
  const processes: CliProcess[] = [];
  const folder = folderAndSites(name, () => {
    for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  const run = (args: string[]) => {
    const p = cobweb(args);
    processes.push(p);
    return p;
  };
  return {
    get dir() {
      return folder.dir;
    },
    site: (address, table) => folder.site(address, table),
    async server(args) {
      const s = run(['server', '--data', join(folder.dir, 'server'), '--listen', '127.0.0.1:0', ...args]);
      const m = await s.line(/server listening on [^\s]+:(\d+)/);
      return Object.assign(s, { port: Number(m[1]) });
    },
    bunny: (bunnyName, port, args = []) =>
      run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(folder.dir, bunnyName), ...args]),
    logLines: (file) => (existsSync(file) ? readJsonLines<LogLine>(file) : []),
    summaryOf(p) {
      const last = p.stdout().trim().split('\n').pop() ?? '';
      return JSON.parse(last) as Record<string, unknown>;
    },
  };
}
