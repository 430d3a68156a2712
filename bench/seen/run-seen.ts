import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { collectStderrTail, jsonLineReader, spawnNode, waitForExit } from '../child.js';
import type { SeenRunResult } from './child.js';
import { CONTENDERS, type ContenderName, DESCRIPTIONS } from './contenders.js';

/** The seen-set benchmark as a function, so that `npm run bench` can run it too. */
export interface SeenBenchOptions {
  repoDir: string;
  /** Distinct URLs per run (the crawl's size); checks are about five times as many. */
  sizes: readonly number[];
  contenders?: readonly ContenderName[];
  /** A run still going after this is killed and reported as such. */
  timeoutSeconds?: number;
  log?: (line: string) => void;
}

export interface SeenBenchRow {
  contender: ContenderName;
  distinct: number;
  result?: SeenRunResult;
  error?: string;
}

export interface SeenBenchReport {
  rows: SeenBenchRow[];
  markdown: string;
  /** Lines about the targets, each saying met or missed. */
  targets: string[];
  /** A seen set failed or answered "new" for a URL met before. */
  failed: boolean;
}

const BASELINES: readonly ContenderName[] = ['js-set', 'md5-set', 'harness'];

/** The young generation's semi-space of every measured child, in MiB (node --max-semi-space-size). */
export const YOUNG_SEMI_SPACE_MIB = 4;

export async function runSeenBench(options: SeenBenchOptions): Promise<SeenBenchReport> {
  const log = options.log ?? (() => undefined);
  const contenders = options.contenders ?? CONTENDERS;
  if (!existsSync(join(options.repoDir, 'dist', 'seen', 'index.js'))) {
    throw new Error('dist/seen is missing: run `npm run build` first (npm run bench:seen does)');
  }
  const jsDir = join(options.repoDir, '.bench-tmp', 'js');
  compileSeenScripts(options.repoDir, jsDir);
  const rows: SeenBenchRow[] = [];
  for (const distinct of options.sizes) {
    for (const contender of contenders) {
      log(`${contender} at ${distinct.toLocaleString('en-US')} URLs ...`);
      const row = await runOne(options, jsDir, contender, distinct);
      log(
        row.result
          ? `  ${Math.round(row.result.checks / row.result.checkSeconds).toLocaleString('en-US')} checks/s, ${mib(row.result.peakRssBytes)} MiB`
          : `  failed: ${row.error}`,
      );
      rows.push(row);
    }
  }
  const failed = rows.some(
    (row) => !BASELINES.includes(row.contender) && (!row.result || row.result.falseNegatives > 0),
  );
  return { rows, markdown: markdownTable(rows), targets: targetLines(rows), failed };
}

