import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openFrontier } from '../../src/frontier/open-store.js';
import { TEST_SETTINGS } from './stores.js';

/**
 * kill -9 of a process writing to a store with a held seen set, three times in a row at
 * random moments, for every strategy. Then: every call that had resolved is in the
 * store, no URL has two rows, and offering every URL ever offered queues exactly the
 * ones the store lacks: the set held nothing the store did not (nothing lost), and
 * forgot nothing the store had (nothing queued twice).
 */

const CHILD = join(import.meta.dirname, 'fixtures', 'seen-crash-child.ts');
const ROUNDS = 3;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the child until `okCount` calls have resolved, then kills it; returns what it offered and what resolved. */
async function runAndKill(spec: string, round: number, okCount: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, spec, String(round)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const offered = new Map<string, string[]>();
  const resolved: string[] = [];
  let oks = 0;
  const lines = createInterface({ input: child.stdout });
  const enough = new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      const e = JSON.parse(line) as { event: string; call?: string; urls?: string[] };
      if (e.event === 'offer') offered.set(e.call as string, e.urls as string[]);
      if (e.event === 'ok') {
        resolved.push(e.call as string);
        if (++oks === okCount) resolve();
      }
    });
  });
  const exited = once(child, 'exit');
  await Promise.race([enough, exited]);
  child.kill('SIGKILL');
  await exited;
  return {
    offered: [...offered.values()].flat(),
    confirmed: resolved.flatMap((c) => offered.get(c) ?? []),
  };
}

function rowsOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT url FROM urls').pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe.each(['memory', 'bloom', 'lmdb', 'drum'])(
  'a store with the %s seen set, killed with SIGKILL',
  (kind) => {
    it('loses no URL and queues none twice', async () => {
      const dir = mkdtempSync(join(tmpdir(), `cobweb-seen-crash-${kind}-`));
      dirs.push(dir);
      const file = join(dir, 'frontier.db');
      const spec = `sqlite+${kind}:${file}`;
      const offered = new Set<string>();
      const confirmed = new Set<string>();
      for (let round = 0; round < ROUNDS; round++) {
        const run = await runAndKill(spec, round, 10 + Math.floor(Math.random() * 50));
        for (const u of run.offered) offered.add(u);
        for (const u of run.confirmed) confirmed.add(u);
      }
      expect(confirmed.size).toBeGreaterThan(0);

      const rows = rowsOf(file);
      const stored = new Set(rows);
      expect(rows.length).toBe(stored.size); // no URL queued twice
      for (const u of confirmed) expect(stored.has(u), u).toBe(true); // nothing that resolved lost

      const f = await openFrontier(spec, TEST_SETTINGS);
      try {
        const c = await f.registerCrawler('check');
        const all = [...offered];
        const missing = all.filter((u) => !stored.has(u));
        const { added } = await f.add(
          all.map((url) => ({ url, depth: 1, via: null })),
          [],
          c,
        );
        // The set says new for exactly the URLs the store lacks.
        expect(added).toBe(missing.length);
      } finally {
        await f.close();
      }
      const after = rowsOf(file);
      expect(after.length).toBe(new Set(after).size);
      expect(new Set(after)).toEqual(new Set([...stored, ...offered]));
    });
  },
);
