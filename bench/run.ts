// The benchmark behind `npm run bench`: two synthetic webs (realistic documentation-like
// pages, and the small pages of the first benchmark) crawled by the raw loop (the ceiling)
// and by cobweb, side by side. Run: node --import tsx bench/run.ts
// Smaller runs: BENCH_PAGES_PER_HOST=200 BENCH_HOSTS=4 BENCH_ROUNDS=1 node --import tsx bench/run.ts
// One web, some contenders: BENCH_PROFILES=realistic BENCH_CONTENDERS=raw,cobweb
// Other knobs: see bench/settings.ts (BENCH_CONCURRENCY, BENCH_PER_HOST, BENCH_COBWEB_ROOT, ...).
// Before/after: BENCH_BASELINE_ROOT=../other-checkout adds its crawl to the same rounds.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBenchScripts } from './compile.js';
import { cobwebIsBuilt } from './crawl.js';
import { describeMachine, markdownTable, type TableRow } from './report.js';
import {
  type CobwebRoundSpec,
  cobwebRound,
  emptyRow,
  measureWebUse,
  median,
  type RoundContext,
  type RoundOutcome,
  rawRound,
  summaryRows,
} from './rounds.js';
import { type BenchSettings, type Contender, readSettings } from './settings.js';
import { resolveOptions, type SyntheticWebOptions, type WebProfile } from './web/options.js';
import { computeReachable } from './web/reach.js';
import { startWebProcess } from './web-process.js';

const LABELS: Record<Contender, string> = {
  raw: 'raw loop: undici + htmlparser2, no frontier, no outputs',
  cobweb: 'cobweb crawl: sqlite frontier, pages.jsonl, WARC, robots.txt, built-in modules',
  bare: 'cobweb crawl, the same without modules (--no-builtin-modules)',
  http: 'cobweb crawl, the same with the console on (--http 127.0.0.1:0)',
  baseline: 'the same crawl by the baseline build',
  cluster: 'cobweb server + 2 cobweb bunny processes, the same work split between them',
};
/** cobweb / raw loop on each web, with the defaults. */
const TARGET_RATIO: Record<WebProfile, number | undefined> = { realistic: 0.8, small: undefined };
const TARGET_CONSOLE_COST = 0.03;
const TARGET_CLUSTER_RATIO = 0.9;

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface WebResult {
  heading: string;
  rows: TableRow[];
  ratios: string[];
  notes: string[];
  failed: boolean;
}

async function main(): Promise<number> {
  const settings = readSettings();
  const jsDir = join(repoDir, '.bench-tmp', 'js');
  compileBenchScripts(repoDir, jsDir);
  const results: WebResult[] = [];
  for (const profile of settings.profiles) results.push(await benchWeb(settings, jsDir, profile));

  console.log(describeMachine());
  console.log(
    `concurrency ${settings.concurrency}, cobweb --per-host ${settings.perHost} --delay 0 --delay-factor 0; ${settings.rounds} round(s), median shown with the slowest and fastest round; seconds are spawn to exit for both; load is the 1-minute load average when a round started\n`,
  );
  for (const result of results) {
    console.log(`### ${result.heading}\n`);
    console.log(markdownTable(result.rows));
    console.log('');
    for (const line of result.ratios) console.log(line);
    console.log('');
    for (const note of result.notes) console.log(`- ${note}`);
    console.log('');
  }
  return results.some((result) => result.failed) ? 1 : 0;
}

