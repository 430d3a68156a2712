// Many crawls at once: the memory that ten crawls' seen sets take, and how long each
// store takes to open (its seen set filled from the store, or reopened from its files).
//   node --import tsx bench/seen/crawls.ts                    10 crawls of 1,000,000 URLs each
//   node --import tsx bench/seen/crawls.ts --crawls 10 --urls 100000 --only memory,drum
// Each seen set runs in its own child process (so its RSS is its own), beside a row with
// the stores' own table (no set held by the process): the difference is the sets' memory.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import { TEST_SETTINGS } from '../../test/frontier/stores.js';
import { describeMachine } from '../report.js';

const KINDS = ['table', 'memory', 'bloom', 'lmdb', 'drum'] as const;
type Kind = (typeof KINDS)[number];

interface Row {
  kind: Kind;
  crawls: number;
  urls: number;
  /** Seconds to open each store (median, and the first), its seen set filled from the store. */
  openMedianS: number;
  reopenMedianS: number;
  /** RSS with every store open, less RSS before the first was opened. */
  rssMiB: number;
  /** The peak, with the same base. */
  peakMiB: number;
}

function rssMiB(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const get = (key: string) => Number((new RegExp(`${key}:\\s+(\\d+) kB`).exec(status) ?? [])[1] ?? 0) / 1024;
  return { rss: get('VmRSS'), peak: get('VmHWM') };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** A store of `urls` rows on its own table, made once and copied for every crawl. */
function makeTemplate(dir: string, urls: number): string {
  const file = join(dir, 'template.db');
  new SqliteFrontier(file, TEST_SETTINGS).close();
  const db = new Database(file);
  const insert = db.prepare('INSERT INTO urls (url, host, depth, state) VALUES (?, ?, 1, 2)');
  db.transaction(() => {
    for (let i = 0; i < urls; i++) {
      const host = `h${i % 997}.example`;
      insert.run(`https://${host}/section-${i % 31}/page-${i}.html`, host);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

/** In the child: open `crawls` copies with one seen set, measure, close, open again. */
async function child(kind: Kind, template: string, crawls: number, urls: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `cobweb-crawls-${kind}-`));
  try {
    const files = Array.from({ length: crawls }, (_, i) => {
      mkdirSync(join(dir, `c${i}`));
      const f = join(dir, `c${i}`, 'frontier.db');
      copyFileSync(template, f);
      return f;
    });
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const base = rssMiB().rss;
    const openAll = async () => {
      const times: number[] = [];
      const stores: SqliteFrontier[] = [];
      for (const f of files) {
        const t = performance.now();
        stores.push(await SqliteFrontier.open(f, TEST_SETTINGS, kind === 'table' ? {} : { seen: { kind } }));
        times.push((performance.now() - t) / 1000);
      }
      return { times, stores };
    };
    const first = await openAll();
    gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const { rss, peak } = rssMiB();
    for (const s of first.stores) await s.close();
    const again = await openAll();
    for (const s of again.stores) await s.close();
    return {
      kind,
      crawls,
      urls,
      openMedianS: median(first.times),
      reopenMedianS: median(again.times),
      rssMiB: rss - base,
      peakMiB: peak - base,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseArgs(argv: readonly string[]) {
  let crawls = 10;
  let urls = 1_000_000;
  let only: Kind[] = [...KINDS];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--crawls') crawls = Number(argv[++i]);
    else if (arg === '--urls') urls = Number(argv[++i]);
    else if (arg === '--only') only = (argv[++i] ?? '').split(',') as Kind[];
    else throw new Error(`unknown option ${arg}: use --crawls N, --urls N or --only memory,drum`);
  }
  if (!(Number.isInteger(crawls) && crawls > 0 && Number.isInteger(urls) && urls > 0))
    throw new Error('--crawls and --urls take whole numbers above 0');
  if (only.some((k) => !KINDS.includes(k))) throw new Error(`--only takes some of ${KINDS.join(', ')}`);
  return { crawls, urls, only };
}

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === '--child') {
    const [kind, template, crawls, urls] = rest;
    const row = await child(kind as Kind, template as string, Number(crawls), Number(urls));
    process.stdout.write(`${JSON.stringify(row)}\n`);
    return;
  }
  const { crawls, urls, only } = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-crawls-'));
  try {
    process.stderr.write(`making a store of ${urls} URLs...\n`);
    const template = makeTemplate(dir, urls);
    const rows: Row[] = [];
    for (const kind of only) {
      process.stderr.write(`${kind}: ${crawls} crawls...\n`);
      const out = execFileSync(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          import.meta.filename,
          '--child',
          kind,
          template,
          String(crawls),
          String(urls),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
      );
      rows.push(JSON.parse(out.toString().trim().split('\n').at(-1) as string) as Row);
    }
    console.log(describeMachine());
    console.log('');
    console.log(
      '| seen set | crawls | URLs each | open, filling the set (s, median) | open again (s, median) | RSS of all crawls (MiB) | per crawl (MiB) | peak (MiB) |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(
        `| ${r.kind === 'table' ? 'store table (no held set)' : r.kind} | ${r.crawls} | ${r.urls.toLocaleString('en-US')} | ${r.openMedianS.toFixed(2)} | ${r.reopenMedianS.toFixed(2)} | ${r.rssMiB.toFixed(0)} | ${(r.rssMiB / r.crawls).toFixed(1)} | ${r.peakMiB.toFixed(0)} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
