import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openFrontier } from '../../src/frontier/open-store.js';
import { expectOnlyMissingNew, feedAndKill } from './fixtures/feed-and-kill.js';
import { TEST_SETTINGS } from './stores.js';

/**
 * kill -9 of a process writing to a store with a held seen set, three times in a row at
 * random moments, for every strategy. Then: every call that had resolved is in the
 * store, no URL has two rows, and offering every URL ever offered queues exactly the
 * ones the store lacks: the set held nothing the store did not (nothing lost), and
 * forgot nothing the store had (nothing queued twice).
 */

const ROUNDS = 3;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

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
        const run = await feedAndKill([spec, String(round)], 10 + Math.floor(Math.random() * 50));
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
        await expectOnlyMissingNew(f, offered, stored);
      } finally {
        await f.close();
      }
      const after = rowsOf(file);
      expect(after.length).toBe(new Set(after).size);
      expect(new Set(after)).toEqual(new Set([...stored, ...offered]));
    });
  },
);
