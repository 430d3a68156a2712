/** Messages between the crawl (ModuleHost) and the modules' thread (module-worker.ts). */
import type { ModulePage, ModuleSite, PageFields } from './api.js';

export interface WorkerSetup {
  /** Module files to load, in order (file paths or file: URLs). */
  paths: string[];
  /** Where `ctx.emit` writes: `<dataDir>/<module name>.jsonl`. */
  dataDir: string;
  /** A call that has not settled after this long is cut off (async hangs). */
  timeoutMs: number;
  /** Run each module's selfTest (first start), or trust the earlier verdict (a restart). */
  selfTest: boolean;
  /**
   * Int32 slot: 1 + the index of the module whose code is running right now, 0 when
   * none. A module stuck in a loop never lets the thread answer; this is how the host
   * knows whom to blame.
   */
  running: SharedArrayBuffer;
}

/** One module's load verdict. */
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
}

export type ToWorker =
  | { id: number; kind: 'pages'; pages: ModulePage[] }
  | { id: number; kind: 'site'; site: ModuleSite };

export type FromWorker =
  | { kind: 'loaded'; modules: LoadReport[] }
  | { kind: 'log'; module: string; message: string }
  /** results[p][m]: page p, loaded module m (null when the module has no such hook). */
  | { kind: 'pages'; id: number; results: (CallResult | null)[][] }
  | { kind: 'site'; id: number; results: (CallResult | null)[] };

export type { ModulePage, ModuleSite, PageFields };