async function runOne(
  options: SeenBenchOptions,
  jsDir: string,
  contender: ContenderName,
  distinct: number,
): Promise<SeenBenchRow> {
  const workDir = mkdtempSync(join(tmpdir(), `cobweb-seen-bench-${contender}-`));
  try {
    // The baselines get a large heap, so that they stop where a JS Set stops rather than at
    // Node's default heap limit. Every child gets a young generation of 4 MiB semi-spaces
    // (Node's default here is 16): the stream makes about 100 bytes of garbage a link, and
    // V8 would grow the young generation to hold it, which peak RSS counts against the set.
    const heap = BASELINES.includes(contender) ? ['--max-old-space-size=16384'] : [];
    const child = spawnNode(
      [
        ...heap,
        `--max-semi-space-size=${YOUNG_SEMI_SPACE_MIB}`,
        join(jsDir, 'bench', 'seen', 'child.js'),
        options.repoDir,
        contender,
        String(distinct),
        workDir,
      ],
      options.repoDir,
    );
    const stderr = collectStderrTail(child, 2000);
    const readLine = jsonLineReader(child);
    const timeoutMs = (options.timeoutSeconds ?? 3600) * 1000;
    const [line, exit] = await Promise.all([
      readLine(timeoutMs).catch(() => undefined),
      waitForExit(child, timeoutMs),
    ]);
    if (line && exit.code === 0) return { contender, distinct, result: line as SeenRunResult };
    const why = exit.timedOut ? `timed out after ${options.timeoutSeconds ?? 3600} s` : lastLine(stderr());
    return { contender, distinct, error: why || `exit code ${exit.code}, signal ${exit.signal}` };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.find((line) => /Error/.test(line)) ?? lines[lines.length - 1] ?? '';
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}

function markdownTable(rows: readonly SeenBenchRow[]): string {
  const lines = [
    '| contender | URLs | checks | checks/s | CPU µs/check | peak RSS (MiB) | disk (B/URL) | false positives | false negatives | answer wait (ms, median / max) | notes |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const r = row.result;
    const cells = r
      ? [
          row.contender,
          r.distinct.toLocaleString('en-US'),
          r.checks.toLocaleString('en-US'),
          Math.round(r.checks / r.checkSeconds).toLocaleString('en-US'),
          ((r.cpuSeconds / r.checks) * 1e6).toFixed(2),
          mib(r.peakRssBytes),
          (r.diskBytes / r.distinct).toFixed(1),
          r.falsePositives.toLocaleString('en-US'),
          r.falseNegatives.toLocaleString('en-US'),
          `${(r.waitMedianMs ?? 0).toFixed(1)} / ${(r.waitMaxMs ?? 0).toFixed(0)}`,
          r.note,
        ]
      : [
          row.contender,
          row.distinct.toLocaleString('en-US'),
          '-',
          '-',
          '-',
          '-',
          '-',
          '-',
          `failed: ${row.error}`,
        ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function targetLines(rows: readonly SeenBenchRow[]): string[] {
  const find = (contender: ContenderName, distinct: number): SeenRunResult | undefined =>
    rows.find((row) => row.contender === contender && row.distinct === distinct)?.result;
  const lines: string[] = [];
  const rate = (r: SeenRunResult): number => r.checks / r.checkSeconds;
  const drum7 = find('drum', 1e7);
  if (drum7)
    lines.push(
      verdict(rate(drum7) >= 1e6, `drum at 10^7: ${Math.round(rate(drum7))} checks/s (target >= 1,000,000)`),
    );
  const drum8 = find('drum', 1e8);
  if (drum8)
    lines.push(
      verdict(
        drum8.peakRssBytes <= 200e6,
        `drum at 10^8: peak RSS ${mib(drum8.peakRssBytes)} MiB (target <= 200 MB)`,
      ),
    );
  const lmdb7 = find('lmdb', 1e7);
  if (lmdb7)
    lines.push(
      verdict(rate(lmdb7) >= 2e5, `lmdb at 10^7: ${Math.round(rate(lmdb7))} checks/s (target >= 200,000)`),
    );
  for (const row of rows) {
    const match = row.contender === 'memory' ? /table ([\d.]+) B\/URL/.exec(row.result?.note ?? '') : null;
    if (match)
      lines.push(
        verdict(
          Number(match[1]) <= 16,
          `memory at ${row.distinct.toExponential(0)}: ${match[1]} bytes/URL in its table (target <= 16)`,
        ),
      );
  }
  return lines;
}

function verdict(met: boolean, text: string): string {
  return `${met ? 'met' : 'MISSED'}: ${text}`;
}

export function describeContenders(contenders: readonly ContenderName[] = CONTENDERS): string[] {
  return contenders.map((name) => `${name}: ${DESCRIPTIONS[name]}`);
}

/**
 * Transpiles the benchmark's child scripts to plain JavaScript, so that the measured
 * processes run on bare node (tsx's loader would add its own memory to every RSS); they
 * load the seen sets from dist/.
 */
function compileSeenScripts(repoDir: string, outDir: string): void {
  for (const name of ['child.ts', 'contenders.ts', 'stream.ts', 'tally.ts']) {
    const source = join(repoDir, 'bench', 'seen', name);
    const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      fileName: source,
    });
    const target = join(outDir, 'bench', 'seen', name.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}
