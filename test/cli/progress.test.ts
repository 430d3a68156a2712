import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CrawlProgress } from '../../src/bunny/options.js';
import { ProgressReporter, progressLine } from '../../src/cli/progress.js';

/** A real stream that collects what is written, with the TTY properties a terminal has or not. */
function stream(isTTY: boolean): { out: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const w = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(w, { isTTY, columns: 80 });
  return { out: w, text: () => text };
}

const at = (elapsedMs: number, done: number): CrawlProgress => ({
  done,
  failed: 1,
  queued: 40,
  inFlight: 3,
  rejected: 2,
  fetchedThisRun: done + 1,
  errorsThisRun: 1,
  elapsedMs,
  pagesPerSec: 12.5,
});

describe('progress', () => {
  it('says done, queued, pages/s, errors and elapsed time', () => {
    expect(progressLine(at(65_000, 9))).toBe(
      'done 10  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 1m05s',
    );
  });

  it('redraws one line on a terminal', () => {
    const { out, text } = stream(true);
    const p = new ProgressReporter(out);
    p.update(at(1000, 1));
    p.update(at(2000, 2));
    p.finish();
    expect(
      text()
        .split('\r')
        .filter((s) => s !== ''),
    ).toHaveLength(2);
    expect(text().endsWith('\n')).toBe(true);
    expect(text().split('\n')).toHaveLength(2);
  });

  it('prints a plain line every few seconds elsewhere', () => {
    const { out, text } = stream(false);
    const p = new ProgressReporter(out, 5000);
    for (let ms = 1000; ms <= 12_000; ms += 1000) p.update(at(ms, ms / 1000));
    p.finish();
    expect(text().includes('\r')).toBe(false);
    expect(
      text()
        .trim()
        .split('\n')
        .map((l) => l.split('  ').at(-1)),
    ).toEqual(['elapsed 5s', 'elapsed 10s']);
  });
});
