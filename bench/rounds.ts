import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { exitedChildrenCpuSeconds } from './child.js';
import {
  type CobwebRun,
  compareUrlSets,
  runCobwebCluster,
  runCobwebCrawl,
  summarizePagesFile,
} from './crawl.js';
import { runRawLoop } from './raw-process.js';
import type { TableRow } from './report.js';
import type { BenchSettings } from './settings.js';
import type { WebProcess } from './web-process.js';

export interface Measurement {
  pages: number;
  seconds: number;
  pagesPerSec: number;
  peakRssBytes: number;
  /** The machine's 1-minute load average when the round started. */
  load: number;
  /** CPU seconds of every process the contender ran, summed (threads included), spawn to exit. */
  cpuSeconds?: number;
  /** Of those, a cluster's server's (up to the moment the last bunny exited). */
  serverCpuSeconds?: number;
}

/** What one run of one contender produced; a measurement is missing when the run failed. */
export interface RoundOutcome {
  measurement: Measurement | undefined;
  warnings: string[];
  notes: string[];
}

export interface RoundContext {
  settings: BenchSettings;
  repoDir: string;
  web: WebProcess;
  jsDir: string;
  workDir: string;
  /** The pages a crawl seeded with every site's root must fetch, each once. */
  expected: readonly string[];
}

export async function rawRound(context: RoundContext): Promise<RoundOutcome> {
  const { settings, expected } = context;
  const load = loadNow();
  const cpuBefore = exitedChildrenCpuSeconds();
  const run = await runRawLoop({
    repoDir: context.repoDir,
    jsDir: context.jsDir,
    workDir: context.workDir,
    urls: expected,
    concurrency: settings.concurrency,
    timeoutSeconds: settings.timeoutSeconds,
  });
  const result = run.result;
  if (!result)
    return { measurement: undefined, warnings: ['raw loop failed'], notes: [`error: ${run.error}`] };
  const { pages, peakRssBytes } = result;
  // Both sides are timed the same way, from spawn to exit: a crawler's start-up (opening
  // its store) and shutdown (closing its files) are part of what it costs.
  const seconds = run.wallSeconds;
  const outcome: RoundOutcome = {
    measurement: {
      pages,
      seconds,
      pagesPerSec: pages / seconds,
      peakRssBytes,
      load,
      ...cpuSince(cpuBefore),
    },
    warnings: [],
    notes: [
      `${(pages / seconds).toFixed(0)} pages/s spawn to exit; ${result.pagesPerSec.toFixed(0)} pages/s in its fetch loop alone (${result.seconds.toFixed(2)} s); ${result.links} links resolved`,
    ],
  };
  if (pages !== expected.length || !result.complete) {
    outcome.warnings.push(`raw loop got ${pages} pages of ${expected.length} (${result.failures} failures)`);
    if (result.firstError) outcome.notes.push(`first error: ${result.firstError}`);
  }
  return outcome;
}

export interface CobwebRoundSpec {
  /** Names the data folder. */
  kind: string;
  extraArgs: readonly string[];
  /** bunny processes beside a server; 0: one `cobweb crawl`. */
  bunnies: number;
  /** The checkout whose bin/cobweb.js runs. */
  root: string;
}

export async function cobwebRound(
  context: RoundContext,
  round: number,
  spec: CobwebRoundSpec,
): Promise<RoundOutcome> {
  const { settings, expected } = context;
  const dataDir = join(context.workDir, `cobweb-data-${round}-${spec.kind}`);
  const options = {
    repoDir: resolve(spec.root),
    seeds: context.web.sites.map((site) => `${site.origin}/`),
    dataDir,
    concurrency: settings.concurrency,
    perHost: settings.perHost,
    timeoutSeconds: settings.timeoutSeconds,
    extraArgs: spec.extraArgs,
  };
  const load = loadNow();
  const cpuBefore = exitedChildrenCpuSeconds();
  const run: CobwebRun =
    spec.bunnies > 0
      ? await runCobwebCluster({ ...options, bunnies: spec.bunnies })
      : await runCobwebCrawl(options);
  const cpu = cpuSince(cpuBefore);
  const pagesFile = await summarizePagesFile(join(dataDir, 'pages.jsonl'));
  const pages = pagesFile.okUrls.length;
  const outcome: RoundOutcome = {
    measurement: {
      pages,
      seconds: run.seconds,
      pagesPerSec: pages / run.seconds,
      peakRssBytes: run.peakRssBytes,
      load,
      ...cpu,
      ...(run.serverCpuSeconds === undefined ? {} : { serverCpuSeconds: run.serverCpuSeconds }),
    },
    warnings: [],
    notes: [
      `${(pages / run.seconds).toFixed(0)} pages/s, ${pagesFile.records} records in pages.jsonl, ${pages} pages with status 200${pagesFile.requisites > 0 ? `, ${pagesFile.requisites} requisites` : ''}`,
    ],
  };
  if (run.timedOut || run.exitCode !== 0) {
    outcome.warnings.push(`cobweb ${run.timedOut ? 'timed out' : `exited with code ${run.exitCode}`}`);
    outcome.notes.push(`stderr: ${run.stderrTail.trim() || '(empty)'}`);
  }
  const diff = compareUrlSets(pagesFile.okUrls, expected);
  if (diff.missing.length + diff.unexpected.length + diff.repeated + pagesFile.malformed > 0) {
    outcome.warnings.push(
      `cobweb's 200 URLs differ from reachable(): ${diff.missing.length} missing, ${diff.unexpected.length} unexpected, ${diff.repeated} repeated, ${pagesFile.malformed} malformed lines`,
    );
    const examples = [...diff.missing.slice(0, 3), ...diff.unexpected.slice(0, 3)];
    if (examples.length > 0) outcome.notes.push(`examples of differing URLs: ${examples.join(' ')}`);
  }
  if (!settings.keepData) {
    rmSync(dataDir, { recursive: true, force: true });
    for (let i = 1; i <= spec.bunnies; i++) rmSync(`${dataDir}-bunny-${i}`, { recursive: true, force: true });
  }
  return outcome;
}

