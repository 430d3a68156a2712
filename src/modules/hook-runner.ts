/**
 * Loading modules and running their hooks, wherever they run: on the modules' thread
 * (module-worker.ts) or, for the built-ins, on the crawl's own thread (module-host.ts).
 * A module gets plain data and a context; a hook that throws or hangs is reported, never
 * fatal.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ModuleRecordsLog } from '../output/module-records-log.js';
import { type CobwebModule, MODULE_NAME, type ModuleContext } from './api.js';
import { importModule } from './import-module.js';
import { importProblem } from './import-problem.js';
import { lazyPage } from './lazy-page.js';
import type { CallResult, LoadReport, ModuleSite, PageBatch, SkippedCall, SlotResults } from './protocol.js';

export interface HookEnv {
  /** A call that has not settled after this long is cut off (async hangs). */
  timeoutMs: number;
  /** Where `ctx.emit` writes: `<dataDir>/<module name>.jsonl`; null: the records are handed back. */
  dataDir: string | null;
  /** A module's ctx.log. */
  log(slot: number, message: string): void;
  /** Said before each call (and each load): which it is. The modules' thread beats its heartbeat here. */
  starting(id: number, slot: number, page: number): void;
  /**
   * Keep each module's file open between answers (closed by close()): for a runner whose
   * owner closes it. The modules' thread may be terminated at any moment, and appends.
   */
  keepFilesOpen?: boolean;
}

/** A request's calls to run: pages or a site, less the calls to skip. */
export type HookRequest =
  | { id: number; kind: 'pages'; batch: PageBatch; skip: SkippedCall[] }
  | { id: number; kind: 'site'; site: ModuleSite; skip: SkippedCall[] };

/** Lines emitted, by module slot. */
export type Emitted = Map<number, string[]>;

/**
 * Importing a module (its file, what it imports, its top-level code) may take this long
 * at least, whatever the module timeout: a new thread on a busy machine is slow to import.
 */
const IMPORT_MS = 30_000;
const TIMED_OUT = Symbol('timed out');

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Modules loaded into slots, and their hooks run. */
export class HookRunner {
  /** The modules loaded, by slot; null for a slot whose module was refused. */
  private readonly slots: (CobwebModule | null)[] = [];
  /**
   * Lines emitted by hooks after their call had settled (they kept running past the
   * timeout): they belong to no page, and go with the next answer.
   */
  private late: Emitted = new Map();
  private dataDirMade = false;
  private readonly files: ModuleRecordsLog | null;

  constructor(private readonly env: HookEnv) {
    const dir = env.dataDir;
    this.files =
      env.keepFilesOpen === true && dir !== null
        ? new ModuleRecordsLog((name) => join(dir, `${name}.jsonl`))
        : null;
  }

  /** Closes the modules' files (keepFilesOpen). */
  close(): void {
    this.files?.close();
  }

  /** Imports a module into a slot and checks it (its selfTest too, when asked). */
  async load(path: string, selfTest: boolean, id: number, slot: number): Promise<LoadReport> {
    const report = await this.check(path, selfTest, id, slot);
    if (report.refused !== undefined) this.slots[slot] = null;
    return report;
  }

  private async check(path: string, selfTest: boolean, id: number, slot: number): Promise<LoadReport> {
    const report: LoadReport = { path, name: null, hooks: { page: false, site: false } };
    let mod: unknown;
    const url = path.startsWith('file:') ? path : pathToFileURL(path).href;
    try {
      // A module whose code never returns at load holds its thread with this "call".
      this.env.starting(id, slot, 0);
      const limit = Math.max(this.env.timeoutMs, IMPORT_MS);
      const imported = await withTimeout(importModule(url) as Promise<{ default?: unknown }>, limit);
      if (imported === TIMED_OUT) {
        report.refused = `it did not finish loading within ${limit} ms`;
        return report;
      }
      mod = imported.default;
    } catch (err) {
      report.refused = `cannot be imported: ${importProblem(err, url)}`;
      return report;
    }
    const m = mod as Partial<CobwebModule> | undefined;
    if (typeof m !== 'object' || m === null || typeof m.name !== 'string') {
      report.refused = 'its default export must be an object with a name';
      return report;
    }
    report.name = m.name;
    if (!MODULE_NAME.test(m.name)) {
      report.refused = `the name "${m.name}" must be 1-64 letters, digits, '-' or '_'`;
      return report;
    }
    for (const hook of ['onPage', 'onSite', 'selfTest'] as const) {
      if (m[hook] !== undefined && typeof m[hook] !== 'function') {
        report.refused = `${hook} must be a function`;
        return report;
      }
    }
    if (m.onPage === undefined && m.onSite === undefined) {
      report.refused = 'it has neither an onPage nor an onSite hook';
      return report;
    }
    if (selfTest && m.selfTest !== undefined) {
      const test = m.selfTest;
      try {
        this.env.starting(id, slot, 0);
        const result = await withTimeout(
          Promise.resolve().then(() => test.call(m)),
          this.env.timeoutMs,
        );
        if (result === TIMED_OUT) {
          report.refused = `selfTest did not finish within ${this.env.timeoutMs} ms`;
          return report;
        }
      } catch (err) {
        report.refused = `selfTest failed: ${describe(err)}`;
        return report;
      }
    }
    report.hooks = { page: m.onPage !== undefined, site: m.onSite !== undefined };
    this.slots[slot] = m as CobwebModule;
    return report;
  }

