/** Messages between the crawl (ModuleThread) and the modules' thread (module-worker.ts). */
import type { PageFacts } from '../parse/page-facts.js';
import type { Span } from '../worker.js';
import type { ModulePage, ModuleSite, PageFields } from './api.js';

export interface WorkerSetup {
  /** Where `ctx.emit` writes: `<dataDir>/<module name>.jsonl`; null: the records go back with the answer. */
  dataDir: string | null;
  /** A call that has not settled after this long is cut off (async hangs). */
  timeoutMs: number;
  /** The thread's side of the watchdog; see sharedViews. */
  shared: SharedArrayBuffer;
}

/**
 * What the thread shares with the crawl, so the crawl can tell a stuck thread (a module
 * in an endless loop cannot answer messages, nor run its own timers) from a busy one,
 * and which call is stuck:
 * - BigInt64 at byte 0: the thread's heartbeat, Date.now() every BEAT_MS while its event loop turns,
 *   and at the start of every call;
 * - Int32 at byte 8: the id of the request whose call runs now (0 when none);
 * - Int32 at byte 12: the module (its slot) of that call;
 * - Int32 at byte 16: the page of that call, within its request.
 */
export const SHARED_BYTES = 24;
export const BEAT_MS = 100;

export interface SharedViews {
  beat: BigInt64Array;
  /** [request id, module slot, page index] of the call running now. */
  call: Int32Array;
}

export function sharedViews(shared: SharedArrayBuffer): SharedViews {
  return { beat: new BigInt64Array(shared, 0, 1), call: new Int32Array(shared, 8, 3) };
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
  /** The call held an earlier thread and was not run again: counted when it held it. */
  held?: true;
  /** onPage: fields for the pages.jsonl line; onSite: the info to store (any JSON). */
  value?: unknown;
  enqueue?: string[];
  /** What the call emitted (JSON lines), when the modules have no data folder. */
  emitted?: string[];
}

/**
 * A page as it crosses to the modules' thread: plain data, its body a span of the
 * batch's packed bytes (moved, not copied), its links one string. The thread decodes
 * the text, splits the links and builds the DOM only when a module asks for them.
 */
export interface WirePage {
  url: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  depth: number;
  referrer: string | null;
  facts: PageFacts | null;
  /** Distinct canonical URLs the page links to, joined by '\n'. */
  links: string;
  /** The content-decoded body of an HTML page with a 2xx status; null otherwise. */
  body: Span | null;
}

/** A batch of pages for the modules: the pages, and the bytes their bodies are spans of. */
export interface PageBatch {
  pages: WirePage[];
  packed: ArrayBuffer;
}

/** [module slot, page index]: a call not to make again, since it held the thread before. */
export type SkippedCall = [number, number];

/** What the crawl asks of the modules. */
export type RequestBody =
  | { kind: 'load'; slot: number; path: string; selfTest: boolean }
  | { kind: 'pages'; batch: PageBatch; skip: SkippedCall[] }
  | { kind: 'site'; site: ModuleSite; skip: SkippedCall[] };

export type ToWorker = RequestBody & { id: number };

/** Per module slot, one result per page (or the one site); absent for a slot without that hook. */
export type SlotResults = (CallResult[] | null)[];

export type FromWorker =
  | { kind: 'loaded'; id: number; report: LoadReport }
  | { kind: 'log'; slot: number; message: string }
  /** `emitted`, by slot: lines of hooks whose call had settled (no data folder). */
  | { kind: 'pages' | 'site'; id: number; results: SlotResults; emitted?: Record<number, string[]> };

export type { ModulePage, ModuleSite, PageFields };
