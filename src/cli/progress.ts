import { agree, count } from '../english.js';
import { moduleStatsText } from '../modules/module-stats-text.js';
import type { CrawlProgress, CrawlSummary } from '../options/options.js';
import { sumCounts } from '../output/run-counts.js';
import { describeSeen } from '../seen/describe.js';

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

/** What bounds a crawl's progress: --max-pages, when it was given. */
export interface ProgressBound {
  maxPages?: number | undefined;
}

export function progressLine(p: CrawlProgress, bound: ProgressBound = {}): string {
  // A bloom filter's rate climbs as it fills: shown while it does, not only at the end.
  const rate = p.seen?.estimatedFpRate;
  const final = p.done + p.failed;
  return (
    `done ${final}${share(final, p.pagesPerSec, bound)}  queued ${p.queued}  in flight ${p.inFlight}  ` +
    `${p.pagesPerSec.toFixed(1)} pages/s  errors ${p.errorsThisRun}  elapsed ${duration(p.elapsedMs)}` +
    (rate === undefined ? '' : `  bloom fp ${rate.toExponential(1)}`)
  );
}

/**
 * With --max-pages: how much of the budget is spent (it counts the URLs with a final
 * outcome, across runs) and, at this run's rate, when the rest will be.
 */
function share(final: number, perSec: number, { maxPages }: ProgressBound): string {
  if (maxPages === undefined || !Number.isFinite(maxPages) || maxPages <= 0) return '';
  const spent = Math.min(final, maxPages);
  const percent = Math.floor((spent * 100) / maxPages);
  const left = maxPages - spent;
  const eta = left === 0 ? '' : perSec > 0 ? `, ETA ${duration((left / perSec) * 1000)}` : ', ETA -';
  return `/${maxPages} (${percent}%${eta})`;
}

/**
 * A bunny's line: what it fetched itself this run, then the crawl's counts as its store
 * (the server, or PostgreSQL) reports them.
 */
export function bunnyProgressLine(p: CrawlProgress): string {
  return (
    `fetched ${p.fetchedThisRun}  ${p.pagesPerSec.toFixed(1)} pages/s  errors ${p.errorsThisRun}  ` +
    `crawl: done ${p.done + p.failed}  queued ${p.queued}  in flight ${p.inFlight}  elapsed ${duration(p.elapsedMs)}`
  );
}

/** Clears from the cursor to the end of the line: a shorter line leaves nothing of a longer one. */
const CLEAR_TO_END = '\x1b[K';

/**
 * On a terminal, one line redrawn in place; otherwise (a log file, CI) a plain line every
 * few seconds, so logs stay readable.
 */
export class ProgressReporter {
  private lastPlain = 0;
  private drawn = false;

  private readonly lineOf: (p: CrawlProgress) => string;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly plainEveryMs = 5000,
    shape: ProgressBound & { line?: (p: CrawlProgress) => string } = {},
  ) {
    this.lineOf = shape.line ?? ((p) => progressLine(p, shape));
  }

  get intervalMs(): number {
    return this.out.isTTY ? 500 : 1000;
  }

  update(p: CrawlProgress): void {
    const line = this.lineOf(p);
    if (this.out.isTTY) {
      this.draw(line);
    } else if (p.elapsedMs - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = p.elapsedMs;
      this.out.write(`${line}\n`);
    }
  }

  /**
   * Ends the live line so whatever follows starts on a fresh one; given the final counts
   * (the summary's), the live line shows them first, so it never stays behind with a
   * count the summary below it contradicts.
   */
  finish(last?: CrawlProgress): void {
    if (this.drawn && last !== undefined) this.draw(this.lineOf(last));
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }

  private draw(line: string): void {
    const width = this.out.columns ?? 120;
    this.out.write(`\r${line.slice(0, width - 1)}${CLEAR_TO_END}`);
    this.drawn = true;
  }
}

/** "2xx 10, 4xx 1": a breakdown, largest first. */
function breakdown(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/** --json: the summary as one JSON object; a limit that is not there is null (JSON has no Infinity). */
export function summaryJson(s: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(s, (_key, value) => (value === Number.POSITIVE_INFINITY ? null : value)));
}

export function summaryText(s: CrawlSummary): string {
  const run = s.thisRun;
  const failed = sumCounts(run.failed);
  const refused = sumCounts(run.refused);
  const httpErrors: Record<string, number> = {};
  for (const [status, n] of Object.entries(run.fetched)) if (status >= '4xx') httpErrors[status] = n;
  const urls = s.fetchedThisRun + failed + run.robots;
  const stayQueued = `${count(s.queued, 'URL')} ${agree(s.queued, 'stays', 'stay')} queued`;
  const ended =
    s.stoppedBy === 'finished'
      ? 'finished: nothing left to fetch'
      : s.stoppedBy === 'max-pages'
        ? `stopped at --max-pages; ${stayQueued} (run again with a higher --max-pages to go on)`
        : s.stoppedBy === 'max-time'
          ? `stopped at --max-time; ${stayQueued} (run the same command again to go on)`
          : s.stoppedBy === 'console'
            ? `stopped from the console; ${stayQueued} (run the same command again to resume)`
            : s.stoppedBy === 'passes'
              ? `stopped after --passes; ${stayQueued} for the next pass (run again to go on)`
              : `stopped by signal; ${stayQueued} (run the same command again to resume)`;
  const errors = { ...httpErrors, ...run.failed };
  return [
    `cobweb: ${ended}`,
    `  this run: ${count(urls, 'URL')} in ${duration(s.elapsedMs)} (${s.pagesPerSec.toFixed(1)} pages/s)`,
    `    fetched: ${count(s.fetchedThisRun, 'URL')}${s.fetchedThisRun > 0 ? ` (${breakdown(run.fetched)})` : ''}`,
    `    errors: ${s.errorsThisRun}${s.errorsThisRun > 0 ? ` (${breakdown(errors)})` : ''}`,
    ...(run.robots > 0 ? [`    disallowed by robots.txt, not fetched: ${count(run.robots, 'URL')}`] : []),
    ...(refused > 0
      ? [`    refused, not fetched: ${count(refused, 'URL')} (${breakdown(run.refused)})`]
      : []),
    `  store, all runs: ${count(s.done, 'URL')} fetched, ${s.failed} failed, ${s.rejected} refused or disallowed by robots.txt, ${s.queued} queued`,
    ...moduleLines(s),
    ...(s.seen === undefined ? [] : [`  ${describeSeen(s.seen)}`]),
    `  pages: ${s.pagesFile}`,
    `  warc:  ${s.warcFiles.length === 0 ? '(none this run)' : s.warcFiles.join(', ')}`,
  ].join('\n');
}

function moduleLines(s: CrawlSummary): string[] {
  return s.modules.map((m) => `  module ${moduleStatsText(m)}`);
}