  /**
   * Every module's calls for one request: the pages of a batch (or the site). All calls
   * start at once, module by module in slot order, page by page, so modules that wait on
   * I/O wait together. Calls to skip (they held an earlier thread) are answered as
   * timeouts without running. What the modules emitted is written before this resolves,
   * or (no data folder) returned, each call's lines with its result.
   */
  async answer(msg: HookRequest): Promise<{ results: SlotResults; emitted?: Record<number, string[]> }> {
    const skip = new Set(msg.skip.map(([slot, page]) => `${slot}:${page}`));
    const args: unknown[] =
      msg.kind === 'pages' ? msg.batch.pages.map((w) => lazyPage(w, msg.batch.packed)) : [msg.site];
    const results: SlotResults = this.slots.map(() => null);
    const all: Promise<void>[] = [];
    // Slots of modules that run elsewhere (or were refused) hold nothing here.
    for (const [slot, m] of this.slots.entries()) {
      if (m === null || m === undefined) continue;
      const hook = msg.kind === 'pages' ? m.onPage : m.onSite;
      if (hook === undefined) continue;
      const calls = args.map((arg, p) =>
        skip.has(`${slot}:${p}`)
          ? Promise.resolve<CallResult>({ ms: this.env.timeoutMs, timeout: true, held: true })
          : this.run(slot, [msg.id, p], (ctx) =>
              (hook as (arg: unknown, ctx: ModuleContext) => unknown).call(m, arg, ctx),
            ),
      );
      all.push(
        Promise.all(calls).then((r) => {
          results[slot] = r;
        }),
      );
    }
    await Promise.all(all);
    return this.flush(results);
  }

  /** Runs one hook with the timeout, timing it; never throws. */
  private async run(
    slot: number,
    where: [id: number, page: number],
    invoke: (ctx: ModuleContext) => unknown,
  ): Promise<CallResult> {
    const enqueue: string[] = [];
    const lines: string[] = [];
    const call = { settled: false };
    const result = await this.timed(where, slot, invoke, this.contextFor(slot, enqueue, lines, call));
    call.settled = true;
    if (enqueue.length > 0) result.enqueue = enqueue;
    // Each page's records go back with that page's result: a server keeps them with its completion.
    if (lines.length > 0) result.emitted = lines;
    return result;
  }

  private async timed(
    where: [id: number, page: number],
    slot: number,
    invoke: (ctx: ModuleContext) => unknown,
    ctx: ModuleContext,
  ): Promise<CallResult> {
    const began = performance.now();
    let outcome: unknown;
    try {
      this.env.starting(where[0], slot, where[1]);
      const returned = invoke(ctx);
      // A hook that returned a value has run to its end: only a promise can hang, and
      // only a promise is raced against the timeout (a timer per call, for nothing, cost
      // the crawl's thread more than the built-in hooks themselves).
      outcome = isThenable(returned)
        ? await withTimeout(Promise.resolve(returned), this.env.timeoutMs)
        : returned;
    } catch (err) {
      return { ms: performance.now() - began, error: describe(err) };
    }
    const ms = performance.now() - began;
    if (outcome === TIMED_OUT) return { ms, timeout: true };
    const result: CallResult = { ms };
    if (outcome !== undefined) {
      try {
        // What crosses back must be plain data, and is stored as JSON.
        result.value = JSON.parse(JSON.stringify(outcome)) as unknown;
      } catch (err) {
        return { ms, error: `returned a value that is not JSON: ${describe(err)}` };
      }
    }
    return result;
  }

  /** A call's context; `lines` gathers what it emits until `call.settled`. */
  private contextFor(
    slot: number,
    enqueued: string[],
    lines: string[],
    call: { settled: boolean },
  ): ModuleContext {
    const late = this.late;
    return {
      emit(record) {
        const line = JSON.stringify(record);
        if (!call.settled) lines.push(line);
        else {
          const held = late.get(slot);
          if (held === undefined) late.set(slot, [line]);
          else held.push(line);
        }
      },
      enqueue(urls) {
        for (const u of urls) if (typeof u === 'string') enqueued.push(u);
      },
      log: (message) => this.env.log(slot, String(message)),
    };
  }

  /**
   * What the modules emitted while answering one request: written before the answer goes,
   * or (no data folder: a bunny, whose server keeps the crawl's records) sent with it,
   * each call's lines with its result and the late ones with the answer.
   */
  private flush(results: SlotResults): { results: SlotResults; emitted?: Record<number, string[]> } {
    const late = this.late;
    this.late = new Map();
    if (this.env.dataDir === null)
      return late.size === 0 ? { results } : { results, emitted: Object.fromEntries(late) };
    for (const [slot, calls] of results.entries()) {
      const m = this.slots[slot];
      const lines = [...(calls ?? []).flatMap((r) => r.emitted ?? []), ...(late.get(slot) ?? [])];
      // Set aside rather than deleted: an object that loses a property is slower to read.
      for (const r of calls ?? []) r.emitted = undefined;
      if (lines.length === 0 || m === null || m === undefined) continue;
      this.write(m.name, lines);
    }
    return { results };
  }

  private write(name: string, lines: readonly string[]): void {
    const dir = this.env.dataDir as string;
    if (this.files !== null) {
      this.files.append(name, lines);
      return;
    }
    if (!this.dataDirMade) {
      mkdirSync(dir, { recursive: true });
      this.dataDirMade = true;
    }
    appendFileSync(join(dir, `${name}.jsonl`), `${lines.join('\n')}\n`);
  }
}
