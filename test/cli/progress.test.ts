import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { bunnyProgressLine, ProgressReporter, progressLine, summaryText } from '../../src/cli/progress.js';
import type { CrawlProgress, CrawlSummary } from '../../src/options/options.js';

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

  it("shows a bloom seen set's estimated false-positive rate as the filter fills, and nothing for an exact set", () => {
    const bloom = { kind: 'bloom', size: 800, capacity: 1000, fpRate: 0.01, estimatedFpRate: 0.0042 };
    expect(progressLine({ ...at(65_000, 9), seen: bloom })).toBe(
      'done 10  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 1m05s  bloom fp 4.2e-3',
    );
    expect(progressLine({ ...at(65_000, 9), seen: { kind: 'memory', size: 800 } })).toBe(
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

  it('clears to the end of the line on each redraw: a shorter line leaves nothing of a longer one', () => {
    const { out, text } = stream(true);
    const p = new ProgressReporter(out);
    p.update({ ...at(204_000, 1), queued: 999 });
    p.update({ ...at(205_000, 1), queued: 9 });
    // What a terminal shows: each \r goes back to the start, each ESC[K erases what follows.
    const shown = text()
      .split('\r')
      .filter((s) => s !== '')
      .at(-1);
    expect(shown).toBe('done 2  queued 9  in flight 3  12.5 pages/s  errors 1  elapsed 3m25s\x1b[K');
  });

  it('replaces the live line with the final counts before the summary', () => {
    const { out, text } = stream(true);
    const p = new ProgressReporter(out);
    p.update(at(1000, 1));
    p.finish(at(3000, 7));
    const lines = text().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]?.split('\r').at(-1)).toBe(
      'done 8  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 3s\x1b[K',
    );
  });

  it('shows the share of --max-pages spent and when the rest will be, at this rate', () => {
    // 99 of 500 with a final outcome, 12.5 pages/s: 401 left, 32 s.
    expect(progressLine(at(65_000, 98), { maxPages: 500 })).toBe(
      'done 99/500 (19%, ETA 32s)  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 1m05s',
    );
    expect(progressLine(at(65_000, 499), { maxPages: 500 })).toBe(
      'done 500/500 (100%)  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 1m05s',
    );
    expect(progressLine(at(65_000, 98), { maxPages: Number.POSITIVE_INFINITY })).toBe(
      'done 99  queued 40  in flight 3  12.5 pages/s  errors 1  elapsed 1m05s',
    );
  });

  it("shows a bunny's own pages, then the crawl's counts as its store reports them", () => {
    const { out, text } = stream(false);
    const p = new ProgressReporter(out, 5000, { line: bunnyProgressLine });
    for (let ms = 1000; ms <= 5000; ms += 1000) p.update(at(ms, 9));
    expect(text()).toBe(
      'fetched 10  12.5 pages/s  errors 1  crawl: done 10  queued 40  in flight 3  elapsed 5s\n',
    );
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

const summary = (over: Partial<CrawlSummary>): CrawlSummary => ({
  ...at(3000, 1),
  fetchedThisRun: 1,
  errorsThisRun: 0,
  modules: [],
  data: '/d',
  pagesFile: '/d/pages.jsonl',
  warcFiles: [],
  stoppedBy: 'finished',
  thisRun: { fetched: { '2xx': 1 }, failed: {}, robots: 0, refused: {} },
  changedSettings: [],
  ...over,
});

describe('the summary', () => {
  it('reads as English: 1 URL, 1 call, 2 URLs', () => {
    const text = summaryText(
      summary({
        queued: 1,
        stoppedBy: 'max-pages',
        thisRun: { fetched: { '2xx': 1 }, failed: {}, robots: 1, refused: { depth: 1 } },
        modules: [{ name: 'm', calls: 1, errors: 1, timeouts: 1, skipped: 1, meanMs: 2 }],
      }),
    );
    expect(text).toContain('1 URL stays queued');
    expect(text).toContain('  this run: 2 URLs in 3s');
    expect(text).toContain('    fetched: 1 URL (2xx 1)');
    expect(text).toContain('    disallowed by robots.txt, not fetched: 1 URL');
    expect(text).toContain('    refused, not fetched: 1 URL (depth 1)');
    expect(text).toContain('  module m: 1 call, 1 error, 1 timeout, 1 page skipped, 2.00 ms mean');
    const many = summaryText(
      summary({
        queued: 2,
        stoppedBy: 'signal',
        modules: [{ name: 'm', calls: 2, errors: 0, timeouts: 2, skipped: 0, meanMs: 0 }],
      }),
    );
    expect(many).toContain('stopped by signal; 2 URLs stay queued');
    expect(many).toContain('  module m: 2 calls, 0 errors, 2 timeouts, 0 pages skipped, 0.00 ms mean');
  });

  it('says what the seen set holds, and how likely a bloom filter is now to lose a new URL', () => {
    const bloom = {
      kind: 'bloom',
      size: 800,
      capacity: 1000,
      fpRate: 0.01,
      bits: 9600,
      hashes: 7,
      estimatedFpRate: 0.0042,
    };
    expect(summaryText(summary({ seen: bloom }))).toContain(
      '  seen set: bloom, 800 URLs of its capacity 1000 (m 9600 bits, k 7); estimated false-positive rate now 4.20e-3 (target 0.01)',
    );
    expect(summaryText(summary({ seen: { kind: 'drum', size: 1 } }))).toContain('  seen set: drum, 1 URL\n');
  });
});

describe('the exit code of a finished crawl', () => {
  it('is 4 when every URL tried failed without a response, whatever the reason', () => {
    const failures: Record<string, number>[] = [{ dns: 1 }, { refused: 2 }, { timeout: 1, dns: 1 }];
    for (const failed of failures) {
      expect(
        exitCodeOf(
          summary({ fetchedThisRun: 0, thisRun: { fetched: {}, failed, robots: 0, refused: {} } }),
          null,
        ),
      ).toBe(4);
    }
  });

  it('is 0 when something answered, or when nothing was left to try', () => {
    const one = { fetched: { '5xx': 1 }, failed: { dns: 3 }, robots: 0, refused: {} };
    expect(exitCodeOf(summary({ fetchedThisRun: 1, thisRun: one }), null)).toBe(0);
    const none = { fetched: {}, failed: {}, robots: 0, refused: {} };
    expect(exitCodeOf(summary({ fetchedThisRun: 0, thisRun: none }), null)).toBe(0);
  });

  it('is 128 + the signal when a signal stopped it', () => {
    expect(exitCodeOf(summary({ stoppedBy: 'signal' }), 'SIGINT')).toBe(130);
    expect(exitCodeOf(summary({ stoppedBy: 'signal' }), 'SIGTERM')).toBe(143);
  });
});
