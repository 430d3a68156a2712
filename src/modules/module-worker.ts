/**
 * The modules' thread. It loads modules (each into a slot), then answers "run onPage on
 * these pages" and "run onSite on this site" from ModuleThread, for every module in
 * slot order. A module gets plain data and a context; a hook that throws or hangs is
 * reported, never fatal. Before each call the thread writes which call it is into
 * shared memory, so when a module holds the thread for good, the crawl knows whose call
 * it was and can start the thread again without it.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { CobwebModule, ModuleContext } from './api.js';
import { lazyPage } from './lazy-page.js';
import {
  BEAT_MS,
  type CallResult,
  type FromWorker,
  type LoadReport,
  type SlotResults,
  sharedViews,
  type ToWorker,
  type WorkerSetup,
} from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('module-worker.js runs as a worker thread');
const setup = workerData as WorkerSetup;
const { beat, call: current } = sharedViews(setup.shared);

// The heartbeat: it stops when a module's code keeps the thread from its event loop.
const heartbeat = () => Atomics.store(beat, 0, BigInt(Date.now()));
heartbeat();
setInterval(heartbeat, BEAT_MS);

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The modules loaded, by slot; null for a slot whose module was refused. */
const slots: (CobwebModule | null)[] = [];
let dataDirMade = false;

function send(msg: FromWorker): void {
  port?.postMessage(msg);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const TIMED_OUT = Symbol('timed out');

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function load(path: string, selfTest: boolean, id: number, slot: number): Promise<LoadReport> {
  const report: LoadReport = { path, name: null, hooks: { page: false, site: false } };
  let mod: unknown;
  try {
    const url = path.startsWith('file:') ? path : pathToFileURL(path).href;
    // A module whose code never returns at load holds the thread with this "call".
    Atomics.store(current, 0, id);
    Atomics.store(current, 1, slot);
    Atomics.store(current, 2, 0);
    mod = ((await import(url)) as { default?: unknown }).default;
  } catch (err) {
    report.refused = `cannot be imported: ${describe(err)}`;
    return report;
  }
  const m = mod as Partial<CobwebModule> | undefined;
  if (typeof m !== 'object' || m === null || typeof m.name !== 'string') {
    report.refused = 'its default export must be an object with a name';
    return report;
  }
  report.name = m.name;
  if (!NAME.test(m.name)) {
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
      heartbeat();
      Atomics.store(current, 0, id);
      const result = await withTimeout(
        Promise.resolve().then(() => test.call(m)),
        setup.timeoutMs,
      );
      if (result === TIMED_OUT) {
        report.refused = `selfTest did not finish within ${setup.timeoutMs} ms`;
        return report;
      }
    } catch (err) {
      report.refused = `selfTest failed: ${describe(err)}`;
      return report;
    }
  }
  report.hooks = { page: m.onPage !== undefined, site: m.onSite !== undefined };
  slots[slot] = m as CobwebModule;
  return report;
}

/** What one module emitted while answering one request, by slot. */
type Emitted = Map<number, string[]>;

function contextFor(slot: number, emitted: Emitted, enqueued: string[]): ModuleContext {
  return {
    emit(record) {
      let lines = emitted.get(slot);
      if (lines === undefined) {
        lines = [];
        emitted.set(slot, lines);
      }
      lines.push(JSON.stringify(record));
    },
    enqueue(urls) {
      for (const u of urls) if (typeof u === 'string') enqueued.push(u);
    },
    log(message) {
      send({ kind: 'log', slot, message: String(message) });
    },
  };
}

/** Runs one hook with the timeout, timing it; never throws. */
async function run(
  slot: number,
  emitted: Emitted,
  where: [id: number, page: number],
  invoke: (ctx: ModuleContext) => unknown,
): Promise<CallResult> {
  const enqueue: string[] = [];
  const ctx = contextFor(slot, emitted, enqueue);
  const began = performance.now();
  let outcome: unknown;
  try {
    // Each call starts with a beat and says whose it is: the calls of a request run one
    // after another, and only one call that keeps the thread past the timeout is a hang.
    heartbeat();
    Atomics.store(current, 0, where[0]);
    Atomics.store(current, 1, slot);
    Atomics.store(current, 2, where[1]);
    outcome = await withTimeout(Promise.resolve(invoke(ctx)), setup.timeoutMs);
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
  if (enqueue.length > 0) result.enqueue = enqueue;
  return result;
}

const SKIPPED: CallResult = { ms: setup.timeoutMs, timeout: true };

/**
 * Every module's calls for one request: the pages of a batch (or the site). All calls
 * start at once, module by module in slot order, page by page, so modules that wait on
 * I/O wait together. Calls the crawl said to skip (they held an earlier thread) are
 * answered as timeouts without running.
 */
async function answer(
  msg: Extract<ToWorker, { kind: 'pages' | 'site' }>,
  emitted: Emitted,
): Promise<SlotResults> {
  const skip = new Set(msg.skip.map(([slot, page]) => `${slot}:${page}`));
  const args: unknown[] =
    msg.kind === 'pages' ? msg.batch.pages.map((w) => lazyPage(w, msg.batch.packed)) : [msg.site];
  const results: SlotResults = slots.map(() => null);
  const all: Promise<void>[] = [];
  for (const [slot, m] of slots.entries()) {
    const hook = m === null ? undefined : msg.kind === 'pages' ? m.onPage : m.onSite;
    if (m === null || hook === undefined) continue;
    const calls = args.map((arg, p) =>
      skip.has(`${slot}:${p}`)
        ? Promise.resolve(SKIPPED)
        : run(slot, emitted, [msg.id, p], (ctx) =>
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
  return results;
}

/**
 * What the modules emitted while answering one request: written before the answer goes,
 * or (no data folder: a bunny, whose server keeps the crawl's records) sent with it.
 */
function flushEmitted(emitted: Emitted, reply: Extract<FromWorker, { kind: 'pages' | 'site' }>): void {
  if (emitted.size === 0) return;
  if (setup.dataDir === null) {
    reply.emitted = Object.fromEntries(emitted);
    return;
  }
  if (!dataDirMade) {
    mkdirSync(setup.dataDir, { recursive: true });
    dataDirMade = true;
  }
  for (const [slot, lines] of emitted) {
    const m = slots[slot];
    if (m !== null && m !== undefined)
      appendFileSync(join(setup.dataDir, `${m.name}.jsonl`), `${lines.join('\n')}\n`);
  }
}

// Loads go one after another, each filling its slot; pages and sites are answered once the
// loads sent before them are done, their calls overlapping with those of requests still
// waiting on I/O.
let loading: Promise<void> = Promise.resolve();
port.on('message', (msg: ToWorker) => {
  if (msg.kind === 'load') {
    loading = loading.then(async () => {
      const report = await load(msg.path, msg.selfTest, msg.id, msg.slot);
      if (report.refused !== undefined) slots[msg.slot] = null;
      send({ kind: 'loaded', id: msg.id, report });
    });
    return;
  }
  const emitted: Emitted = new Map();
  void loading.then(async () => {
    const results = await answer(msg, emitted);
    const reply: Extract<FromWorker, { kind: 'pages' | 'site' }> = { kind: msg.kind, id: msg.id, results };
    flushEmitted(emitted, reply);
    send(reply);
  });
});
