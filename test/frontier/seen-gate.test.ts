import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFrontier } from '../../src/frontier/open-store.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { LocalFrontier, NewLink } from '../../src/frontier/types.js';
import { bundledChild } from '../helpers/bundled-child.js';
import { TEST_SETTINGS } from './stores.js';

/** Who may hold a store's seen set, and what a store does when it changes hands or kind. */

const FIXTURE = join(import.meta.dirname, 'fixtures', 'crawler-process.ts');
let dir: string;
let file: string;
const opened: LocalFrontier[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-seen-gate-'));
  file = join(dir, 'frontier.db');
});

afterEach(async () => {
  for (const f of opened.splice(0)) await f.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function open(spec: string): Promise<LocalFrontier> {
  const f = await openFrontier(spec, TEST_SETTINGS);
  opened.push(f);
  return f;
}

const links = (...paths: string[]): NewLink[] =>
  paths.map((p) => ({ url: `http://a.test/${p}`, depth: 0, via: null }));

describe('a store with a held seen set', () => {
  it('is refused to another process while held, with a line that says what to do', async () => {
    await open(`sqlite+drum:${file}`);
    const child = spawn(
      process.execPath,
      [...(await bundledChild(FIXTURE)), `sqlite+memory:${file}`, JSON.stringify(TEST_SETTINGS), 'hold'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/seen set of .* is held by another process/);
  });

  it('is refused to a handle on its own table while held, in this process too', async () => {
    await open(`sqlite+memory:${file}`);
    await expect(openFrontier(`sqlite:${file}`, TEST_SETTINGS)).rejects.toThrow(
      /crawled with the memory seen set, which one process holds/,
    );
  });

  it('goes back to its own table once nobody holds the set, knowing every URL', async () => {
    const held = await open(`sqlite+lmdb:${file}`);
    const c = await held.registerCrawler('a');
    expect((await held.add(links('1', '2'), [], c)).added).toBe(2);
    await held.close();
    const table = await open(`sqlite:${file}`);
    const d = await table.registerCrawler('b');
    expect((await table.add(links('1', '2', '3'), [], d)).added).toBe(1);
  });

  it('stops a handle on the table that another handle has taken the seen set from', async () => {
    const table = await open(`sqlite:${file}`);
    const c = await table.registerCrawler('a');
    await table.add(links('1'), [], c);
    const held = await open(`sqlite+memory:${file}`);
    const d = await held.registerCrawler('b');
    expect((await held.add(links('1', '2'), [], d)).added).toBe(1);
    await expect(table.add(links('3'), [], c)).rejects.toThrow(/now crawled with the memory seen set/);
  });

  it('lets an add waiting for its answers commit before it closes, so the mark is never without its row', async () => {
    const f = await openFrontier(`sqlite+drum:${file}`, TEST_SETTINGS);
    const c = await f.registerCrawler('a');
    const adding = f.add(links('late'), [], c); // drum answers after its next merge
    await f.close();
    expect((await adding).added).toBe(1);
    const again = await open(`sqlite+drum:${file}`);
    expect(await again.stats()).toMatchObject({ queued: 1 });
    expect((await again.add(links('late'), [], await again.registerCrawler('b'))).added).toBe(0);
  });

  it('fills a set of another kind from the store when reopened with it', async () => {
    for (const [i, kind] of ['memory', 'drum', 'bloom', 'lmdb', 'drum'].entries()) {
      const f = await open(`sqlite+${kind}:${file}`);
      const c = await f.registerCrawler(kind);
      // every URL of the runs before is known; one new one each time
      const all = Array.from({ length: i + 1 }, (_, j) => String(j));
      expect((await f.add(links(...all), [], c)).added).toBe(1);
      await f.close();
      opened.splice(opened.indexOf(f), 1);
    }
  });

  it("reports its seen set in stats(): the kind and size, and a bloom filter's estimated false-positive rate as it fills", async () => {
    const f = await SqliteFrontier.open(file, TEST_SETTINGS, {
      seen: { kind: 'bloom', capacity: 1000, fpRate: 0.01 },
    });
    opened.push(f);
    const c = await f.registerCrawler('a');
    const rates: number[] = [];
    for (let part = 0; part < 4; part++) {
      await f.add(
        Array.from({ length: 250 }, (_, i) => ({ url: `http://a.test/${part}-${i}`, depth: 0, via: null })),
        [],
        c,
      );
      const seen = (await f.stats()).seen;
      expect(seen).toMatchObject({ kind: 'bloom', capacity: 1000, fpRate: 0.01 });
      expect(seen?.size).toBeGreaterThan(part * 250);
      rates.push(seen?.estimatedFpRate as number);
    }
    // It climbs as the filter fills, and at capacity it is the rate the filter was sized for.
    for (let i = 1; i < rates.length; i++) expect(rates[i] as number).toBeGreaterThan(rates[i - 1] as number);
    expect(rates[3] as number).toBeGreaterThan(0.01 / 1.5);
    expect(rates[3] as number).toBeLessThan(0.01 * 1.5);

    const exact = await open(`sqlite+memory:${join(dir, 'other.db')}`);
    await exact.add(links('x', 'y'), [], await exact.registerCrawler('b'));
    expect((await exact.stats()).seen).toEqual({ kind: 'memory', size: 2 });
  });
});
