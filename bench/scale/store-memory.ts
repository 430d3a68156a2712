// The embedded store alone at the scale web's size, to see what of its memory grows with
// the crawl: a crawler that leases and completes at once (no network, no parsing), every
// page bringing links mostly to its own host and some to hosts picked by a Zipf law,
// over power-law host sizes. Prints the process's memory every tenth of the pages.
//   node --expose-gc --import tsx bench/scale/store-memory.ts [pages=1000000] [hosts=pages/10]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frontierSettingsOf } from '../../src/assembly/shared-store.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { Completion, NewLink } from '../../src/frontier/types.js';
import { DEFAULTS, type Settings } from '../../src/options/options.js';

const pages = Number(process.argv[2] ?? 1_000_000);
const hosts = Number(process.argv[3] ?? Math.round(pages / 10));
const LINKS = 40;
const OFF_HOST = 6;

// Host sizes falling as a power law: host i has about pages / ((i + 1) · H) pages.
const harmonic = Array.from({ length: hosts }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0);
const sizeOf = (host: number) => Math.max(1, Math.round(pages / ((host + 1) * harmonic)));
let state = 1;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
  return state / 2_147_483_648;
};
const zipfHost = () => Math.min(hosts - 1, Math.floor(hosts ** random()) - 1);
const urlOf = (host: number, page: number) => `http://h${host}.scale.test/p/${page}`;

function mb(n: number): number {
  return Math.round(n / 1048576);
}

function memoryLine(done: number, started: number): string {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  return `${done} pages, ${seconds} s: rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB (array buffers ${mb(m.arrayBuffers)})`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-store-memory-'));
  const settings = {
    ...frontierSettingsOf({ ...DEFAULTS, seen: 'memory' } as Settings),
    delayMs: 0,
    delayFactor: 0,
  };
  const store = await SqliteFrontier.open(join(dir, 'frontier.db'), settings, {
    seen: { kind: 'memory', capacity: undefined, fpRate: DEFAULTS.seenFpRate },
  });
  const crawler = await store.registerCrawler('driver');
  const seeds: NewLink[] = Array.from({ length: Math.min(hosts, 1000) }, (_, h) => ({
    url: urlOf(h, 0),
    depth: 0,
    via: null,
  }));
  await store.add(seeds, [], crawler);
  const started = performance.now();
  const every = Math.max(1, Math.round(pages / 10));
  let done = 0;
  let next = every;
  console.log(`${pages} pages over ${hosts} hosts; the biggest host ${sizeOf(0)} pages`);
  while (done < pages) {
    const batch = await store.lease(64, crawler, { waitMs: 0 });
    if (batch.leases.length === 0) {
      if (batch.ended !== null) break;
      await new Promise((r) => setTimeout(r, 1));
      continue;
    }
    const completions: Completion[] = batch.leases.map((lease) => {
      const host = Number(/h(\d+)\./.exec(lease.url)?.[1] ?? 0);
      const outlinks: NewLink[] = [];
      for (let i = 0; i < LINKS; i++) {
        const h = i < OFF_HOST ? zipfHost() : host;
        outlinks.push({
          url: urlOf(h, Math.floor(random() * sizeOf(h))),
          depth: lease.depth + 1,
          via: lease.url,
        });
      }
      return { leaseId: lease.id, outcome: { kind: 'done' }, report: { fetchMs: 1 }, outlinks, rejected: [] };
    });
    await store.complete(completions, crawler);
    done += completions.length;
    if (done >= next) {
      console.log(memoryLine(done, started));
      next += every;
    }
  }
  console.log(memoryLine(done, started));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
