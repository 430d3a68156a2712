import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectStderrTail, jsonLineReader, spawnNode, waitForExit } from './child.js';
import type { RawLoopInput, RawLoopResult } from './raw-loop.js';

export interface RawLoopRun {
  result: RawLoopResult | undefined;
  /** Spawn to exit, start-up included; the result's own seconds cover only the fetch loop. */
  wallSeconds: number;
  error: string | undefined;
}

/** Runs the transpiled raw loop (raw-loop.js under jsDir) as a child over the given URLs. */
export async function runRawLoop(options: {
  repoDir: string;
  jsDir: string;
  workDir: string;
  urls: readonly string[];
  concurrency: number;
  timeoutSeconds: number;
}): Promise<RawLoopRun> {
  const inputPath = join(options.workDir, 'raw-loop-input.json');
  const input: RawLoopInput = {
    urls: [...options.urls],
    concurrency: options.concurrency,
    deadlineSeconds: options.timeoutSeconds,
  };
  writeFileSync(inputPath, JSON.stringify(input));

  const startedAt = performance.now();
  const child = spawnNode([join(options.jsDir, 'bench', 'raw-loop.js'), inputPath], options.repoDir);
  child.stdin?.end();
  const stderrTail = collectStderrTail(child);
  const nextLine = jsonLineReader(child);
  // The child's own deadline stops it first; this bound only catches a hung process.
  const boundMs = (options.timeoutSeconds + 60) * 1000;
  const [line, exit] = await Promise.allSettled([nextLine(boundMs), waitForExit(child, boundMs)]);
  const wallSeconds = (performance.now() - startedAt) / 1000;
  if (line.status === 'fulfilled' && exit.status === 'fulfilled' && exit.value.code === 0) {
    return { result: line.value as RawLoopResult, wallSeconds, error: undefined };
  }
  const reason = line.status === 'rejected' ? String(line.reason) : 'non-zero exit';
  return { result: undefined, wallSeconds, error: `${reason}\n${stderrTail()}` };
}
