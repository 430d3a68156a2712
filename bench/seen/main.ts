// The URL-seen set benchmark: `npm run bench:seen`.
// Each contender runs at each size in its own child process, on a crawl-shaped stream of links
// (bench/seen/stream.ts), and one table compares them.
//   npm run bench:seen                        sizes 10^6 and 10^7 (distinct URLs; about 5x as many checks)
//   npm run bench:seen -- --huge              also 10^8
//   npm run bench:seen -- --sizes 1e5 --only drum,memory
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from '../report.js';
import { CONTENDERS, type ContenderName } from './contenders.js';
import { describeContenders, runSeenBench, YOUNG_SEMI_SPACE_MIB } from './run-seen.js';

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseArgs(argv: readonly string[]): { sizes: number[]; contenders: ContenderName[] } {
  let sizes = [1e6, 1e7];
  let contenders: ContenderName[] = [...CONTENDERS];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--huge') sizes = [...sizes, 1e8];
    else if (arg === '--sizes') sizes = (argv[++i] ?? '').split(',').map(Number);
    else if (arg === '--only') contenders = (argv[++i] ?? '').split(',') as ContenderName[];
    else throw new Error(`unknown option ${arg}: use --huge, --sizes 1e6,1e7 or --only drum,memory`);
  }
  if (sizes.some((size) => !(Number.isInteger(size) && size > 0))) {
    throw new Error('--sizes takes whole numbers of URLs above 0, comma-separated (e.g. 1e6,1e7)');
  }
  const unknown = contenders.filter((name) => !CONTENDERS.includes(name));
  if (unknown.length > 0)
    throw new Error(`--only takes some of ${CONTENDERS.join(', ')}, not ${unknown.join(', ')}`);
  return { sizes, contenders };
}

async function main(): Promise<number> {
  const { sizes, contenders } = parseArgs(process.argv.slice(2));
  const report = await runSeenBench({
    repoDir,
    sizes,
    contenders,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  console.log(describeMachine());
  console.log(
    `stream: hosts by a Zipf law, 15-45 links a page (30 on average), 20% of links new; checks/s counts fingerprinting and the set, not the stream; CPU µs/check counts every thread of the process, the stream too (the harness row is the stream alone); each run is a node process of its own, with --max-semi-space-size=${YOUNG_SEMI_SPACE_MIB}\n`,
  );
  console.log(report.markdown);
  console.log('');
  for (const line of report.targets) console.log(`- ${line}`);
  for (const line of describeContenders(contenders)) console.log(`- ${line}`);
  return report.failed ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`bench:seen: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
