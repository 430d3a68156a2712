// The benchmark behind `npm run bench`: the same synthetic web crawled by the raw loop (the
// ceiling) and by cobweb, side by side. Run: node --import tsx bench/run.ts
// Smaller runs: BENCH_PAGES_PER_HOST=200 BENCH_HOSTS=4 BENCH_ROUNDS=1 node --import tsx bench/run.ts
// Other knobs: see bench/settings.ts (BENCH_CONCURRENCY, BENCH_PER_HOST, BENCH_COBWEB_ROOT, ...).
// Before/after: BENCH_BASELINE_ROOT=../other-checkout adds its crawl to the same rounds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBenchScripts } from './compile.js';
import {
  type CobwebRun,
  cobwebIsBuilt,
  compareUrlSets,
  runCobwebCluster,
  runCobwebCrawl,
  summarizePagesFile,
} from './crawl.js';
import { runRawLoop } from './raw-process.js';
import { describeMachine, markdownTable, type TableRow } from './report.js';
import { type BenchSettings, readSettings } from './settings.js';
import { resolveOptions, type SyntheticWebOptions } from './web/options.js';
import { computeReachable } from './web/reach.js';
import { startWebProcess, type WebProcess } from './web-process.js';

const RAW_LABEL = 'raw loop: undici + htmlparser2, no frontier, no outputs';
const COBWEB_LABEL = 'cobweb crawl: sqlite frontier, pages.jsonl, WARC, robots.txt, built-in modules';
const BARE_LABEL = 'cobweb crawl, the same without modules (--no-builtin-modules)';
const HTTP_LABEL = 'cobweb crawl, the same with the console on (--http 127.0.0.1:0)';
const TARGET_CONSOLE_COST = 0.03;
const CLUSTER_LABEL = 'cobweb server + 2 cobweb bunny processes, the same work split between them';
const TARGET_RATIO = 0.6;
const TARGET_CLUSTER_RATIO = 0.9;

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Measurement {
  pages: number;
  seconds: number;
  pagesPerSec: number;
  peakRssBytes: number;
}

/** What one run of one contender produced; a measurement is missing when the run failed. */
interface RoundOutcome {
  measurement: Measurement | undefined;
  warnings: string[];
  notes: string[];
}

interface Context {
  settings: BenchSettings;
  web: WebProcess;
  jsDir: string;
  workDir: string;
  expected: readonly string[];
}

