import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Logger, default as Pino } from 'pino';
import type { Completion, FetchReport, Lease } from '../frontier/types.js';
import type { PageRecord } from './pages-log.js';

/**
 * 'error': something failed; 'warning': something the user may not want; 'info': the
 * crawl's lifecycle, module logs and the like; 'debug': each fetch, retry, back-off, refusal.
 */
export type LogLevel = 'error' | 'warning' | 'info' | 'debug';

/**
 * What a part of the server hands its lines to: a line for people at a level (info when
 * not said), and the fields the --log-file line keeps (`event` and what it is about).
 */
export type EventLog = (line: string, level?: LogLevel, fields?: Record<string, unknown>) => void;

/** --log-level's words, most severe first; 'warn' is a LogLevel 'warning'. */
const ORDER = ['error', 'warn', 'info', 'debug'] as const;
/** --log-level's value. */
export type Threshold = (typeof ORDER)[number];

function thresholdOf(level: LogLevel): Threshold {
  return level === 'warning' ? 'warn' : level;
}

/**
 * The crawl's log: lines for onLog (stderr by default) and, with --log-file, the same as
 * JSON lines through pino, both at --log-level and above. Lifecycle events are info;
 * every fetch, retry, back-off and refusal is debug, with its fields.
 */
export class CrawlLog {
  private readonly file: Logger | null;
  private readonly least: number;

  constructor(
    o: { logLevel: Threshold; logFile?: string | undefined },
    private readonly onLog: (line: string, level: LogLevel) => void,
  ) {
    this.least = ORDER.indexOf(o.logLevel);
    if (o.logFile === undefined) this.file = null;
    else {
      mkdirSync(dirname(o.logFile), { recursive: true });
      // pino loads only for a crawl that keeps a log file: most do not, and it costs start-up.
      const pino = createRequire(import.meta.url)('pino') as typeof Pino;
      // Synchronous: a line is in the file when the event is over, a kill -9 loses none.
      const out = pino.destination({ dest: o.logFile, sync: true, append: true });
      this.file = pino({ level: o.logLevel, base: null, timestamp: pino.stdTimeFunctions.isoTime }, out);
    }
  }

  /** Whether lines of this level are kept at all (a debug event is not even built otherwise). */
  enabled(level: LogLevel): boolean {
    return ORDER.indexOf(thresholdOf(level)) <= this.least;
  }

  /** One event: a line for people, and its fields for the file. */
  say(line: string, level: LogLevel, fields: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
    this.onLog(line, level);
    this.file?.[thresholdOf(level)](fields, line);
  }

  /**
   * A lifecycle event (the crawl's or the server's start and stop): a line like any
   * other, on stderr or onLog at its level as `--log-level` says, and in the file.
   */
  event(line: string, level: LogLevel, fields: Record<string, unknown>): void {
    this.say(line, level, fields);
  }

  /** pages.jsonl lines as debug events: each fetch, and each URL refused. */
  records(lines: readonly PageRecord[]): void {
    if (!this.enabled('debug')) return;
    for (const r of lines) {
      const fields = { event: r.status === null ? 'refused' : 'fetch', ...r };
      if (r.status !== null) {
        const how = r.notModified === true ? '304 not modified' : String(r.status);
        this.say(`fetched ${r.url}: ${how} in ${r.durationMs ?? 0} ms`, 'debug', fields);
      } else if (r.error === 'filtered' || r.error === 'robots' || r.error === 'too-long') {
        this.say(`refused ${r.url}: ${r.detail ?? r.error}`, 'debug', fields);
      } else {
        this.say(
          `failed ${r.url}: ${r.error ?? 'failed'}${r.detail ? ` (${r.detail})` : ''}`,
          'debug',
          fields,
        );
      }
    }
  }

  /** A settled batch's retries and back-offs as debug events. */
  visits(batch: readonly SettledVisit[]): void {
    if (!this.enabled('debug')) return;
    for (const v of batch) {
      const o = v.page.completion.outcome;
      if (o.kind === 'retry') {
        this.say(`retry ${v.lease.url} in ${o.afterMs} ms: ${o.error}`, 'debug', {
          event: 'retry',
          url: v.lease.url,
          error: o.error,
          afterMs: o.afterMs,
          attempt: v.lease.attempt,
        });
      }
      const backoff = backoffOf(v.page.report);
      if (backoff !== null) {
        this.say(`back-off ${v.lease.host}: ${backoff}`, 'debug', {
          event: 'back-off',
          host: v.lease.host,
          ...v.page.report,
        });
      }
    }
  }

  close(): void {
    this.file?.flush();
  }
}

/** What the log reads of a settled visit: the lease, how it ended, what the host answered. */
export interface SettledVisit {
  lease: Pick<Lease, 'url' | 'host' | 'attempt'>;
  page: { completion: Pick<Completion, 'outcome'>; report: FetchReport };
}

function backoffOf(r: FetchReport): string | null {
  if (r.retryAfterMs !== undefined) return `Retry-After ${r.retryAfterMs} ms`;
  if (r.connectFailed === true) return 'could not connect (the host waits longer each time)';
  return null;
}
