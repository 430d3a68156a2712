import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type HostStatements,
  HostTable,
  KEPT_GENERATION,
  prepareHostStatements,
} from '../../src/frontier/sqlite/host-table.js';
import { schemaConnection } from '../../src/frontier/sqlite/open.js';

const SETTINGS = {
  perHost: 2,
  delayMs: 100,
  delayFactor: 0,
  maxDelayMs: 30_000,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
};

/** The store's own host statements on a real file, each counting how often it ran. */
function countedStatements(db: Database.Database): { st: HostStatements; runs: Map<string, number> } {
  const real = prepareHostStatements(db);
  const runs = new Map<string, number>();
  const st = {} as Record<string, unknown>;
  for (const [name, statement] of Object.entries(real)) {
    const counted =
      (method: 'get' | 'run' | 'all') =>
      (...args: unknown[]): unknown => {
        runs.set(name, (runs.get(name) ?? 0) + 1);
        return statement[method](...args);
      };
    st[name] = { get: counted('get'), run: counted('run'), all: counted('all') };
  }
  return { st: st as unknown as HostStatements, runs };
}

function storedHost(db: Database.Database, host: string): { queued: number; ready_at: number } | undefined {
  return db.prepare('SELECT queued, ready_at FROM hosts WHERE host = ?').get(host) as
    | { queued: number; ready_at: number }
    | undefined;
}

describe('a host table kept from one transaction to the next (a store one process holds)', () => {
  let dir = '';
  let db: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-host-table-'));
    db = schemaConnection(join(dir, 'frontier.db'));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a host once, and writes it only when a column changed', () => {
    const { st, runs } = countedStatements(db);
    const table = new HostTable(st, SETTINGS, false);
    db.transaction(() => {
      table.queue(table.host('a.test'), 0);
      table.flush();
    })();
    expect(storedHost(db, 'a.test')?.queued).toBe(1);
    db.transaction(() => {
      const h = table.host('a.test');
      table.queue(h, 0);
      table.flush();
      // Touched but the same as the file has it: nothing to write.
      table.touch(h);
      table.flush();
    })();
    expect(storedHost(db, 'a.test')?.queued).toBe(2);
    expect(runs.get('getHost')).toBe(1);
    expect((runs.get('putHost') ?? 0) + (runs.get('updateHost') ?? 0)).toBe(2);
  });

  it("writes a host's ready time again when only its budget changed", () => {
    const table = new HostTable(prepareHostStatements(db), SETTINGS, false);
    db.transaction(() => {
      table.queue(table.host('a.test'), 0);
      table.flush();
    })();
    db.transaction(() => {
      table.setBudget('a.test', { ...table.budget('a.test'), nextAt: 5000 });
      table.flush();
    })();
    expect(storedHost(db, 'a.test')?.ready_at).toBe(5000);
  });

  it('forgets the hosts least lately used, and reads them again as the file has them', () => {
    const { st, runs } = countedStatements(db);
    const table = new HostTable(st, SETTINGS, false);
    const named = (prefix: string) => Array.from({ length: KEPT_GENERATION }, (_, i) => `${prefix}${i}.test`);
    const [first, second] = [named('a'), named('b')];
    const write = (hosts: string[]) =>
      db.transaction(() => {
        for (const [i, host] of hosts.entries()) {
          const h = table.host(host);
          for (let n = 0; n <= i % 3; n++) table.queue(h, n);
          table.setBudget(host, { ...table.budget(host), nextAt: 1000 + i });
        }
        // Used in every transaction: never forgotten.
        table.queue(table.host('hot.test'), 0);
        table.flush();
      })();
    write(first);
    table.trim();
    write(second);
    table.trim();
    const readBefore = runs.get('getHost') ?? 0;
    const writes = () =>
      (runs.get('putHost') ?? 0) + (runs.get('updateHost') ?? 0) + (runs.get('putBudget') ?? 0);
    const written = writes();
    db.transaction(() => {
      // The second generation is kept; the first was forgotten and is read again.
      for (const [i, host] of [...second.entries(), ...first.entries()]) {
        expect(table.host(host).queued).toBe((i % 3) + 1);
        expect(table.budget(host).nextAt).toBe(1000 + i);
      }
      expect(table.host('hot.test').queued).toBe(2);
      table.flush();
    })();
    expect((runs.get('getHost') ?? 0) - readBefore).toBe(first.length);
    // Read again, the rows are as the file has them: nothing to write.
    expect(writes()).toBe(written);
  });

  it('below its bound, keeps every entry from one transaction to the next', () => {
    const { st, runs } = countedStatements(db);
    const table = new HostTable(st, SETTINGS, false);
    const hosts = Array.from({ length: KEPT_GENERATION - 1 }, (_, i) => `h${i}.test`);
    db.transaction(() => {
      for (const host of hosts) table.queue(table.host(host), 0);
      table.flush();
    })();
    table.trim();
    db.transaction(() => {
      for (const host of hosts) expect(table.host(host).queued).toBe(1);
    })();
    expect(runs.get('getHost')).toBe(hosts.length);
  });

  it('after a rollback, forgets what it held and reads the file again', () => {
    const { st, runs } = countedStatements(db);
    const table = new HostTable(st, SETTINGS, false);
    db.transaction(() => {
      table.queue(table.host('a.test'), 0);
      table.flush();
    })();
    expect(() =>
      db.transaction(() => {
        table.queue(table.host('a.test'), 0);
        table.flush();
        throw new Error('a call fails');
      })(),
    ).toThrow('a call fails');
    table.forget();
    expect(table.host('a.test').queued).toBe(1);
    expect(runs.get('getHost')).toBe(2);
  });
});
