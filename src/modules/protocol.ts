/** Messages between the crawl (ModuleThread) and a module's own thread (module-worker.ts). */
import type { ModulePage, ModuleSite, PageFields } from './api.js';

export interface WorkerSetup {
  /** The module file to load (a file path or a file: URL). */
  path: string;
  /** Where `ctx.emit` writes: `<dataDir>/<module name>.jsonl`; null: the records go back with the answer. */
  dataDir: string | null;
  /** A call that has not settled after this long is cut off (async hangs). */
  timeoutMs: number;
  /** Run the module's selfTest (first start), or trust the earlier verdict (a restart). */
  selfTest: boolean;
  /** The thread's side of the watchdog; see SHARED_LAYOUT. */
  shared: SharedArrayBuffer;
}

/**
 * What the thread shares with the crawl, so the crawl can tell a stuck thread (a module
 * in an endless loop cannot answer messages, nor run its own timers) from a busy one:
 * - BigInt64 at byte 0: the thread's heartbeat, Date.now() every BEAT_MS while its event loop turns;
 * - Int32 at byte 8: the id of the last request the thread started on.
 */
export const SHARED_BYTES = 16;
export const BEAT_MS = 100;

export function sharedViews(shared: SharedArrayBuffer): { beat: BigInt64Array; started: Int32Array } {
  return { beat: new BigInt64Array(shared, 0, 1), started: new Int32Array(shared, 8, 1) };
}

/** The module's load verdict. */
export interface LoadReport {
  path: string;
  name: string | null;
  /** Why it was refused; absent when loaded. */
  refused?: string;
  hooks: { page: boolean; site: boolean };
}

/** One module call's result. */
export interface CallResult {
  ms: number;
  error?: string;
  timeout?: true;
  /** onPage: fields for the pages.jsonl line; onSite: the info to store (any JSON). */
  value?: unknown;
  enqueue?: string[];
  /** What the call emitted (JSON lines), when the thread has no data folder. */
  emitted?: string[];
}

/** What the crawl asks of a module. */
export type RequestBody = { kind: 'pages'; pages: ModulePage[] } | { kind: 'site'; site: ModuleSite };

export type ToWorker = RequestBody & { id: number };

export type FromWorker =
  | { kind: 'loaded'; report: LoadReport }
  | { kind: 'log'; message: string }
  /** results[p]: the module's result for page p; `emitted`: lines of hooks whose call had settled. */
  | { kind: 'pages'; id: number; results: CallResult[]; emitted?: string[] }
  | { kind: 'site'; id: number; result: CallResult; emitted?: string[] };

export type { ModulePage, ModuleSite, PageFields };
