// The benchmark behind `npm run bench`: two synthetic webs (realistic documentation-like
// pages, and the small pages of the first benchmark) crawled by the raw loop (the ceiling)
// and by cobweb, side by side. Run: node --import tsx bench/run.ts
// Smaller runs: BENCH_PAGES_PER_HOST=200 BENCH_HOSTS=4 BENCH_ROUNDS=1 node --import tsx bench/run.ts
// One web, some contenders: BENCH_PROFILES=realistic BENCH_CONTENDERS=raw,cobweb
// Other knobs: see bench/settings.ts (BENCH_CONCURRENCY, BENCH_PER_HOST, BENCH_COBWEB_ROOT, ...).
// Before/after: BENCH_BASELINE_ROOT=../other-checkout adds its crawl to the same rounds
// (BENCH_BASELINE_BUNNIES=2: its server and 2 bunnies, beside the cluster contender).
// A setting against the defaults: BENCH_VARIANT_ARGS='--parse-threads 2' adds that crawl.
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
  type Measurement,
  measureWebUse,
  type RoundContext,
  type RoundOutcome,
  rawRound,
  summaryRows,
} from './rounds.js';
import { type BenchSettings, type Contender, readSettings } from './settings.js';
import { measureStartup, startupLines } from './startup.js';
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
  workbench: 'the same server on its workbench store (--frontier workbench) + 2 bunnies',
  variant: 'cobweb crawl, the same with BENCH_VARIANT_ARGS',
};
/** cobweb / raw loop on each web, with the defaults. */
const TARGET_RATIO: Record<WebProfile, number | undefined> = {
  realistic: 0.8,
  'link-heavy': 0.8,
  small: undefined,
};
const TARGET_CONSOLE_COST = 0.03;
/** cobweb's peak RSS with the defaults, whatever the crawl's size. */
const TARGET_PEAK_RSS_MB: Record<WebProfile, number | undefined> = {
  realistic: 300,
  'link-heavy': undefined,
  small: undefined,
};
const TARGET_CLUSTER_RATIO = 0.9;
/** CPU per page of a server and its bunnies, all summed, against `cobweb crawl`'s: at most this. */
const TARGET_CLUSTER_CPU: Record<WebProfile, number | undefined> = {
  realistic: 1.3,
  'link-heavy': undefined,
  small: undefined,
};

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
  const startup =
    settings.startupRounds > 0 ? await measureStartup(repoDir, settings.startupRounds) : undefined;

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
  if (startup !== undefined) {
    console.log('### start-up\n');
    for (const line of startupLines(startup)) console.log(line);
  }
  const startupFailed = startup?.failure !== undefined;
  return results.some((result) => result.failed) || startupFailed ? 1 : 0;
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
      (c) =>
        (c === 'raw' || built) &&
        (c !== 'baseline' || settings.baselineRoot !== undefined) &&
        (c !== 'variant' || settings.variantArgs.length > 0),
    );
    const specs: Record<Exclude<Contender, 'raw'>, CobwebRoundSpec> = {
      cobweb: { kind: 'cobweb', extraArgs: [], bunnies: 0, root },
      bare: { kind: 'bare', extraArgs: ['--no-builtin-modules'], bunnies: 0, root },
      http: { kind: 'http', extraArgs: ['--http', '127.0.0.1:0'], bunnies: 0, root },
      baseline: {
        kind: 'baseline',
        extraArgs: [],
        bunnies: settings.baselineBunnies,
        root: settings.baselineRoot ?? root,
      },
      cluster: { kind: 'cluster', extraArgs: [], bunnies: 2, root },
      workbench: { kind: 'workbench', extraArgs: ['--frontier', 'workbench'], bunnies: 2, root },
      variant: { kind: 'variant', extraArgs: settings.variantArgs, bunnies: 0, root },
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
        contender === 'baseline'
          ? `${settings.baselineBunnies > 0 ? `server + ${settings.baselineBunnies} bunnies` : 'crawl'}: ${LABELS.baseline} in ${settings.baselineRoot}`
          : contender === 'variant'
            ? `cobweb crawl, the same with ${settings.variantArgs.join(' ')}`
            : LABELS[contender];
      rows.push(...summaryRows(label, outcomes.get(contender) ?? []));
    }
    if (!built)
      rows.push(emptyRow(`cobweb not built (${root}/dist/cli/main.js missing): run \`npm run build\``));
    const all = [...outcomes.values()].flat();
    return {
      heading: describeWeb(profile, settings, expected.length),
      rows,
      ratios: ratioLines(profile, outcomes, settings.variantArgs),
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
      : profile === 'link-heavy'
        ? '5 to 150 KB (median about 20 KB) with 115 to 150 links each, about 100 of them the navigation every page of the site has (its contents in relative hrefs, as generated documentation has them)'
        : `about ${settings.pageBytes} B with 10 to 20 links each`;
  return `${profile} web: ${settings.hosts.length} hosts x ${settings.pagesPerHost} pages = ${reachable} reachable pages of ${pages}; seed ${settings.seed}; load ${loadavg()[0]?.toFixed(2)} at the end`;
}

