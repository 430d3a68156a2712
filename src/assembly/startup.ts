import { closeAll } from '../bunny/crawler.js';
import { lockDataDir } from '../data-dir/data-dir.js';
import type { DataLayout } from '../data-dir/layout.js';
import { CrawlOptionError } from '../errors.js';
import type { PostgresFrontier } from '../frontier/postgres/postgres-frontier.js';
import type { Frontier } from '../frontier/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import { parseHostPort } from '../options/option-kinds.js';
import {
  type CrawlOptions,
  type CrawlProgress,
  checkCrawlOptions,
  type Settings,
  withDefaults,
} from '../options/options.js';
import { CrawlLog, type EventLog, type LogLevel } from '../output/crawl-log.js';
import type { RunCounter, RunCounts } from '../output/run-counts.js';
import { canonicalize } from '../url/canonicalize.js';
import { seedProblem } from '../url/seed-problem.js';
import { startModules } from './parts.js';
import { progressOf } from './progress-of.js';
import { openSharedStore } from './shared-store.js';

// What crawl(), serve() and bunny() share as they start and stop: the options checked,
// the log, what was opened closed in reverse order, and the conditions that stop a run.

/** Canonical seed URLs, or a CrawlOptionError naming the first bad one. */
export function canonicalSeeds(seeds: readonly string[]): string[] {
  if (seeds.length === 0)
    throw new CrawlOptionError(
      'no seed URL given, and no crawl in the data folder to go on with: name at least one URL to start from, such as https://example.com/',
    );
  return seeds.map((seed) => {
    const c = canonicalize(seed);
    if (c.ok) return c.url;
    throw new CrawlOptionError(seedProblem(seed, c.reason));
  });
}

export interface HostPort {
  host: string;
  port: number;
}

/** `HOST:PORT` (an IPv6 host in brackets) of the option `what`, or a CrawlOptionError. */
export function hostPortOf(what: string, text: string | HostPort): HostPort {
  if (typeof text !== 'string') return text;
  const parsed = text.includes(':') ? parseHostPort(text) : null;
  if (parsed === null)
    throw new CrawlOptionError(`${what}: expected HOST:PORT, like 127.0.0.1:7070, got "${text}"`);
  return parsed;
}

/** Seeds that may be none (a server, a bunny): canonical, or a CrawlOptionError. */
export function seedsIfAny(seeds: readonly string[]): string[] {
  return seeds.length === 0 ? [] : canonicalSeeds(seeds);
}

/** The options checked against the option table, with their defaults: what a run starts from. */
export function settingsOf(options: CrawlOptions): Settings {
  checkCrawlOptions(options);
  return withDefaults(options);
}

/** Where a line goes when the caller gives no onLog: stderr, as the command line says it. */
export function toStderr(line: string, _level: LogLevel): void {
  process.stderr.write(`cobweb: ${line}\n`);
}

/**
 * The run's log (crawl-log.ts: lines for onLog at --log-level, the --log-file), and
 * `say`, what the run's parts are handed.
 */
export function runLog(
  o: Pick<Settings, 'logLevel' | 'logFile'>,
  onLog: ((line: string, level: LogLevel) => void) | undefined,
): { log: CrawlLog; say: EventLog } {
  const log = new CrawlLog(o, onLog ?? toStderr);
  return { log, say: (line, level = 'info', fields = {}) => log.say(line, level, fields) };
}

/** Everything a run opened, closed in the reverse order, whatever fails on the way. */
export class Closers {
  private readonly list: (() => unknown)[] = [];

  add(close: () => unknown): void {
    this.list.push(close);
  }

  async close(): Promise<void> {
    await closeAll(this.list.splice(0).reverse());
  }
}

/**
 * The steps of a crawl's and a server's start-up between the checks and the folder, in
 * the order that touches nothing before it must: the modules load (and pass their
 * selfTests), a shared store is reached (a bad password touches nothing), then the
 * folder's lock is taken. Each is closed by `closers`.
 */