/** Every contender on one web, in alternating rounds. */
async function benchWeb(settings: BenchSettings, jsDir: string, profile: WebProfile): Promise<WebResult> {
  const webOptions: SyntheticWebOptions = {
    hosts: settings.hosts,
    pagesPerHost: settings.pagesPerHost,
    pageBytes: settings.pageBytes,
    seed: settings.seed,
    profile,
  };
  const web = await startWebProcess(repoDir, jsDir, webOptions);
  const workDir = mkdtempSync(join(tmpdir(), 'cobweb-bench-'));
  try {
    const origins = web.sites.map((site) => site.origin);
    const expected = computeReachable(resolveOptions(webOptions), origins);
    const context: RoundContext = { settings, repoDir, web, jsDir, workDir, expected };
    const root = settings.cobwebRoot ? resolve(settings.cobwebRoot) : repoDir;
    const built = cobwebIsBuilt(root);
    const contenders = settings.contenders.filter(
      (c) => (c === 'raw' || built) && (c !== 'baseline' || settings.baselineRoot !== undefined),
    );
    const specs: Record<Exclude<Contender, 'raw'>, CobwebRoundSpec> = {
      cobweb: { kind: 'cobweb', extraArgs: [], bunnies: 0, root },
      bare: { kind: 'bare', extraArgs: ['--no-builtin-modules'], bunnies: 0, root },
      http: { kind: 'http', extraArgs: ['--http', '127.0.0.1:0'], bunnies: 0, root },
      baseline: { kind: 'baseline', extraArgs: [], bunnies: 0, root: settings.baselineRoot ?? root },
      cluster: { kind: 'cluster', extraArgs: [], bunnies: 2, root },
    };
    const outcomes = new Map<Contender, RoundOutcome[]>(contenders.map((c) => [c, []]));
    // Alternating the contenders spreads slow spells of a shared machine over every row.
    for (let round = 1; round <= settings.rounds; round++) {
      for (const contender of contenders) {
        const label = `${profile} web, ${contender}, round ${round}`;
        const outcome = await measureWebUse(context, label, () =>
          contender === 'raw' ? rawRound(context) : cobwebRound(context, round, specs[contender]),
        );
        outcomes.get(contender)?.push(outcome);
      }
    }

    const rows: TableRow[] = [];
    for (const contender of contenders) {
      const label =
        contender === 'baseline' ? `${LABELS.baseline} in ${settings.baselineRoot}` : LABELS[contender];
      rows.push(...summaryRows(label, outcomes.get(contender) ?? []));
    }
    if (!built)
      rows.push(emptyRow(`cobweb not built (${root}/dist/cli/main.js missing): run \`npm run build\``));
    const all = [...outcomes.values()].flat();
    return {
      heading: describeWeb(profile, settings, expected.length),
      rows,
      ratios: ratioLines(profile, outcomes),
      notes: all.flatMap((outcome) => outcome.notes),
      failed: all.some((outcome) => outcome.warnings.length > 0 || !outcome.measurement),
    };
  } finally {
    await web.stop();
    if (settings.keepData) console.log(`- data kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

function describeWeb(profile: WebProfile, settings: BenchSettings, reachable: number): string {
  const pages =
    profile === 'realistic'
      ? '5 to 150 KB (median about 20 KB) with 50 to 300 links each, most of them the navigation every page of a site repeats'
      : `about ${settings.pageBytes} B with 10 to 20 links each`;
  return `${profile} web: ${settings.hosts.length} hosts x ${settings.pagesPerHost} pages = ${reachable} reachable pages of ${pages}; seed ${settings.seed}; load ${loadavg()[0]?.toFixed(2)} at the end`;
}

function ratioLines(profile: WebProfile, outcomes: ReadonlyMap<Contender, RoundOutcome[]>): string[] {
  const rate = (c: Contender) => median(outcomes.get(c) ?? [])?.pagesPerSec;
  const [raw, cobweb, bare, http, cluster, baseline] = (
    ['raw', 'cobweb', 'bare', 'http', 'cluster', 'baseline'] as const
  ).map(rate);
  const lines: string[] = [];
  const target = TARGET_RATIO[profile];
  if (raw && cobweb) {
    lines.push(
      `cobweb / raw: ${(cobweb / raw).toFixed(2)}${target === undefined ? '' : ` (target >= ${target.toFixed(2)})`}`,
    );
  }
  if (cobweb && bare)
    lines.push(`with modules / without: ${(cobweb / bare).toFixed(2)} (the built-ins' cost)`);
  if (cobweb && http) {
    lines.push(
      `with --http / without: ${(http / cobweb).toFixed(3)} (the console's cost; target <= ${(TARGET_CONSOLE_COST * 100).toFixed(0)}%)`,
    );
  }
  if (cobweb && cluster) {
    lines.push(
      `server + 2 bunnies / cobweb crawl: ${(cluster / cobweb).toFixed(2)} (target >= ${TARGET_CLUSTER_RATIO.toFixed(2)})`,
    );
  }
  if (cobweb && baseline) lines.push(`this build / baseline build: ${(cobweb / baseline).toFixed(2)}`);
  return lines;
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
