import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DrumSeenSet } from '../../src/seen/drum.js';
import { Journal } from '../../src/seen/drum-files.js';
import { wordsOf } from '../../src/seen/words.js';
import { expectedVerdicts, randomFingerprints } from './fingerprint-data.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the drum seen set', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-drum-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('undoes at open the merges its caller had not flushed when the process was killed, a large one included', () => {
    // 150,000 new fingerprints: one journal record longer than the slice it is read in.
    const drumUrl = new URL('../../src/seen/drum.ts', import.meta.url).href;
    const dataUrl = new URL('./fingerprint-data.ts', import.meta.url).href;
    const script = join(dir, 'merge-then-die.mts');
    writeFileSync(
      script,
      `import { DrumSeenSet } from ${JSON.stringify(drumUrl)};
import { randomFingerprints } from ${JSON.stringify(dataUrl)};
const set = await DrumSeenSet.open({ dir: ${JSON.stringify(join(dir, 'set'))}, maxWaitMs: 1 });
await set.insertNew(randomFingerprints(3000, 1));
await set.flush();
const later = await set.insertNew(randomFingerprints(150_000, 2));
process.stdout.write(later.filter(Boolean).length + ' new, merged, not flushed\\n');
process.kill(process.pid, 'SIGKILL');
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toBe('150000 new, merged, not flushed\n');
    // The unflushed merge is in the sorted file, and its undo record in the journal.
    expect(statSync(join(dir, 'set', 'seen.drum')).size).toBe(24 + 153_000 * 8);
    expect(statSync(join(dir, 'set', 'seen.drum-journal')).size).toBeGreaterThan(150_000 * 8);

    return (async () => {
      const set = await DrumSeenSet.open({ dir: join(dir, 'set'), maxWaitMs: 1 });
      expect(set.size).toBe(3000);
      expect(statSync(join(dir, 'set', 'seen.drum-journal')).size).toBe(0);
      expect((await set.insertNew(randomFingerprints(3000, 1))).every((isNew) => !isNew)).toBe(true);
      expect((await set.insertNew(randomFingerprints(150_000, 2))).every((isNew) => isNew)).toBe(true);
      await set.close();
    })();
  });

  it('keeps, after a kill, every merge whose calls had all resolved when it flushed, when calls straddle the batches', () => {
    // 300-fingerprint calls made at once into a 1,000-fingerprint buffer that merges only
    // when full: batch k holds fingerprints 1000(k-1) to 1000k, so most end inside a call.
    const drumUrl = new URL('../../src/seen/drum.ts', import.meta.url).href;
    const dataUrl = new URL('./fingerprint-data.ts', import.meta.url).href;
    const script = join(dir, 'straddle-then-die.mts');
    writeFileSync(
      script,
      `import { DrumSeenSet } from ${JSON.stringify(drumUrl)};
import { randomFingerprints } from ${JSON.stringify(dataUrl)};
const set = await DrumSeenSet.open({ dir: ${JSON.stringify(join(dir, 'set'))}, bufferSize: 1000, maxWaitMs: 3600000 });
const calls = Array.from({ length: 29 }, (_, i) => set.insertNew(randomFingerprints(300, 500 + i)));
// 8,700 fingerprints: 8 full batches merge; the 9th (700) waits. Calls 1-26 end by 7,800.
await Promise.all(calls.slice(0, 26));
await set.flush();
process.stdout.write(set.stats().merges + ' merges\\n');
process.kill(process.pid, 'SIGKILL');
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toBe('8 merges\n');
    return (async () => {
      const set = await DrumSeenSet.open({ dir: join(dir, 'set'), maxWaitMs: 1 });
      // Merge 8 holds the start of call 27, which had not resolved: it is undone. Merges
      // 1-7 held only calls that had resolved when flush() was called: they stay.
      expect(set.size).toBe(7 * 1000);
      await set.close();
    })();
  });

  it('merges at once on mergeNow(), however long it would otherwise wait', async () => {
    const set = await DrumSeenSet.open({ dir, bufferSize: 1_000_000, maxWaitMs: 3_600_000 });
    const answers: boolean[][] = [];
    const first = set.insertNew(randomFingerprints(10, 3)).then((answer) => answers.push(answer));
    const second = set.insertNew(randomFingerprints(10, 3)).then((answer) => answers.push(answer));
    await set.mergeNow();
    // Both calls resolved before mergeNow() did: the pass boundary holds.
    expect(answers).toEqual([Array(10).fill(true), Array(10).fill(false)]);
    await Promise.all([first, second]);
    await set.close();
  });

  it('keeps its file sorted and distinct, its header counting what the set holds', async () => {
    const set = await DrumSeenSet.open({ dir, bufferSize: 4_000, maxWaitMs: 1 });
    for (let part = 0; part < 10; part++) {
      const batch = randomFingerprints(3_000, 50 + part);
      batch.set(randomFingerprints(1_000, 50), 0); // repeats across parts
      await set.insertNew(batch);
    }
    await set.close();
    const bytes = readFileSync(join(dir, 'seen.drum'));
    expect(bytes.toString('latin1', 0, 8)).toBe('CWDRUM01');
    const count = Number(bytes.readBigUInt64LE(8));
    expect(count).toBe(set.size);
    expect(count).toBe(1_000 + 10 * 2_000);
    const held = new BigUint64Array(
      bytes.buffer.slice(bytes.byteOffset + 24, bytes.byteOffset + bytes.length),
    );
    expect(held.length).toBe(count);
    for (let i = 1; i < held.length; i++) expect((held[i] as bigint) > (held[i - 1] as bigint)).toBe(true);
  });

  it('never grows its buffer: calls that do not fit wait for the merge, then are answered in order', async () => {
    // Merges start only on a full buffer: the timer never fires in this test.
    const set = await DrumSeenSet.open({ dir, bufferSize: 1_000, maxWaitMs: 3_600_000 });
    const calls = Array.from({ length: 20 }, (_, i) => {
      const call = randomFingerprints(300, 100 + i);
      call.set(randomFingerprints(100, 100), 0); // repeats across calls
      return call;
    });
    calls.push(randomFingerprints(2_500, 99)); // larger than the whole buffer
    const seen: ReturnType<DrumSeenSet['stats']>[] = [];
    const look = () => seen.push(set.stats());
    // Every call made at once, none awaited, as a frontier with many pages in flight does.
    const answers = calls.map((call) => {
      const answer = set.insertNew(call);
      look();
      void answer.then(look);
      return answer;
    });
    await set.mergeNow();
    const got = await Promise.all(answers);
    expect(got).toEqual(expectedVerdicts(calls));
    for (const s of seen) {
      expect(s.buffered).toBeLessThanOrEqual(1_000);
      expect(s.bufferCapacity).toBe(1_000);
      expect(s.merging).toBeLessThanOrEqual(1_000);
    }
    // Backpressure happened: some fingerprints waited outside the buffer while a merge ran.
    expect(Math.max(...seen.map((s) => s.waiting))).toBeGreaterThan(0);
    expect(set.stats().merges).toBeGreaterThanOrEqual(Math.ceil((20 * 300 + 2_500) / 1_000));
    await set.close();
  });

  it("merges on its own thread: the caller's event loop turns while a large merge runs", async () => {
    const set = await DrumSeenSet.open({ dir, bufferSize: 1 << 20, maxWaitMs: 3_600_000 });
    await set.insertNew(randomFingerprints(1 << 20, 7)); // a file to merge against
    let turnsDuringMerge = 0;
    let answered = false;
    const big = set.insertNew(randomFingerprints(1 << 20, 8)).then((answer) => {
      answered = true;
      return answer;
    });
    expect(set.stats().merging).toBe(1 << 20); // the full buffer went to the merging thread at once
    // A call made now is taken into the other buffer while the merge goes on.
    const small = set.insertNew(randomFingerprints(10, 9));
    expect(set.stats().buffered).toBe(10);
    await new Promise<void>((resolve) => {
      const turn = () => {
        if (answered) return resolve();
        if (set.stats().merging > 0) turnsDuringMerge++;
        setImmediate(turn);
      };
      setImmediate(turn);
    });
    // Had the merge run on this thread, no turn of the loop could have seen it running.
    expect(turnsDuringMerge).toBeGreaterThan(1);
    expect((await big).every(Boolean)).toBe(true);
    await set.mergeNow();
    expect((await small).every(Boolean)).toBe(true);
    await set.close();
  });

  it('removes what a merge cut short left behind', async () => {
    const first = await DrumSeenSet.open({ dir, maxWaitMs: 1 });
    await first.insertNew(randomFingerprints(100, 4));
    await first.close();
    writeFileSync(join(dir, 'seen.drum.tmp'), 'half a merge');
    const again = await DrumSeenSet.open({ dir, maxWaitMs: 1 });
    expect(existsSync(join(dir, 'seen.drum.tmp'))).toBe(false);
    expect(again.size).toBe(100);
    await again.close();
  });

  it('says in one line what to do with a damaged file', async () => {
    writeFileSync(join(dir, 'seen.drum'), 'CWDRUM01 and then nothing right');
    await expect(DrumSeenSet.open({ dir })).rejects.toThrow(
      /^the drum seen set in .* cannot open: .*seen\.drum is not a complete drum seen-set file: delete the folder's seen\.drum\* files to start anew$/,
    );
  });
});

describe("drum's journal", () => {
  it('keeps the records after the flush mark whole when it drops the others, however large they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cobweb-drum-journal-'));
    try {
      const journal = new Journal(join(dir, 'seen.drum-journal'));
      // Records of 100,000 and 150,000 fingerprints: longer than the slice they are copied in.
      const batches = [
        [1, randomFingerprints(70_000, 11)],
        [2, randomFingerprints(100_000, 12)],
        [3, randomFingerprints(150_000, 13)],
      ] as const;
      for (const [batch, keys] of batches) {
        journal.append(
          batch,
          { words: wordsOf(keys), at: new Uint32Array(keys.length), count: keys.length },
          new Uint8Array(keys.length).fill(1),
          keys.length,
        );
      }
      journal.dropThrough(1);
      const kept = new Map<number, number[]>();
      journal.forEach((batch, words) => {
        kept.set(batch, [...(kept.get(batch) ?? []), ...words]);
      });
      expect([...kept.keys()]).toEqual([2, 3]);
      expect(kept.get(2)).toEqual([...wordsOf(batches[1][1])]);
      expect(kept.get(3)).toEqual([...wordsOf(batches[2][1])]);
      expect(journal.bytes).toBe(2 * 16 + 250_000 * 8);
      journal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