function ratioLines(
  profile: WebProfile,
  outcomes: ReadonlyMap<Contender, RoundOutcome[]>,
  variantArgs: readonly string[],
): string[] {
  const of = (c: Contender) => outcomes.get(c) ?? [];
  const lines: string[] = [];
  const target = TARGET_RATIO[profile];
  const pair = (a: Contender, b: Contender, what: string, goal = '') => {
    const ratio = pairedRatio(of(a), of(b));
    if (ratio !== undefined) lines.push(`${what}: ${ratio}${goal}`);
  };
  pair('cobweb', 'raw', 'cobweb / raw', target === undefined ? '' : ` (target >= ${target.toFixed(2)})`);
  pair('bare', 'raw', 'cobweb without modules / raw');
  pair('cobweb', 'bare', "with modules / without (the built-ins' cost)");
  pair(
    'http',
    'cobweb',
    'with --http / without',
    ` (the console's cost; target >= ${(1 - TARGET_CONSOLE_COST).toFixed(2)})`,
  );
  for (const [cluster, name] of [
    ['cluster', 'server + 2 bunnies'],
    ['workbench', 'server on its workbench store + 2 bunnies'],
  ] as const) {
    pair(cluster, 'cobweb', `${name} / cobweb crawl`, ` (target >= ${TARGET_CLUSTER_RATIO.toFixed(2)})`);
    const cpuTarget = TARGET_CLUSTER_CPU[profile];
    const cpuRatio = pairedRatio(of(cluster), of('cobweb'), cpuPerPage);
    if (cpuRatio !== undefined) {
      lines.push(
        `CPU per page, ${name} (all processes summed) / cobweb crawl: ${cpuRatio}${cpuTarget === undefined ? '' : ` (target <= ${cpuTarget.toFixed(2)})`}`,
      );
    }
    const serverPerThousand = of(cluster).flatMap(({ measurement: m }) =>
      m?.serverCpuSeconds === undefined || m.pages === 0
        ? []
        : [
            `${((1000 * m.serverCpuSeconds) / m.pages).toFixed(2)} of ${((1000 * (m.cpuSeconds ?? 0)) / m.pages).toFixed(2)}`,
          ],
    );
    if (serverPerThousand.length > 0) {
      lines.push(
        `the server's CPU s per 1,000 pages, of the ${name}'s, by round: ${serverPerThousand.join('; ')}`,
      );
    }
  }
  pair('variant', 'cobweb', `with ${variantArgs.join(' ')} / defaults`);
  pair('cobweb', 'baseline', 'this build / baseline build');
  const peak = Math.max(
    0,
    ...of('cobweb').flatMap((o) => (o.measurement ? [o.measurement.peakRssBytes] : [])),
  );
  if (peak > 0 && TARGET_PEAK_RSS_MB[profile] !== undefined) {
    lines.push(
      `cobweb's peak RSS, highest of its rounds: ${(peak / 1e6).toFixed(0)} MB (target <= ${TARGET_PEAK_RSS_MB[profile]} MB)`,
    );
  }
  return lines;
}

/**
 * a / b, round by round: each round ran both one after the other, so a slow spell of a
 * shared machine weighs on both sides of most ratios. The median round's ratio, with the
 * lowest and the highest.
 */
function pairedRatio(
  a: readonly RoundOutcome[],
  b: readonly RoundOutcome[],
  figure: (m: Measurement) => number | undefined = (m) => m.pagesPerSec,
): string | undefined {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]?.measurement;
    const y = b[i]?.measurement;
    const fx = x === undefined ? undefined : figure(x);
    const fy = y === undefined ? undefined : figure(y);
    if (fx !== undefined && fy !== undefined && fy > 0) ratios.push(fx / fy);
  }
  if (ratios.length === 0) return undefined;
  ratios.sort((p, q) => p - q);
  const middle = ratios[Math.floor((ratios.length - 1) / 2)] as number;
  const spread =
    ratios.length === 1
      ? '1 round'
      : `rounds ${(ratios[0] as number).toFixed(2)} to ${(ratios[ratios.length - 1] as number).toFixed(2)}`;
  return `${middle.toFixed(2)} (${spread})`;
}

/** CPU seconds of all the round's processes per page. */
function cpuPerPage(m: Measurement): number | undefined {
  return m.cpuSeconds === undefined || m.pages === 0 ? undefined : m.cpuSeconds / m.pages;
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
