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
  /** Checks asked and not yet answered. */
  let inFlight = 0;
  let sinceFlush = 0;
  // One flush in flight at a time, not awaited before the next checks: a frontier's
  // flushes run beside its next asks the same way (src/frontier/sqlite/seen-gate.ts).
  let flushing: Promise<void> = Promise.resolve();
  // Each call's answers are tallied as soon as they come and then let go, as a frontier
  // queues a call's new URLs when it resolves: the harness holds no answers of its own,
  // so the peak RSS is the set's and the calls it has not answered yet.
  const unanswered: Array<Promise<void>> = [];
  // One sample in 16 calls: when each call resolved, after it was made.
  const waits: number[] = [];
  let calls = 0;

  while (!stream.done) {
    const streamStart = performance.now();
    const urls: string[] = [];
    const truth = new Uint8Array(PAGES_PER_CALL * 50);
    const n = stream.nextPages(PAGES_PER_CALL, urls, truth);
    streamMs += performance.now() - streamStart;
    const answer = fromTruth ? Array.from(truth.subarray(0, n), (t) => t === 1) : contender.check(urls);
    const made = calls++ % 16 === 0 ? performance.now() : undefined;
    inFlight += n;
    unanswered.push(
      Promise.resolve(answer).then((answers) => {
        if (made !== undefined) waits.push(performance.now() - made);
        tally.add(answers, truth, n);
        inFlight -= n;
      }),
    );
    // Calls resolve in the order they were made, so waiting for the oldest frees room first.
    while (unanswered.length > 0 && inFlight > contender.window) await unanswered.shift();
    sinceFlush += n;
    if (contender.flushEvery !== undefined && sinceFlush >= contender.flushEvery) {
      // As a frontier would: flush covers the calls that have resolved, the rest go on.
      await flushing;
      flushing = contender.flush();
      sinceFlush = 0;
    }
  }
  await contender.drain();
  await Promise.all(unanswered);
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