/** Runs one round and adds what the synthetic web saw meanwhile: requests, repeats, its CPU use. */
export async function measureWebUse(
  context: RoundContext,
  label: string,
  round: () => Promise<RoundOutcome>,
): Promise<RoundOutcome> {
  const cpuBefore = context.web.cpuSeconds();
  await context.web.takeStats(); // resets the counters
  const outcome = await round();
  const stats = await context.web.takeStats();
  const cpuAfter = context.web.cpuSeconds();
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? ''
      : `, web used ${(cpuAfter - cpuBefore).toFixed(1)} CPU s`;
  const load = outcome.measurement ? `, load ${outcome.measurement.load.toFixed(2)} at start` : '';
  outcome.notes = outcome.notes.map((note) => `${label}: ${note}`);
  outcome.notes.push(
    `${label}: web served ${stats.requests} requests (${stats.distinct} distinct)${cpu}${load}`,
  );
  return outcome;
}

/**
 * The median round by pages/s, with the slowest and fastest rounds, the highest peak
 * RSS of all rounds and the range of the load the rounds started under; then one row per
 * warning.
 */
export function summaryRows(label: string, outcomes: readonly RoundOutcome[]): TableRow[] {
  const measured = measurements(outcomes);
  const middle = median(outcomes);
  const rates = measured.map((m) => m.pagesPerSec);
  const loads = measured.map((m) => m.load);
  const rows: TableRow[] = [
    middle
      ? {
          run: label,
          ...middle,
          slowest: Math.min(...rates),
          fastest: Math.max(...rates),
          peakRssBytes: Math.max(...measured.map((m) => m.peakRssBytes)),
          ...cpuPerThousand(measured),
          loads: [Math.min(...loads), Math.max(...loads)],
        }
      : emptyRow(`${label}: no successful run`),
  ];
  for (const warning of new Set(outcomes.flatMap((outcome) => outcome.warnings))) {
    rows.push(emptyRow(`**WARNING: ${warning}**`));
  }
  return rows;
}

/** The median round's CPU seconds per 1,000 pages, by that figure (not by pages/s). */
function cpuPerThousand(measured: readonly Measurement[]): { cpuPerThousandPages?: number } {
  const figures = measured
    .flatMap((m) => (m.cpuSeconds === undefined || m.pages === 0 ? [] : [(1000 * m.cpuSeconds) / m.pages]))
    .sort((a, b) => a - b);
  const middle = figures[Math.floor((figures.length - 1) / 2)];
  return middle === undefined ? {} : { cpuPerThousandPages: middle };
}

export function median(outcomes: readonly RoundOutcome[]): Measurement | undefined {
  const measured = measurements(outcomes);
  measured.sort((a, b) => a.pagesPerSec - b.pagesPerSec);
  return measured[Math.floor((measured.length - 1) / 2)];
}

export function emptyRow(run: string): TableRow {
  return { run };
}

function measurements(outcomes: readonly RoundOutcome[]): Measurement[] {
  return outcomes.flatMap((outcome) => (outcome.measurement ? [outcome.measurement] : []));
}

/** The CPU seconds children used since `before` (exitedChildrenCpuSeconds), if /proc tells. */
function cpuSince(before: number | undefined): { cpuSeconds?: number } {
  const after = exitedChildrenCpuSeconds();
  return before === undefined || after === undefined ? {} : { cpuSeconds: after - before };
}

function loadNow(): number {
  return loadavg()[0] ?? 0;
}