export async function modulesStoreAndLock(
  o: Settings,
  layout: DataLayout,
  seeds: readonly string[],
  log: (line: string, level: LogLevel) => void,
  closers: Closers,
): Promise<{ modules: ModuleHost; shared: PostgresFrontier | null }> {
  const modules = await startModules(o, layout.moduleData, log);
  closers.add(() => modules.close());
  const shared =
    o.store === undefined ? null : await openSharedStore(o, seeds, false, (line) => log(line, 'warning'));
  if (shared !== null) closers.add(() => shared.close());
  closers.add(await lockDataDir(layout));
  return { modules, shared };
}

/** Why a run was told to stop, if it was: the caller's signal, --max-time, or the console's Stop. */
export type StopCause = 'caller' | 'max-time' | 'console';

/**
 * The conditions that stop a run cleanly (the fetches in flight finish and are
 * written): the caller's AbortSignal, --max-time, the console's Stop. One signal for the
 * run's parts, and which came first.
 */
export class StopConditions {
  private readonly halt = new AbortController();
  private first: StopCause | null = null;
  private timedOut = false;

  constructor(
    closers: Closers,
    stop: { signal?: AbortSignal | undefined; maxTimeMs?: number | undefined },
    say: (line: string) => void,
  ) {
    if (stop.maxTimeMs !== undefined) {
      const ms = stop.maxTimeMs;
      const timer = setTimeout(() => {
        this.timedOut = true;
        say(`--max-time: ${ms} ms are up; finishing the fetches in flight`);
        this.stop('max-time');
      }, ms);
      timer.unref();
      closers.add(() => clearTimeout(timer));
    }
    const caller = stop.signal;
    if (caller !== undefined) {
      const abort = () => this.stop('caller');
      if (caller.aborted) abort();
      caller.addEventListener('abort', abort);
      closers.add(() => caller.removeEventListener('abort', abort));
    }
    this.callerSignal = caller;
  }

  private readonly callerSignal: AbortSignal | undefined;

  /** What the run's parts watch. */
  get signal(): AbortSignal {
    return this.halt.signal;
  }

  /** Stops the run; false when it was stopping already. */
  stop(cause: StopCause): boolean {
    if (this.halt.signal.aborted) return false;
    this.first = cause;
    this.halt.abort();
    return true;
  }

  /** What stopped the run first, or null while nothing has. */
  get cause(): StopCause | null {
    return this.first;
  }

  /** --max-time ran out (whatever else stopped the run). */
  get maxTimeRanOut(): boolean {
    return this.timedOut;
  }

  /** The caller's own signal was aborted. */
  get callerStopped(): boolean {
    return this.callerSignal?.aborted === true;
  }
}

/**
 * The numbers a server's or a bunny's summary shares with a crawl's (CrawlProgress): the
 * store's counts, all runs, and what this run's lines came to.
 */
export async function storeSummary(
  store: Pick<Frontier, 'stats'>,
  counts: RunCounter,
  started: number,
): Promise<CrawlProgress & { thisRun: RunCounts }> {
  return { ...progressOf(await store.stats(), counts, started), thisRun: counts.snapshot() };
}

/**
 * Calls onProgress every progressMs while a run goes on, with what `read` says (the
 * store's counts, this run's lines). A tick is skipped while the one before still waits
 * for its store (a server away), and a callback that throws is logged, not fatal.
 */
export function tickProgress(
  o: { onProgress?: ((p: CrawlProgress) => void) | undefined; progressMs: number },
  read: () => Promise<CrawlProgress>,
  closers: Closers,
  log: (line: string, level: LogLevel) => void,
): void {
  const onProgress = o.onProgress;
  if (onProgress === undefined) return;
  let waiting = false;
  const tick = async () => {
    if (waiting) return;
    waiting = true;
    try {
      const p = await read();
      try {
        onProgress(p);
      } catch (err) {
        log(`onProgress threw: ${err instanceof Error ? err.message : String(err)}`, 'error');
      }
    } catch {
      // the store could not answer now: the next tick asks again
    } finally {
      waiting = false;
    }
  };
  const ticker = setInterval(() => void tick(), o.progressMs);
  closers.add(() => clearInterval(ticker));
}
