// One benchmark client in its own process: leases a batch, completes it with outlinks, until told to stop.
// Run: node --import tsx bench/postgres/client.ts REPO SPEC INDEX TAG BATCH FILLED, then "WARM START END" (epoch ms) on stdin
// Prints one JSON line: ClientResult.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type * as OpenStore from '../../src/frontier/open-store.js';
import type { Completion, Lease } from '../../src/frontier/types.js';
import { BENCH_FRONTIER, filledUrlOnHost, hostOf, hostsFor, KNOWN_OUTLINKS, NEW_OUTLINKS } from './work.js';

export interface ClientResult {
  /** Leases completed (not stale) between START and END. */
  completed: number;
  /** Calls that failed (SQLite: the file stayed locked past its busy timeout), and the first one's message. */
  errors: number;
  firstError: string | null;
  /** The time in ms of every lease call asked for between START and END. */
  leaseMs: number[];
  /** CPU time this process used (user + system) between START and END, in ms. */
  cpuMs: number;
  /** Lease calls between START and END answered with no lease (the client asks again 1 ms later). */
  empty: number;
}

const [repo, spec, index, tag, batchArg, filledArg] = process.argv.slice(2);
if (filledArg === undefined) throw new Error('usage: client.ts REPO SPEC INDEX TAG BATCH FILLED');
const batch = Number(batchArg);
const filled = Number(filledArg);
const hosts = hostsFor(filled);
// The compiled store, as a user runs it.
const store = (await import(
  pathToFileURL(join(repo as string, 'dist', 'frontier', 'open-store.js')).href
)) as typeof OpenStore;
const frontier = await store.openFrontier(spec as string, BENCH_FRONTIER);
const crawler = await frontier.registerCrawler(`bench-${index}`);
let counter = 0;
let seed = Number(index) * 7919 + 1;
const random = () => {
  // xorshift: the same links each run, no Math.random state shared with anything
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};

function completionOf(l: Lease): Completion {
  const outlinks = [];
  const host = hostOf(l.url);
  for (let i = 0; i < NEW_OUTLINKS; i++) {
    outlinks.push({
      url: `http://h${host}.bench/${tag}-${index}-${counter++}`,
      depth: l.depth + 1,
      via: l.url,
    });
  }
  for (let i = 0; i < KNOWN_OUTLINKS; i++) {
    outlinks.push({ url: filledUrlOnHost(host, hosts, filled, random()), depth: l.depth + 1, via: l.url });
  }
  return { leaseId: l.id, outcome: { kind: 'done' }, report: { fetchMs: 1 }, outlinks, rejected: [] };
}

// Ready: the process has started and connected. The run's times come on stdin, once every
// client is ready, so that a slow start does not eat into the measured time: work starts
// at WARM, and what is measured is from START to END (a crawler runs for hours: its code
// compiled by the JIT, its connections' catalog caches and plans made).
process.stdout.write('ready\n');
const [warmAt, startAt, endAt] = (await new Promise<number[]>((resolve) => {
  let text = '';
  process.stdin.on('data', (d) => {
    text += String(d);
    if (text.includes('\n')) resolve(text.trim().split(' ').map(Number));
  });
})) as [number, number, number];
await new Promise((r) => setTimeout(r, Math.max(0, warmAt - Date.now())));
const result: ClientResult = { completed: 0, errors: 0, firstError: null, leaseMs: [], cpuMs: 0, empty: 0 };
// Taken in the loop, not by timers: a store that answers synchronously (SQLite) never
// lets a timer run until the loop is over.
let cpuAtStart: NodeJS.CpuUsage | null = null;
const failed = (err: unknown) => {
  result.errors++;
  result.firstError ??= err instanceof Error ? err.message : String(err);
};
const measured = (t: number) => t >= startAt && t <= endAt;
// As a crawl loop does, the next lease is asked for while the last batch is being completed.
let completing: Promise<void> = Promise.resolve();
while (Date.now() < endAt) {
  const asked = Date.now();
  if (cpuAtStart === null && asked >= startAt) cpuAtStart = process.cpuUsage();
  const t = performance.now();
  const leased = await frontier.lease(batch, crawler).catch((err: unknown) => {
    failed(err);
    return null;
  });
  await completing;
  if (leased === null) continue;
  if (measured(asked)) result.leaseMs.push(performance.now() - t);
  if (leased.leases.length === 0) {
    if (leased.ended !== null) break;
    if (measured(asked)) result.empty++;
    await new Promise((r) => setTimeout(r, 1));
    continue;
  }
  completing = frontier
    .complete(leased.leases.map(completionOf), crawler)
    .then((done) => {
      if (measured(Date.now())) result.completed += leased.leases.length - done.stale.length;
    })
    .catch(failed);
}
await completing;
const cpu = process.cpuUsage(cpuAtStart ?? undefined);
result.cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify(result)}\n`);
await frontier.leave(crawler);
await frontier.close();
process.exit(0);
