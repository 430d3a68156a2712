// One contender at one size, in its own process so that its peak RSS is its own.
// Run (compiled): node child.js <repo dir> <contender> <distinct URLs> <work dir>
// Prints one JSON line: SeenRunResult.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Seen from '../../src/seen/index.js';
import { type ContenderName, openContender } from './contenders.js';
import { CrawlStream } from './stream.js';
import { Tally } from './tally.js';

export interface SeenRunResult {
  contender: string;
  distinct: number;
  checks: number;
  /** Seconds spent in the checks: wall time from open to close, less the stream's own time. */
  checkSeconds: number;
  streamSeconds: number;
  /** CPU seconds of the whole process, all threads, stream included (see the harness row for its share). */
  cpuSeconds: number;
  peakRssBytes: number;
  diskBytes: number;
  falsePositives: number;
  falseNegatives: number;
  /** How long calls waited for their answers, in milliseconds: median and longest. */
  waitMedianMs: number;
  waitMaxMs: number;
  note: string;
}

/** Pages per call: a frontier completes pages in batches (64 pages, about 1,900 links). */
const PAGES_PER_CALL = 64;

async function main(): Promise<void> {
  const [repoDir = '.', name = 'memory', distinctArg = '1000000', dir = '.'] = process.argv.slice(2);
  const distinct = Number(distinctArg);
  const seen = (await import(pathToFileURL(join(repoDir, 'dist', 'seen', 'index.js')).href)) as typeof Seen;
  const stream = new CrawlStream({ distinct, seed: 1 });

  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const contender = await openContender(name as ContenderName, seen, dir, distinct);
  const fromTruth = name === 'harness';
  let streamMs = 0;
  const tally = new Tally();
  let inFlight = 0;
  let sinceFlush = 0;
  // One flush in flight at a time, not awaited before the next checks: a frontier's
  // flushes run beside its next asks the same way (src/frontier/sqlite/seen-gate.ts).
  let flushing: Promise<void> = Promise.resolve();
  const waiting: Array<{ answer: Promise<boolean[]> | boolean[]; truth: Uint8Array; n: number }> = [];
  // One sample in 16 calls: when each call resolved, after it was made.
  const waits: number[] = [];
  let calls = 0;

  const settle = async (): Promise<void> => {
    const oldest = waiting.shift();
    if (!oldest) return;
    tally.add(await oldest.answer, oldest.truth, oldest.n);
    inFlight -= oldest.n;
  };

  while (!stream.done) {
    const streamStart = performance.now();
    const urls: string[] = [];
    const truth = new Uint8Array(PAGES_PER_CALL * 50);
    const n = stream.nextPages(PAGES_PER_CALL, urls, truth);
    streamMs += performance.now() - streamStart;
    const answer = fromTruth ? Array.from(truth.subarray(0, n), (t) => t === 1) : contender.check(urls);
    if (calls++ % 16 === 0) {
      const made = performance.now();
      void Promise.resolve(answer).then(() => waits.push(performance.now() - made));
    }
    waiting.push({ answer, truth, n });
    inFlight += n;
    while (waiting.length > 0 && inFlight > contender.window) await settle();
    sinceFlush += n;
    if (contender.flushEvery !== undefined && sinceFlush >= contender.flushEvery) {
      // As a frontier would: flush covers the calls that have resolved, the rest go on.
      await flushing;
      flushing = contender.flush();
      sinceFlush = 0;
    }
  }
  await contender.drain();
  while (waiting.length > 0) await settle();
  await flushing;
  await contender.flush();
  const note = contender.note();
  await contender.close();
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);

  const result: SeenRunResult = {
    contender: name,
    distinct: stream.discovered,
    checks: stream.links,
    checkSeconds: elapsed - streamMs / 1000,
    streamSeconds: streamMs / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssBytes: peakRss(),
    diskBytes: folderBytes(dir),
    falsePositives: tally.falsePositives,
    falseNegatives: tally.falseNegatives,
    waitMedianMs: waits.sort((a, b) => a - b)[Math.floor(waits.length / 2)] ?? 0,
    waitMaxMs: waits[waits.length - 1] ?? 0,
    note,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** VmHWM: the kernel's high-water mark of this process's resident memory, all threads. */
function peakRss(): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) total += statSync(join(dir, name)).size;
  return total;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
