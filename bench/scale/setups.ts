// The ways to crawl the scale web, as a user starts them: `cobweb crawl`; a
// `cobweb server` and bunnies (on its SQLite store, or on its workbench store); bunnies
// straight on PostgreSQL. Each set-up says which
// processes it started (so they can be measured) and which of them end the crawl.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { collectStderrTail, spawnCobweb } from '../child.js';
import { withClient } from '../pg-client.js';
import type { ServeStarted } from './serve.js';

export type SetupName = 'crawl' | 'server' | 'workbench' | 'postgres';

/** Crawl settings, the same for every set-up: a crawl's policy and a bunny's fetching. */
export interface CrawlFlags {
  delayMs: number;
  crawlFlags: readonly string[];
  /** Fetch-side flags every crawling process gets (--resolve, --allow-private, ...). */
  fetchFlags: readonly string[];
}

export interface Proc {
  name: string;
  child: ChildProcess;
  /** Where its /metrics answers (crawling processes only). */
  metricsPort?: number;
  tail: () => string;
}

export interface StartedSetup {
  procs: Proc[];
  /** The processes whose exit ends the crawl. */
  crawlers: Proc[];
  /** After the crawlers exit: stop what is left (the server). */
  finish(): Promise<void>;
  storeBytes(): Promise<number>;
}

export interface SetupContext {
  repoDir: string;
  dir: string;
  web: ServeStarted;
  flags: CrawlFlags;
  bunnies: number;
  /** postgres://... of an empty database (the postgres set-up). */
  database?: string;
  /**
   * The server set-up's private-address check: the server has no seeds, the first bunny
   * gets them (and starts first), the rest get none; no --allow-private anywhere.
   */
  seedsToOneBunny?: boolean;
  /** Called when the first crawler started, before the others are (seedsToOneBunny). */
  firstStarted?: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  await once(s, 'close');
  return port;
}

function bin(repoDir: string): string {
  return join(repoDir, 'bin', 'cobweb.js');
}

/**
 * A crawling process. With `metrics`, its /metrics is served (--http) for its lease
 * latency; a bunny of a server may not have one (the console is the server's).
 */
async function crawler(
  ctx: SetupContext,
  name: string,
  args: readonly string[],
  metrics = true,
): Promise<Proc> {
  const metricsPort = metrics ? await freePort() : undefined;
  const child = spawnCobweb(
    bin(ctx.repoDir),
    [...args, ...(metricsPort === undefined ? [] : ['--http', `127.0.0.1:${metricsPort}`]), '--quiet'],
    ctx.repoDir,
    'ignore',
  );
  child.stdin?.end();
  return {
    name,
    child,
    ...(metricsPort === undefined ? {} : { metricsPort }),
    tail: collectStderrTail(child),
  };
}

/** Bytes of a --data folder's store: everything but the outputs (WARC files, pages.jsonl). */
export function storeBytesOf(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'warc' || entry.name === 'pages.jsonl') continue;
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? storeBytesOf(path) : statSync(path).size;
  }
  return total;
}

export async function startSetup(name: SetupName, ctx: SetupContext): Promise<StartedSetup> {
  if (name === 'crawl') return startCrawl(ctx);
  if (name === 'server') return startServerAndBunnies(ctx, []);
  if (name === 'workbench') return startServerAndBunnies(ctx, ['--frontier', 'workbench']);
  return startPostgresBunnies(ctx);
}

async function startCrawl(ctx: SetupContext): Promise<StartedSetup> {
  const data = join(ctx.dir, 'crawl');
  const p = await crawler(ctx, 'crawl', [
    'crawl',
    ...ctx.web.seeds,
    '--data',
    data,
    ...ctx.flags.crawlFlags,
    ...ctx.flags.fetchFlags,
  ]);
  return { procs: [p], crawlers: [p], finish: async () => {}, storeBytes: async () => storeBytesOf(data) };
}

async function startServerAndBunnies(
  ctx: SetupContext,
  serverFlags: readonly string[],
): Promise<StartedSetup> {
  const data = join(ctx.dir, 'server');
  const oneBunny = ctx.seedsToOneBunny === true;
  // A bunny of a server has no /metrics of its own: the lease latency is the server's
  // store's (its /metrics times each store call), which leaves out the wire.
  const metricsPort = await freePort();
  const server = spawnCobweb(
    bin(ctx.repoDir),
    [
      'server',
      ...(oneBunny ? [] : ctx.web.seeds),
      '--data',
      data,
      '--listen',
      '127.0.0.1:0',
      ...ctx.flags.crawlFlags,
      '--http',
      `127.0.0.1:${metricsPort}`,
      '--quiet',
      ...serverFlags,
    ],
    ctx.repoDir,
  );
  const serverProc: Proc = { name: 'server', child: server, metricsPort, tail: collectStderrTail(server) };
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const m = /server listening on [^\s]+:(\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    server.once('exit', () => reject(new Error(`cobweb server exited: ${serverProc.tail()}`)));
  });
  const fetchFlags = oneBunny
    ? ctx.flags.fetchFlags.filter((flag) => flag !== '--allow-private')
    : ctx.flags.fetchFlags;
  const bunny = (i: number, seeds: readonly string[]) =>
    crawler(
      ctx,
      `bunny ${i}`,
      [
        'bunny',
        ...seeds,
        '--server',
        `127.0.0.1:${port}`,
        '--data',
        join(ctx.dir, `server-bunny-${i}`),
        ...fetchFlags,
      ],
      false,
    );
  const bunnies: Proc[] = [];
  if (oneBunny) {
    bunnies.push(await bunny(1, ctx.web.seeds));
    await ctx.firstStarted?.();
    for (let i = 2; i <= ctx.bunnies; i++) bunnies.push(await bunny(i, []));
  } else {
    for (let i = 1; i <= ctx.bunnies; i++) bunnies.push(await bunny(i, []));
  }
  return {
    procs: [serverProc, ...bunnies],
    crawlers: bunnies,
    finish: async () => {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await once(server, 'exit');
      }
    },
    storeBytes: async () => storeBytesOf(data),
  };
}

async function startPostgresBunnies(ctx: SetupContext): Promise<StartedSetup> {
  const database = ctx.database;
  if (database === undefined) throw new Error('the postgres set-up needs a database');
  const bunnies: Proc[] = [];
  for (let i = 1; i <= ctx.bunnies; i++) {
    // Every bunny is given the seeds: one that starts before another's seeds are in
    // would otherwise find an empty crawl and leave.
    bunnies.push(
      await crawler(ctx, `bunny ${i}`, [
        'bunny',
        ...ctx.web.seeds,
        '--store',
        database,
        '--data',
        join(ctx.dir, `pg-bunny-${i}`),
        ...ctx.flags.crawlFlags,
        ...ctx.flags.fetchFlags,
      ]),
    );
  }
  return {
    procs: bunnies,
    crawlers: bunnies,
    finish: async () => {},
    storeBytes: () =>
      withClient(database, async (c) => {
        const r = await c.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size');
        return Number(r.rows[0]?.size ?? 0);
      }),
  };
}
