import { join } from 'node:path';
import { collectStderrTail, jsonLineReader, processCpuSeconds, spawnNode, waitForExit } from './child.js';
import type { ServeStats } from './web/serve.js';
import type { SyntheticSite, SyntheticWebOptions } from './web/synthetic.js';

export interface WebProcess {
  sites: SyntheticSite[];
  /** Requests served since the previous call. */
  takeStats(): Promise<ServeStats>;
  /** CPU seconds the web process has used so far: shows whether serving competed for the cores. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STATS_TIMEOUT_MS = 10_000;

/** Starts the synthetic web in its own process (the transpiled serve.js under jsDir). */
export async function startWebProcess(
  repoDir: string,
  jsDir: string,
  options: SyntheticWebOptions,
): Promise<WebProcess> {
  const child = spawnNode([join(jsDir, 'bench', 'web', 'serve.js'), JSON.stringify(options)], repoDir);
  const stderrTail = collectStderrTail(child);
  const nextLine = jsonLineReader(child);
  let started: { sites: SyntheticSite[] };
  try {
    started = (await nextLine(START_TIMEOUT_MS)) as { sites: SyntheticSite[] };
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`synthetic web did not start: ${(error as Error).message}\n${stderrTail()}`);
  }
  return {
    sites: started.sites,
    takeStats: async () => {
      child.stdin?.write('stats\n');
      return (await nextLine(STATS_TIMEOUT_MS)) as ServeStats;
    },
    cpuSeconds: () => (child.pid === undefined ? undefined : processCpuSeconds(child.pid)),
    stop: async () => {
      // serve.js exits when its stdin closes.
      child.stdin?.end();
      await waitForExit(child, 10_000);
    },
  };
}
