// Many crawls at once, on one server: the memory that ten crawls' seen sets take in one
// `cobweb server` (each crawl its own folder, store and seen set, --crawl NAME), and how
// long each crawl takes to open (its seen set filled from its store, or reopened from
// its files). Needs the build (`npm run build`): it runs bin/cobweb.js.
//   node --import tsx bench/seen/crawls.ts                    10 crawls of 1,000,000 URLs each
//   node --import tsx bench/seen/crawls.ts --crawls 10 --urls 100000 --only memory,drum
// For each seen set: a server on a data folder holding the crawls' stores, its resident
// size with only its default (empty) crawl open, then with all of them open, each
// opened by a client naming it (HELLO with its crawl). The difference is the crawls'.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { layoutOf } from '../../src/data-dir/layout.js';
import { linkSettingsOf, writeMarker } from '../../src/data-dir/marker.js';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import { withDefaults } from '../../src/options/options.js';
import { TEST_SETTINGS } from '../../test/frontier/stores.js';
import { describeMachine } from '../report.js';

const KINDS = ['memory', 'bloom', 'lmdb', 'drum'] as const;
type Kind = (typeof KINDS)[number];

const BIN = resolve(import.meta.dirname, '../../bin/cobweb.js');

interface Row {
  kind: Kind;
  crawls: number;
  urls: number;
  /** Seconds from a crawl's HELLO to its WELCOME: the crawl opened, its set filled (median). */
  openMedianS: number;
  /** The same after a restart of the server (the sets that keep files replay only what is past them). */
  reopenMedianS: number;
  /** The server's RSS with every crawl open, less its RSS with only the default crawl. */
  rssMiB: number;
  /** Its peak over the same base, reached while the sets filled. */
  peakMiB: number;
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (key: string) => Number((new RegExp(`${key}:\\s+(\\d+) kB`).exec(status) ?? [])[1] ?? 0) / 1024;
  return { rss: get('VmRSS'), peak: get('VmHWM') };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const names = (crawls: number) => Array.from({ length: crawls }, (_, i) => `c${i}`);

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

interface Server {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

async function startServer(data: string, kind: Kind): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'server',
      '--data',
      data,
      '--listen',
      '127.0.0.1:0',
      '--seen',
      kind,
      '--no-builtin-modules',
      '--quiet',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const port = await new Promise<number>((done, fail) => {
    child.stdout?.on('data', (d) => {
      out += String(d);
      const m = /listening on [^\s]+:(\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`the server exited (${code}) before listening`)));
  });
  return {
    child,
    port,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Opens each crawl on the server (a client's HELLO naming it) and times it; the clients stay. */
async function openCrawls(
  server: Server,
  crawls: number,
): Promise<{ times: number[]; close(): Promise<void> }> {
  const clients: RemoteFrontier[] = [];
  const times: number[] = [];
  for (const crawl of names(crawls)) {
    const client = new RemoteFrontier({ host: '127.0.0.1', port: server.port, name: 'bench', crawl });
    const t = performance.now();
    await client.welcome();
    times.push((performance.now() - t) / 1000);
    clients.push(client);
  }
  return {
    times,
    close: async () => {
      for (const c of clients) await c.close();
    },
  };
}

async function measure(kind: Kind, template: string, crawls: number, urls: number): Promise<Row> {
  const data = mkdtempSync(join(tmpdir(), `cobweb-crawls-${kind}-`));
  try {
    // The server's own folder is the default crawl's (empty); the others under crawls/.
    writeMarker(
      layoutOf(data),
      { settings: linkSettingsOf(withDefaults({ seeds: [] }), []), moduleData: [] },
      null,
    );
    for (const name of names(crawls)) {
      // A crawl's folder as the server makes it, with a store of `urls` rows (its own table: the set is filled from it).
      const folder = join(data, 'crawls', name);
      mkdirSync(folder, { recursive: true });
      copyFileSync(template, join(folder, 'frontier.db'));
      writeMarker(
        layoutOf(folder),
        { settings: linkSettingsOf(withDefaults({ seeds: [] }), []), moduleData: [] },
        null,
      );
    }
    const server = await startServer(data, kind);
    await new Promise((r) => setTimeout(r, 1000));
    const base = memoryOf(server.child.pid as number);
    const first = await openCrawls(server, crawls);
    await new Promise((r) => setTimeout(r, 1000));
    const all = memoryOf(server.child.pid as number);
    await first.close();
    await server.stop();
    const again = await startServer(data, kind);
    const second = await openCrawls(again, crawls);
    await second.close();
    await again.stop();
    return {
      kind,
      crawls,
      urls,
      openMedianS: median(first.times),
      reopenMedianS: median(second.times),
      rssMiB: all.rss - base.rss,
      peakMiB: all.peak - base.rss,
    };
  } finally {
    rmSync(data, { recursive: true, force: true });
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
  const { crawls, urls, only } = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-crawls-'));
  try {
    process.stderr.write(`making a store of ${urls} URLs...\n`);
    const template = makeTemplate(dir, urls);
    const rows: Row[] = [];
    for (const kind of only) {
      process.stderr.write(`${kind}: ${crawls} crawls on one server...\n`);
      rows.push(await measure(kind, template, crawls, urls));
    }
    console.log(describeMachine());
    console.log('');
    console.log(
      '| seen set | crawls on one server | URLs each | open, filling the set (s, median) | open again after a restart (s, median) | RSS of all crawls (MiB) | per crawl (MiB) | peak (MiB) |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(
        `| ${r.kind} | ${r.crawls} | ${r.urls.toLocaleString('en-US')} | ${r.openMedianS.toFixed(2)} | ${r.reopenMedianS.toFixed(2)} | ${r.rssMiB.toFixed(0)} | ${(r.rssMiB / r.crawls).toFixed(1)} | ${r.peakMiB.toFixed(0)} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
