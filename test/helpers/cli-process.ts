import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The CLI as a user runs it: the compiled bin (npm test builds first). */
export const BIN = join(import.meta.dirname, '../../bin/cobweb.js');

/** A `cobweb` child process, its output collected as it comes. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout or stderr line matching, within `ms`. */
  line(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** The exit code (null when killed by a signal). */
  exit(): Promise<number | null>;
}

export function cobweb(args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd?: string): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    cwd,
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (d) => {
    out += String(d);
    for (const l of listeners) l();
  });
  child.stderr?.on('data', (d) => {
    err += String(d);
    for (const l of listeners) l();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    line(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const m = `${out}\n${err}`.match(pattern);
          if (m === null) return false;
          listeners.delete(look);
          clearTimeout(timer);
          resolve(m);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(look);
          reject(new Error(`no line matching ${pattern} within ${ms} ms; stdout: ${out}; stderr: ${err}`));
        }, ms);
        if (!look()) listeners.add(look);
        void exited.then(() => {
          if (listeners.has(look) && !look()) {
            listeners.delete(look);
            clearTimeout(timer);
            reject(new Error(`exited before a line matching ${pattern}; stdout: ${out}; stderr: ${err}`));
          }
        });
      });
    },
    exit: () => exited,
  };
}

/** A port nothing listens on right now (for a server that must come back on the same one). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const s = createServer();
  s.listen(0, host);
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  await once(s, 'close');
  return port;
}
