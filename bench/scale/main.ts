// npm run bench:scale: the scale web (10^5 hosts, 10^6 pages by default) crawled by each
// set-up side by side, counted at the web server. Knobs by environment:
//   BENCH_SCALE_PAGES (1000000), BENCH_SCALE_HOSTS (pages / 10), BENCH_SCALE_SETUPS
//   (crawl,server,postgres; workbench: the server on --frontier workbench), BENCH_SCALE_BUNNIES (4), BENCH_SCALE_DELAY_MS (10),
//   BENCH_SCALE_CRAWL_DELAY (seconds, 0.05), BENCH_SCALE_SLOW_MS (2000), BENCH_SCALE_SEED (1),
//   BENCH_SCALE_TIMEOUT_S (14400), BENCH_SCALE_PRIVATE (1: also the private-address check),
//   BENCH_SCALE_PG_STATEMENTS (1: the database's time by statement, from pg_stat_statements),
//   BENCH_SCALE_OUT (a file for the markdown; default .bench-tmp/scale.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cobwebIsBuilt } from '../crawl.js';
import { describeMachine } from '../report.js';
import { scaleRun } from './scale-run.js';
import type { SetupName } from './setups.js';
import { findings, resultTable, windowTable } from './table.js';

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function numberFrom(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number, got ${text}`);
  return value;
}

async function main(): Promise<void> {
  if (!cobwebIsBuilt(repoDir)) throw new Error('npm run build first: the benchmark runs bin/cobweb.js');
  const pages = numberFrom('BENCH_SCALE_PAGES', 1_000_000);
  const hosts = numberFrom('BENCH_SCALE_HOSTS', Math.round(pages / 10));
  const setups = (process.env.BENCH_SCALE_SETUPS ?? 'crawl,server,postgres')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is SetupName => s === 'crawl' || s === 'server' || s === 'workbench' || s === 'postgres');
  const delayMs = numberFrom('BENCH_SCALE_DELAY_MS', 10);
  const bunnies = numberFrom('BENCH_SCALE_BUNNIES', 4);
  const out = process.env.BENCH_SCALE_OUT ?? join(repoDir, '.bench-tmp', 'scale.md');
  console.log(describeMachine());
  const run = await scaleRun({
    repoDir,
    web: {
      hosts,
      pages,
      seed: numberFrom('BENCH_SCALE_SEED', 1),
      crawlDelaySeconds: numberFrom('BENCH_SCALE_CRAWL_DELAY', 0.05),
      slowMs: numberFrom('BENCH_SCALE_SLOW_MS', 2000),
    },
    setups,
    bunnies,
    delayMs,
    timeoutSeconds: numberFrom('BENCH_SCALE_TIMEOUT_S', 14_400),
    privateAddressCheck: process.env.BENCH_SCALE_PRIVATE === '1',
    durablePostgres: true,
    pgStatements: process.env.BENCH_SCALE_PG_STATEMENTS === '1',
    onStarted: (web) => {
      const s = web.started;
      console.log(
        `scale web: ${s.hosts} hosts, ${s.totalPages} pages, ${s.reachable} reachable from ${s.seeds.length} seeds (deepest ${s.maxDepth} hops, ${s.redirects} redirects; BFS ${s.reachSeconds.toFixed(1)} s), on ${s.address}:${s.port}`,
      );
    },
    onResult: (r) => {
      console.log(resultTable([r]));
      for (const line of findings(r)) console.log(`  ${line}`);
      if (r.statements !== undefined) console.log(`\n${r.statements}\n`);
    },
  });
  const s = run.web;
  const markdown = [
    `${describeMachine()}`,
    '',
    `Scale web: ${s.hosts} hosts, ${s.totalPages} pages, ${s.reachable} reachable; --delay ${delayMs} ms, ${bunnies} bunnies; counted at the web server.`,
    '',
    resultTable(run.results),
    '',
    ...run.results.flatMap((r) => [windowTable(r), '']),
    ...run.results.flatMap((r) => findings(r).map((line) => `- ${line}`)),
    ...run.results.flatMap((r) => (r.statements === undefined ? [] : ['', r.statements])),
    ...run.skipped.map((line) => `- ${line}`),
  ].join('\n');
  for (const line of run.skipped) console.log(line);
  console.log(`\n${markdown}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${markdown}\n`);
  console.log(`\nwritten to ${out}`);
}

// Stopped from outside (kill PID, Ctrl-C): exit through process.exit, so that the 'exit'
// handlers take down what the run started (the web, the crawlers, the PostgreSQL cluster).
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(130));

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
