/**
 * The modules' thread. It loads every module, then answers "run onPage on these pages"
 * and "run onSite on this site" from ModuleHost. Modules get plain data and a context;
 * a module that throws or hangs is reported, never fatal. Started by module-host.ts.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { CobwebModule, ModuleContext } from './api.js';
import type { CallResult, FromWorker, LoadReport, ToWorker, WorkerSetup } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('module-worker.js runs as a worker thread');
const setup = workerData as WorkerSetup;
const running = new Int32Array(setup.running);
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface Loaded {
  index: number;
  module: CobwebModule;
  /** Lines emitted during the current message, written in one go before the answer. */
  pending: string[];
}

const loaded: Loaded[] = [];

function send(msg: FromWorker): void {
  port?.postMessage(msg);
}

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
const TIMED_OUT = Symbol('timed out');

async function load(path: string, names: Set<string>): Promise<LoadReport> {
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
  if (names.has(m.name)) {
    report.refused = `a module named "${m.name}" is already loaded`;
    return report;
  }
  if (setup.selfTest && m.selfTest !== undefined) {
    const selfTest = m.selfTest;
    try {
      running[0] = loaded.length + 1;
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
    } finally {
      running[0] = 0;
    }
  }
  names.add(m.name);
  report.hooks = { page: m.onPage !== undefined, site: m.onSite !== undefined };
  loaded.push({ index: loaded.length, module: m as CobwebModule, pending: [] });
  return report;
}

function contextFor(l: Loaded, enqueued: string[]): ModuleContext {
  return {
    emit(record) {
      l.pending.push(JSON.stringify(record));
    },
    enqueue(urls) {
      for (const u of urls) if (typeof u === 'string') enqueued.push(u);
    },
    log(message) {
      send({ kind: 'log', module: l.module.name, message: String(message) });
    },
  };
}

/** Runs one hook of one module with the timeout, timing it; never throws. */
async function call(l: Loaded, invoke: (ctx: ModuleContext) => unknown): Promise<CallResult> {
  const enqueue: string[] = [];
  const ctx = contextFor(l, enqueue);
  const started = performance.now();
  let outcome: unknown;
  try {
    running[0] = l.index + 1;
    // The synchronous part runs here; `running` names whoever would hang the thread.
    const returned = invoke(ctx);
    running[0] = 0;
    outcome = await withTimeout(Promise.resolve(returned), setup.timeoutMs);
  } catch (err) {
    running[0] = 0;
    return { ms: performance.now() - started, error: describe(err) };
  }
  const ms = performance.now() - started;
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

/** What modules emitted while answering one message, written before the answer goes. */
function flushEmitted(): void {
  for (const l of loaded) {
    if (l.pending.length === 0) continue;
    appendFileSync(join(setup.dataDir, `${l.module.name}.jsonl`), `${l.pending.join('\n')}\n`);
    l.pending = [];
  }
}

async function answer(msg: ToWorker): Promise<FromWorker> {
  if (msg.kind === 'pages') {
    const results = await Promise.all(
      msg.pages.map((page) =>
        Promise.all(
          loaded.map((l) => {
            const onPage = l.module.onPage;
            return onPage === undefined ? null : call(l, (ctx) => onPage.call(l.module, page, ctx));
          }),
        ),
      ),
    );
    return { kind: 'pages', id: msg.id, results };
  }
  const results = await Promise.all(
    loaded.map((l) => {
      const onSite = l.module.onSite;
      return onSite === undefined ? null : call(l, (ctx) => onSite.call(l.module, msg.site, ctx));
    }),
  );
  return { kind: 'site', id: msg.id, results };
}

async function main(): Promise<void> {
  mkdirSync(setup.dataDir, { recursive: true });
  const names = new Set<string>();
  const reports: LoadReport[] = [];
  for (const path of setup.paths) reports.push(await load(path, names));
  send({ kind: 'loaded', modules: reports });
  port?.on('message', (msg: ToWorker) => {
    void answer(msg).then((reply) => {
      flushEmitted();
      send(reply);
    });
  });
}

void main();
