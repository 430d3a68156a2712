import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/web/prng.js';
import { openSeenSet, SEEN_KINDS } from '../../src/seen/open.js';
import { bundledChild } from '../helpers/bundled-child.js';
import { freshOfBatch } from './fingerprint-data.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

interface KilledRun {
  resolved: Set<number>;
  lastResolved: number;
  flushedThrough: number;
  wrong: string[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the child on `dir` from batch `first` and kills it with SIGKILL once it has flushed and gone on a little. */
async function runAndKill(kind: string, dir: string, first: number, killAfter: number): Promise<KilledRun> {
  const child = spawn(process.execPath, [...(await bundledChild(childScript)), kind, dir, String(first)], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: KilledRun = {
    resolved: new Set(),
    lastResolved: first - 1,
    flushedThrough: first - 1,
    wrong: [],
    signal: null,
    stderr: '',
  };
  child.stderr.on('data', (chunk) => {
    run.stderr += String(chunk);
  });
  let killing = false;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const [word, value] = line.split(' ');
    if (word === 'resolved') {
      run.resolved.add(Number(value));
      run.lastResolved = Math.max(run.lastResolved, Number(value));
    } else if (word === 'flushed') run.flushedThrough = Number(value);
    else if (word === 'WRONG') run.wrong.push(line);
    if (!killing && run.flushedThrough >= first && run.resolved.size >= killAfter) {
      killing = true;
      child.kill('SIGKILL');
    }
  });
  // Bounded: a child that never gets there is killed anyway.
  const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
  run.signal = await new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  clearTimeout(guard);
  return run;
}

function concat(parts: BigUint64Array[]): BigUint64Array {
  const out = new BigUint64Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

describe.each(SEEN_KINDS)('the %s seen set after kill -9', (kind) => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `cobweb-seen-kill-${kind}-`));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every flushed mark and claims none whose call had not resolved, kill after kill', async () => {
    const random = mulberry32(kind.length * 7919);
    for (let cycle = 1; cycle <= 3; cycle++) {
      const first = cycle * 1_000_000;
      const run = await runAndKill(kind, dir, first, 20 + Math.floor(random() * 40));
      expect(run.stderr).toBe('');
      expect(run.signal).toBe('SIGKILL');
      expect(run.wrong).toEqual([]);
      expect(run.flushedThrough).toBeGreaterThanOrEqual(first);

      const set = await openSeenSet(kind, { dir, capacity: 2_000_000, fpRate: 1e-7 });
      // Calls are made four at a time: up to four past the last resolved one were in
      // flight, and any later one was never made. None of them may be taken as seen.
      const unresolved: BigUint64Array[] = [];
      for (let batch = run.lastResolved + 1; batch <= run.lastResolved + 8; batch++) {
        expect(run.resolved.has(batch)).toBe(false);
        unresolved.push(freshOfBatch(batch));
      }
      const unresolvedAnswers = await set.insertNew(concat(unresolved));
      const claimedSeen = unresolvedAnswers.filter((isNew) => !isNew).length;
      if (set.exact) expect(claimedSeen).toBe(0);
      else expect(claimedSeen).toBeLessThanOrEqual(2);

      const flushed: BigUint64Array[] = [];
      for (let batch = first; batch <= run.flushedThrough; batch++) flushed.push(freshOfBatch(batch));
      const flushedAnswers = await set.insertNew(concat(flushed));
      expect(flushedAnswers.filter((isNew) => isNew).length).toBe(0);
      await set.close();
    }
  });
});
