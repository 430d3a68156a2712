import type { CrawlProgress, CrawlSummary } from '../bunny/options.js';

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(sec).padStart(2, '0')}s`
      : `${sec}s`;
}

export function progressLine(p: CrawlProgress): string {
  return (
    `done ${p.done + p.failed}  queued ${p.queued}  in flight ${p.inFlight}  ` +
    `${p.pagesPerSec.toFixed(1)} pages/s  errors ${p.errorsThisRun}  elapsed ${duration(p.elapsedMs)}`
  );
}

/**
 * On a terminal, one line redrawn in place; otherwise (a log file, CI) a plain line every
 * few seconds, so logs stay readable.
 */
export class ProgressReporter {
  private lastPlain = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly plainEveryMs = 5000,
  ) {}

  get intervalMs(): number {
    return this.out.isTTY ? 500 : 1000;
  }

  update(p: CrawlProgress): void {
    const line = progressLine(p);
    if (this.out.isTTY) {
      const width = this.out.columns ?? 120;
      this.out.write(`\r${line.slice(0, width - 1).padEnd(width - 1)}`);
      this.drawn = true;
    } else if (p.elapsedMs - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = p.elapsedMs;
      this.out.write(`${line}\n`);
    }
  }

  /** Ends the live line so whatever follows starts on a fresh one. */
  finish(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}

export function summaryText(s: CrawlSummary): string {
  const outcomes = Object.entries(s.outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const ended =
    s.stoppedBy === 'finished'
      ? 'finished: nothing left to fetch'
      : s.stoppedBy === 'max-pages'
        ? `stopped at --max-pages; ${s.queued} URLs stay queued (run again with a higher --max-pages to go on)`
        : `stopped by signal; ${s.queued} URLs stay queued (run the same command again to resume)`;
  return [
    `cobweb: ${ended}`,
    `  this run: ${s.fetchedThisRun} fetched in ${duration(s.elapsedMs)} (${s.pagesPerSec.toFixed(1)} pages/s)${outcomes === '' ? '' : `: ${outcomes}`}`,
    `  store: ${s.done} done, ${s.failed} failed, ${s.rejected} refused, ${s.queued} queued`,
    ...moduleLines(s),
    `  pages: ${s.pagesFile}`,
    `  warc:  ${s.warcFiles.length === 0 ? '(none this run)' : s.warcFiles.join(', ')}`,
  ].join('\n');
}

function moduleLines(s: CrawlSummary): string[] {
  const lines = s.modules.map(
    (m) =>
      `  module ${m.name}: ${m.calls} calls, ${m.errors} errors, ${m.timeouts} timeouts, ${m.meanMs.toFixed(2)} ms mean`,
  );
  for (const r of s.refusedModules) lines.push(`  module ${r.path} refused: ${r.reason}`);
  return lines;
}