async function main(): Promise<number> {
  const settings = readSettings();
  const jsDir = join(repoDir, '.bench-tmp', 'js');
  compileBenchScripts(repoDir, jsDir);
  const webOptions: SyntheticWebOptions = {
    hosts: settings.hosts,
    pagesPerHost: settings.pagesPerHost,
    pageBytes: settings.pageBytes,
    seed: settings.seed,
  };
  const web = await startWebProcess(repoDir, jsDir, webOptions);
  const workDir = mkdtempSync(join(tmpdir(), 'cobweb-bench-'));
  try {
    const origins = web.sites.map((site) => site.origin);
    const expected = computeReachable(resolveOptions(webOptions), origins);
    const context: Context = { settings, web, jsDir, workDir, expected };
    const cobwebBuilt = cobwebIsBuilt(cobwebRoot(settings));

    const raw: RoundOutcome[] = [];
    const cobweb: RoundOutcome[] = [];
    const bare: RoundOutcome[] = [];
    const http: RoundOutcome[] = [];
    const cluster: RoundOutcome[] = [];
    const baseline: RoundOutcome[] = [];
    // Alternating the contenders spreads slow spells of a shared machine over every row.
    for (let round = 1; round <= settings.rounds; round++) {
      raw.push(await measureWebUse(context, `raw loop, round ${round}`, () => rawRound(context)));
      if (cobwebBuilt) {
        cobweb.push(
          await measureWebUse(context, `cobweb, round ${round}`, () => cobwebRound(context, round, [])),
        );
        bare.push(
          await measureWebUse(context, `cobweb without modules, round ${round}`, () =>
            cobwebRound(context, round, ['--no-builtin-modules']),
          ),
        );
        http.push(
          await measureWebUse(context, `cobweb with --http, round ${round}`, () =>
            cobwebRound(context, round, ['--http', '127.0.0.1:0']),
          ),
        );
        if (settings.baselineRoot !== undefined) {
          baseline.push(
            await measureWebUse(context, `baseline build, round ${round}`, () =>
              cobwebRound(context, round, [], 0, settings.baselineRoot),
            ),
          );
        }
        cluster.push(
          await measureWebUse(context, `server + 2 bunnies, round ${round}`, () =>
            cobwebRound(context, round, [], 2),
          ),
        );
      }
    }

    const rows: TableRow[] = [...summaryRows(RAW_LABEL, raw)];
    if (cobwebBuilt) {
      rows.push(
        ...summaryRows(COBWEB_LABEL, cobweb),
        ...summaryRows(BARE_LABEL, bare),
        ...summaryRows(HTTP_LABEL, http),
        ...summaryRows(CLUSTER_LABEL, cluster),
      );
      if (settings.baselineRoot !== undefined) {
        rows.push(
          ...summaryRows(`the same crawl by the baseline build in ${settings.baselineRoot}`, baseline),
        );
      }
    } else {
      rows.push(
        emptyRow(
          `cobweb not built (${cobwebRoot(settings)}/dist/cli/main.js missing): run \`npm run build\``,
        ),
      );
    }

    console.log(describeMachine());
    console.log(
      `web: ${settings.hosts.length} hosts x ${settings.pagesPerHost} pages = ${expected.length} reachable pages, ~${settings.pageBytes} B each, seed ${settings.seed}; concurrency ${settings.concurrency}, cobweb --per-host ${settings.perHost} --delay 0 --delay-factor 0; ${settings.rounds} round(s), median shown; seconds are spawn to exit for both\n`,
    );
    console.log(markdownTable(rows));
    const rawRate = median(raw)?.pagesPerSec;
    const cobwebRate = median(cobweb)?.pagesPerSec;
    const bareRate = median(bare)?.pagesPerSec;
    const httpRate = median(http)?.pagesPerSec;
    const clusterRate = median(cluster)?.pagesPerSec;
    const baselineRate = median(baseline)?.pagesPerSec;
    if (rawRate && cobwebRate) {
      console.log(
        `cobweb / raw: ${(cobwebRate / rawRate).toFixed(2)} (target >= ${TARGET_RATIO.toFixed(2)})`,
      );
    }
    if (cobwebRate && bareRate) {
      console.log(`with modules / without: ${(cobwebRate / bareRate).toFixed(2)} (the built-ins' cost)`);
    }
    if (cobwebRate && httpRate) {
      console.log(
        `with --http / without: ${(httpRate / cobwebRate).toFixed(3)} (the console's cost; target <= ${(TARGET_CONSOLE_COST * 100).toFixed(0)}%)`,
      );
    }
    if (cobwebRate && clusterRate) {
      console.log(
        `server + 2 bunnies / cobweb crawl: ${(clusterRate / cobwebRate).toFixed(2)} (target >= ${TARGET_CLUSTER_RATIO.toFixed(2)})`,
      );
    }
    if (cobwebRate && baselineRate) {
      console.log(`this build / baseline build: ${(cobwebRate / baselineRate).toFixed(2)}`);
    }
    console.log('');
    const all = [...raw, ...cobweb, ...bare, ...http, ...cluster, ...baseline];
    for (const outcome of all) for (const note of outcome.notes) console.log(`- ${note}`);
    const failed = all.some((outcome) => outcome.warnings.length > 0 || !outcome.measurement);
    return failed ? 1 : 0;
  } finally {
    await web.stop();
    if (settings.keepData) console.log(`- data kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

async function rawRound(context: Context): Promise<RoundOutcome> {
  const { settings, expected } = context;
  const run = await runRawLoop({
    repoDir,
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
    measurement: { pages, seconds, pagesPerSec: pages / seconds, peakRssBytes },
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

async function cobwebRound(
  context: Context,
  round: number,
  extraArgs: readonly string[],
  bunnies = 0,
  root = cobwebRoot(context.settings),
): Promise<RoundOutcome> {
  const { settings, expected } = context;
  const kind =
    root !== cobwebRoot(settings)
      ? '-baseline'
      : bunnies > 0
        ? `-cluster`
        : extraArgs.includes('--http')
          ? '-http'
          : extraArgs.length > 0
            ? '-bare'
            : '';
  const dataDir = join(context.workDir, `cobweb-data-${round}${kind}`);
  const options = {
    repoDir: resolve(root),
    seeds: context.web.sites.map((site) => `${site.origin}/`),
    dataDir,
    concurrency: settings.concurrency,
    perHost: settings.perHost,
    timeoutSeconds: settings.timeoutSeconds,
    extraArgs,
  };
  const run: CobwebRun =
    bunnies > 0 ? await runCobwebCluster({ ...options, bunnies }) : await runCobwebCrawl(options);
  const pagesFile = await summarizePagesFile(join(dataDir, 'pages.jsonl'));
  const pages = pagesFile.okUrls.length;
  const outcome: RoundOutcome = {
    measurement: {
      pages,
      seconds: run.seconds,
      pagesPerSec: pages / run.seconds,
      peakRssBytes: run.peakRssBytes,
    },
    warnings: [],
    notes: [
      `${(pages / run.seconds).toFixed(0)} pages/s, ${pagesFile.records} records in pages.jsonl, ${pages} with status 200`,
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
    for (let i = 1; i <= bunnies; i++) rmSync(`${dataDir}-bunny-${i}`, { recursive: true, force: true });
  }
  return outcome;
}

/** Runs one round and adds what the synthetic web saw meanwhile: requests, repeats, its CPU use. */
async function measureWebUse(
  context: Context,
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
  outcome.notes = outcome.notes.map((note) => `${label}: ${note}`);
  outcome.notes.push(`${label}: web served ${stats.requests} requests (${stats.distinct} distinct)${cpu}`);
  return outcome;
}

/** The median round by pages/s, with the highest peak RSS of all rounds; then one row per warning. */
function summaryRows(label: string, outcomes: readonly RoundOutcome[]): TableRow[] {
  const middle = median(outcomes);
  const peaks = outcomes.flatMap((outcome) =>
    outcome.measurement ? [outcome.measurement.peakRssBytes] : [],
  );
  const rows: TableRow[] = [
    middle
      ? { run: label, ...middle, peakRssBytes: Math.max(...peaks) }
      : emptyRow(`${label}: no successful run`),
  ];
  for (const warning of new Set(outcomes.flatMap((outcome) => outcome.warnings))) {
    rows.push(emptyRow(`**WARNING: ${warning}**`));
  }
  return rows;
}

function median(outcomes: readonly RoundOutcome[]): Measurement | undefined {
  const measured = outcomes.flatMap((outcome) => (outcome.measurement ? [outcome.measurement] : []));
  measured.sort((a, b) => a.pagesPerSec - b.pagesPerSec);
  return measured[Math.floor((measured.length - 1) / 2)];
}

function cobwebRoot(settings: BenchSettings): string {
  return settings.cobwebRoot ? resolve(settings.cobwebRoot) : repoDir;
}

function emptyRow(run: string): TableRow {
  return { run, pages: undefined, seconds: undefined, pagesPerSec: undefined, peakRssBytes: undefined };
}

// Turn signals into a normal exit so child.ts can kill the children it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  },
);
