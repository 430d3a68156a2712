/**
 * One module's thread. It loads the module, then answers "run onPage on these pages"
 * and "run onSite on this site" from ModuleThread. The module gets plain data and a
 * context; a hook that throws or hangs is reported, never fatal. Each module has a
 * thread of its own, so one that hangs or burns CPU holds up no other.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { type CobwebModule, MODULE_NAME, type ModuleContext } from './api.js';
import {
  BEAT_MS,
  type CallResult,
  type FromWorker,
  type LoadReport,
  sharedViews,
  type ToWorker,
  type WorkerSetup,
} from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('module-worker.js runs as a worker thread');
const setup = workerData as WorkerSetup;
const { beat, started } = sharedViews(setup.shared);

// The heartbeat: it stops when the module's code keeps the thread from its event loop.
const heartbeat = () => Atomics.store(beat, 0, BigInt(Date.now()));
heartbeat();
setInterval(heartbeat, BEAT_MS);

let module: CobwebModule | null = null;
/**
 * Lines emitted by a hook after its call had settled (it kept running past its timeout):
 * they belong to no page, and go with the next answer.
 */
let late: string[] = [];
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

async function load(path: string): Promise<LoadReport> {
  const report: LoadReport = { path, name: null, hooks: { page: false, site: false } };
  let mod: unknown;
  try {
    const url = path.startsWith('file:') ? path : pathToFileURL(path).href;
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
  if (setup.selfTest && m.selfTest !== undefined) {
    const selfTest = m.selfTest;
    try {
      heartbeat();
      const result = await withTimeout(
        Promise.resolve().then(() => selfTest.call(m)),
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
  module = m as CobwebModule;
  return report;
}

/** A call's context; `lines` gathers what it emits until `call.settled`. */
function contextFor(enqueued: string[], lines: string[], call: { settled: boolean }): ModuleContext {
  return {
    emit(record) {
      (call.settled ? late : lines).push(JSON.stringify(record));
    },
    enqueue(urls) {
      for (const u of urls) if (typeof u === 'string') enqueued.push(u);
    },
    log(message) {
      send({ kind: 'log', message: String(message) });
    },
  };
}

/** Runs one hook with the timeout, timing it; never throws. */
async function call(invoke: (ctx: ModuleContext) => unknown): Promise<CallResult> {
  const enqueue: string[] = [];
  const lines: string[] = [];
  const state = { settled: false };
  const result = await callWith(invoke, contextFor(enqueue, lines, state));
  state.settled = true;
  if (enqueue.length > 0) result.enqueue = enqueue;
  // Each page's records go back with that page's result: a server keeps them with its completion.
  if (lines.length > 0) result.emitted = lines;
  return result;
}

async function callWith(invoke: (ctx: ModuleContext) => unknown, ctx: ModuleContext): Promise<CallResult> {
  const began = performance.now();
  let outcome: unknown;
  try {
    // Each call starts with a beat: the pages of a batch run one after another, and only
    // one call that keeps the thread past the timeout is a hang, not many short ones.
    heartbeat();
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
  return result;
}

/**
 * What the module emitted while answering one message: written before the answer goes,
 * or (no data folder: a bunny, whose server keeps the crawl's records) sent with it,
 * each call's records with its result and the late ones with the message.
 */
function flushEmitted(reply: FromWorker): void {
  if (module === null || (reply.kind !== 'pages' && reply.kind !== 'site')) return;
  const results = reply.kind === 'pages' ? reply.results : [reply.result];
  if (setup.dataDir === null) {
    if (late.length > 0) reply.emitted = late;
    late = [];
    return;
  }
  const lines = [...results.flatMap((r) => r.emitted ?? []), ...late];
  for (const r of results) delete r.emitted;
  late = [];
  if (lines.length === 0) return;
  if (!dataDirMade) {
    mkdirSync(setup.dataDir, { recursive: true });
    dataDirMade = true;
  }
  appendFileSync(join(setup.dataDir, `${module.name}.jsonl`), `${lines.join('\n')}\n`);
}

async function answer(m: CobwebModule, msg: ToWorker): Promise<FromWorker> {
  if (msg.kind === 'pages') {
    const onPage = m.onPage;
    const results = await Promise.all(
      msg.pages.map((page) => (onPage === undefined ? { ms: 0 } : call((ctx) => onPage.call(m, page, ctx)))),
    );
    return { kind: 'pages', id: msg.id, results };
  }
  const onSite = m.onSite;
  const result = onSite === undefined ? { ms: 0 } : await call((ctx) => onSite.call(m, msg.site, ctx));
  return { kind: 'site', id: msg.id, result };
}

async function main(): Promise<void> {
  const report = await load(setup.path);
  send({ kind: 'loaded', report });
  const m = module;
  if (m === null) return;
  port?.on('message', (msg: ToWorker) => {
    // Before any of the module's code runs: a request the thread never started on can
    // be sent again to a fresh thread if this one gets stuck.
    Atomics.store(started, 0, msg.id);
    void answer(m, msg).then((reply) => {
      flushEmitted(reply);
      send(reply);
    });
  });
}

void main();
