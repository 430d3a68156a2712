import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/frontier/postgres/database.js';
import { PostgresFrontier } from '../../src/frontier/postgres/postgres-frontier.js';
import { SharedRead } from '../../src/frontier/postgres/shared-read.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { TEST_SETTINGS } from './stores.js';

// A read of the whole crawl, shared by the crawl's processes: each Database here is a
// process's own connection pool, and each read counts the times it ran.

const postgres = postgresPerTest('the shared reads of the PostgreSQL store');
const opened: Database[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function crawlOf(): Promise<number> {
  const store = await PostgresFrontier.open(postgres.db, TEST_SETTINGS);
  const id = store.crawlId;
  await store.close();
  return id;
}

function process(): Database {
  const db = new Database(postgres.db);
  opened.push(db);
  return db;
}

/** A read that answers `answer`, after `wait()` when one is given; `runs` counts its runs. */
function counted(
  answer: { n: number },
  wait?: () => Promise<void>,
): { runs: number; fn: () => Promise<{ n: number }> } {
  const read = {
    runs: 0,
    fn: async () => {
      read.runs++;
      await wait?.();
      return answer;
    },
  };
  return read;
}

describe('a read of the whole crawl, shared by its processes', () => {
  it('another process takes the answer while it is fresh: the read runs once for the crawl', async () => {
    const crawl = await crawlOf();
    const first = counted({ n: 1 }, () => new Promise((r) => setTimeout(r, 20)));
    const second = counted({ n: 2 });
    // A read of 20 ms stays fresh for a million times that: as long as this test runs.
    const a = new SharedRead(process(), crawl, 'hosts', first.fn, 1_000_000);
    const b = new SharedRead(process(), crawl, 'hosts', second.fn, 1_000_000);
    expect(await a.get()).toEqual({ n: 1 });
    expect(await b.get()).toEqual({ n: 1 });
    expect(await a.get()).toEqual({ n: 1 });
    expect([first.runs, second.runs]).toEqual([1, 0]);
  });

  it('while one process reads, the others take the last answer; then the new one is the answer', async () => {
    const crawl = await crawlOf();
    let release = (): void => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const stale = counted({ n: 1 });
    const slow = counted({ n: 2 }, () => gate);
    const other = counted({ n: 3 });
    // A share of 1: an answer is never fresh, so every ask wants a read.
    const a = new SharedRead(process(), crawl, 'hosts', stale.fn, 1);
    const b = new SharedRead(process(), crawl, 'hosts', slow.fn, 1);
    const c = new SharedRead(process(), crawl, 'hosts', other.fn, 1);
    expect(await a.get()).toEqual({ n: 1 });
    const reading = b.get();
    while (slow.runs === 0) await new Promise((r) => setTimeout(r, 5));
    expect(await c.get()).toEqual({ n: 1 });
    expect(other.runs).toBe(0);
    release();
    expect(await reading).toEqual({ n: 2 });
    expect(await c.get()).toEqual({ n: 3 });
    expect([stale.runs, slow.runs, other.runs]).toEqual([1, 1, 1]);
  });

  it('two crawls in one database, or two reads of one crawl, keep their answers apart', async () => {
    const crawl = await crawlOf();
    const other = await PostgresFrontier.open(postgres.db, TEST_SETTINGS, { crawl: 'other' });
    const otherCrawl = other.crawlId;
    await other.close();
    const db = process();
    const hosts = new SharedRead(db, crawl, 'hosts', async () => ({ n: 1 }), 1_000_000);
    const count = new SharedRead(db, crawl, 'host-count', async () => ({ n: 2 }), 1_000_000);
    const elsewhere = new SharedRead(db, otherCrawl, 'hosts', async () => ({ n: 3 }), 1_000_000);
    expect([await hosts.get(), await count.get(), await elsewhere.get()]).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
  });
});
