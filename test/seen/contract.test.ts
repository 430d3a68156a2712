import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSeenSet, SEEN_KINDS } from '../../src/seen/open.js';
import { SqliteSeenSet } from '../../src/seen/sqlite-seen.js';
import type { SeenSet } from '../../src/seen/types.js';
import { expectedVerdicts, fps, randomFingerprints } from './fingerprint-data.js';

/**
 * The SeenSet contract, the same for every strategy. Nothing here knows which strategy
 * it tests except through `exact`: an inexact set (bloom) may answer "seen" for a new
 * fingerprint, rarely, but never "new" for one it holds.
 */
/** The strategies, and the SQLite store's own table (a set on the store's connection). */
const KINDS = [...SEEN_KINDS, 'table'] as const;

/** The table set on a connection of its own, closed with the set, as the store's closes with the store. */
function openTable(dir: string): SeenSet {
  const db = new Database(join(dir, 'frontier.db'));
  const set = new SqliteSeenSet(db);
  return {
    exact: set.exact,
    get size() {
      return set.size;
    },
    insertNew: (fps) => set.insertNew(fps),
    flush: () => set.flush(),
    async close() {
      await set.close();
      db.close();
    },
  };
}

describe.each(KINDS)('the %s seen set keeps the SeenSet contract', (kind) => {
  let dir: string;
  let opened: SeenSet[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `cobweb-seen-${kind}-`));
    opened = [];
  });

  afterEach(async () => {
    for (const set of opened) await set.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  // Options every strategy accepts; each takes what concerns it. A small drum buffer and
  // wait make its merges many and quick.
  async function open(): Promise<SeenSet> {
    if (kind === 'table') {
      const table = openTable(dir);
      opened.push(table);
      return table;
    }
    const set = await openSeenSet(kind, {
      dir,
      capacity: 1_000_000,
      fpRate: 1e-6,
      bufferSize: 50_000,
      maxWaitMs: 2,
    });
    opened.push(set);
    return set;
  }

  /** Exact: the answers are the truth. Inexact: no "new" for a held one, and false "seen" are rare. */
  function expectAnswers(set: SeenSet, got: boolean[], truth: boolean[]): void {
    expect(got).toHaveLength(truth.length);
    if (set.exact) {
      expect(got).toEqual(truth);
      return;
    }
    const falseNegatives = truth.filter((isNew, i) => !isNew && got[i]).length;
    const falsePositives = truth.filter((isNew, i) => isNew && !got[i]).length;
    expect(falseNegatives).toBe(0);
    expect(falsePositives).toBeLessThanOrEqual(1 + truth.length / 1000);
  }

  it('answers new at first sight and seen afterwards', async () => {
    const set = await open();
    expectAnswers(set, await set.insertNew(fps(1n, 2n, 3n)), [true, true, true]);
    expectAnswers(set, await set.insertNew(fps(2n, 4n, 1n)), [false, true, false]);
    expectAnswers(set, await set.insertNew(fps(4n)), [false]);
  });

  it('takes a fingerprint repeated within one call as new at its first occurrence only', async () => {
    const set = await open();
    expectAnswers(set, await set.insertNew(fps(7n, 7n, 8n, 7n, 8n)), [true, false, true, false, false]);
  });

  it('answers in the order of the input', async () => {
    const set = await open();
    await set.insertNew(fps(10n, 30n, 50n));
    const call = fps(60n, 10n, 20n, 30n, 40n, 50n, 70n);
    expectAnswers(set, await set.insertNew(call), [true, false, true, false, true, false, true]);
  });

  it('resolves calls in the order they were made, each after the marks of the ones before', async () => {
    const set = await open();
    const calls = [fps(1n, 2n), fps(2n, 3n), fps(), fps(3n, 4n, 1n), fps(5n)];
    const order: number[] = [];
    const answers = await Promise.all(
      calls.map((call, i) =>
        set.insertNew(call).then((answer) => {
          order.push(i);
          return answer;
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
    const truth = expectedVerdicts(calls);
    answers.forEach((answer, i) => {
      expectAnswers(set, answer, truth[i] ?? []);
    });
  });

  it('counts the fingerprints it holds in size', async () => {
    const set = await open();
    expect(set.size).toBe(0);
    const batch = randomFingerprints(10_000, 1);
    await set.insertNew(batch);
    await set.insertNew(batch.subarray(0, 5_000));
    if (set.exact) expect(set.size).toBe(10_000);
    else expect(set.size).toBeGreaterThanOrEqual(10_000 - 10);
  });

  it('treats the zero fingerprint and the largest like any other', async () => {
    const set = await open();
    const edges = fps(0n, 2n ** 64n - 1n, 2n ** 63n, 1n);
    expectAnswers(set, await set.insertNew(edges), [true, true, true, true]);
    expectAnswers(set, await set.insertNew(edges), [false, false, false, false]);
  });

  it('keeps every mark through flush, close and a new open', async () => {
    const first = await open();
    const held = randomFingerprints(20_000, 2);
    await first.insertNew(held);
    await first.flush();
    await first.close();

    const again = await open();
    expect(again.size).toBe(first.exact ? 20_000 : first.size);
    const fresh = randomFingerprints(1_000, 3);
    const mixed = new BigUint64Array([...held.subarray(0, 1_000), ...fresh]);
    const truth = [...Array<boolean>(1_000).fill(false), ...Array<boolean>(1_000).fill(true)];
    expectAnswers(again, await again.insertNew(mixed), truth);
  });

  it('keeps, on close alone, the marks of calls that had resolved', async () => {
    const first = await open();
    await first.insertNew(fps(11n, 12n));
    await first.close();
    const again = await open();
    expectAnswers(again, await again.insertNew(fps(12n, 13n, 11n)), [false, true, false]);
  });

  it('refuses calls after close with a message that says so', async () => {
    const set = await open();
    await set.close();
    await expect(set.insertNew(fps(1n))).rejects.toThrow(/closed/);
  });

  it('handles large batches: 300,000 fingerprints in one call, a third of them repeats', async () => {
    const set = await open();
    const distinct = randomFingerprints(200_000, 4);
    const call = new BigUint64Array(300_000);
    call.set(distinct);
    call.set(distinct.subarray(50_000, 150_000), 200_000);
    const answer = await set.insertNew(call);
    expectAnswers(set, answer, expectedVerdicts([call])[0] ?? []);
    expectAnswers(set, await set.insertNew(distinct.subarray(0, 1_000)), Array(1_000).fill(false));
  });

  it('never says new for a fingerprint it holds, over a long stream of calls', async () => {
    const set = await open();
    const pool = randomFingerprints(60_000, 5);
    const calls: BigUint64Array[] = [];
    let next = 0;
    for (let c = 0; c < 60; c++) {
      // About 80% of each call repeats fingerprints met before, as links on a crawl do.
      const call = new BigUint64Array(2_000);
      for (let i = 0; i < call.length; i++) {
        const repeat = next > 0 && (i * 7 + c) % 10 < 8;
        call[i] = pool[repeat ? (i * 7919 + c * 104_729) % next : next++] as bigint;
      }
      calls.push(call);
    }
    // Half the calls are made without waiting, as a frontier with many pages in flight does.
    const answers: boolean[][] = [];
    for (let c = 0; c < calls.length; c += 2) {
      answers.push(...(await Promise.all(calls.slice(c, c + 2).map((call) => set.insertNew(call)))));
    }
    const truth = expectedVerdicts(calls);
    const flat = answers.flat();
    expectAnswers(set, flat, truth.flat());
  });
});
