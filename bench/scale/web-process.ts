import { join } from 'node:path';
import { collectStderrTail, jsonLineReader, processCpuSeconds, spawnNode, waitForExit } from '../child.js';
import type { ServeOptions, ServeStarted, ServeStats } from './serve.js';
import type { TallyReport } from './tally.js';

export interface ScaleWebProcess {
  started: ServeStarted;
  pid: number | undefined;
  stats(): Promise<ServeStats>;
  report(): Promise<TallyReport>;
  /** Forgets every request: the next set-up is counted from nothing. */
  reset(): Promise<void>;
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

// The BFS over 10^6 pages takes a while on a busy machine.
const START_TIMEOUT_MS = 600_000;
const ANSWER_TIMEOUT_MS = 120_000;

/** Starts bench/scale/serve.ts in its own process (through tsx, from the repository). */
export async function startScaleWeb(repoDir: string, options: ServeOptions): Promise<ScaleWebProcess> {
  const child = spawnNode(
    ['--import', 'tsx', join(repoDir, 'bench', 'scale', 'serve.ts'), JSON.stringify(options)],
    repoDir,
  );
  const stderrTail = collectStderrTail(child);
  const nextLine = jsonLineReader(child);
  let started: ServeStarted;
  try {
    started = (await nextLine(START_TIMEOUT_MS)) as ServeStarted;
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`scale web did not start: ${(error as Error).message}\n${stderrTail()}`);
  }
  // One question at a time: answers come back in order on one stdout.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = <T>(command: string): Promise<T> => {
    const asked = queue.then(() => {
      child.stdin?.write(`${command}\n`);
      return nextLine(ANSWER_TIMEOUT_MS) as Promise<T>;
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
  return {
    started,
    pid: child.pid,
    stats: () => ask<ServeStats>('stats'),
    report: () => ask<TallyReport>('report'),
    reset: async () => {
      await ask<unknown>('reset');
    },
    cpuSeconds: () => (child.pid === undefined ? undefined : processCpuSeconds(child.pid)),
    stop: async () => {
      child.stdin?.end();
      await waitForExit(child, 10_000);
    },
  };
}
