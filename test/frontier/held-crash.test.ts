import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { openFrontier } from '../../src/frontier/open-store.js';
import type { Frontier, FrontierSettings, LocalFrontier } from '../../src/frontier/types.js';
import { bundledChild } from '../helpers/bundled-child.js';
import { TEST_SETTINGS } from './stores.js';

/**
 * A store that one process holds (a held seen set) keeps its leases in memory, so its
 * file has no lease rows to give back when that process is killed: whoever opens the
 * store next must find every URL the dead process held queued again, the counts right,
 * and the hosts' slots free.
 */

const FIXTURE = join(import.meta.dirname, 'fixtures', 'crawler-process.ts');
const SETTINGS: FrontierSettings = { ...TEST_SETTINGS, perHost: 2 };
const URLS = Array.from({ length: 6 }, (_, i) => `http://a.test/${i}`);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store with the six URLs queued, closed; its file. */
async function storeWithUrls(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-held-crash-'));
  dirs.push(dir);
  const file = join(dir, 'frontier.db');
  const f = (await openFrontier(`sqlite+memory:${file}`, SETTINGS)) as LocalFrontier;
  const c = await f.registerCrawler('seed');
  await f.add(
    URLS.map((url) => ({ url, depth: 0, via: null })),
    [],
    c,
  );
  await f.close();
  return file;
}

/** A process holds the store, leases what it may (two: --per-host 2), and is killed; what it held. */
async function leaseAndDie(file: string): Promise<string[]> {
  const json = JSON.stringify(SETTINGS, (_k, v) => (v === Number.POSITIVE_INFINITY ? 'Infinity' : v));
  const child = spawn(
    process.execPath,
    [...(await bundledChild(FIXTURE)), `sqlite+memory:${file}`, json, 'hold'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const held = await new Promise<string[]>((resolve, reject) => {
    lines.on('line', (line) => {
      const e = JSON.parse(line) as { event: string; urls?: string[] };
      if (e.event === 'held') resolve(e.urls as string[]);
    });
    exited.then(() => reject(new Error('the holding process ended before it leased')));
  });
  child.kill('SIGKILL');
  await exited;
  return held;
}

async function leaseAllOnce(f: Frontier): Promise<string[]> {
  const c = await f.registerCrawler('after');
  return (await f.lease(10, c)).leases.map((l) => l.url);
}

describe('a store held by one process, killed with SIGKILL while it held leases', () => {
  it('is found by the next holder with those URLs queued, the counts right and the host free', async () => {
    const file = await storeWithUrls();
    const held = await leaseAndDie(file);
    expect(held).toHaveLength(2);

    const next = (await openFrontier(`sqlite+memory:${file}`, SETTINGS)) as LocalFrontier;
    try {
      expect(await next.stats()).toMatchObject({ queued: 6, leased: 0, done: 0 });
      // Both slots of the host are free again, and the head of its queue is what was held.
      expect((await leaseAllOnce(next)).sort()).toEqual([...held].sort());
      expect(await next.stats()).toMatchObject({ queued: 4, leased: 2 });
    } finally {
      await next.close();
    }
  });

  it('is found the same by a process that shares the file (the store its own seen set)', async () => {
    const file = await storeWithUrls();
    const held = await leaseAndDie(file);

    const next = (await openFrontier(`sqlite:${file}`, SETTINGS)) as LocalFrontier;
    try {
      expect(await next.stats()).toMatchObject({ queued: 6, leased: 0 });
      expect((await leaseAllOnce(next)).sort()).toEqual([...held].sort());
    } finally {
      await next.close();
    }
  });

  it('gives back, once they run out, the lease rows a process sharing the file left in it', async () => {
    const file = await storeWithUrls();
    let clock = Date.now();
    // A process that shared the file (alive, so its crawler is not taken for gone) leased two URLs.
    const shared = (await openFrontier(`sqlite:${file}`, SETTINGS, { now: () => clock })) as LocalFrontier;
    const held = await leaseAllOnce(shared);
    expect(held).toHaveLength(2);

    const next = (await openFrontier(`sqlite+memory:${file}`, SETTINGS, {
      now: () => clock,
    })) as LocalFrontier;
    try {
      // Its lease rows hold the host's two slots until they run out.
      expect(await leaseAllOnce(next)).toEqual([]);
      clock += SETTINGS.leaseMs + 1000;
      expect((await leaseAllOnce(next)).sort()).toEqual([...held].sort());
      expect(await next.stats()).toMatchObject({ queued: 4, leased: 2, expiredLeases: 2 });
    } finally {
      await next.close();
      await shared.close();
    }
  });

  it('closed with nothing leased, is opened again as it was', async () => {
    const file = await storeWithUrls();
    const f = (await openFrontier(`sqlite+memory:${file}`, SETTINGS)) as LocalFrontier;
    const c = await f.registerCrawler('a');
    const { leases } = await f.lease(10, c);
    await f.complete(
      leases.map((l) => ({
        leaseId: l.id,
        outcome: { kind: 'done' as const },
        report: { fetchMs: 1 },
        outlinks: [],
        rejected: [],
      })),
      c,
    );
    await f.close();

    const again = (await openFrontier(`sqlite+memory:${file}`, SETTINGS)) as LocalFrontier;
    try {
      expect(await again.stats()).toMatchObject({ queued: 4, leased: 0, done: 2 });
      expect(await leaseAllOnce(again)).toHaveLength(2);
    } finally {
      await again.close();
    }
  });
});
