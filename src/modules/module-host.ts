import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import type { ModulePage, ModuleSite, ModuleStats, PageFields } from './api.js';
import type { CallResult, FromWorker, LoadReport, ToWorker, WorkerSetup } from './protocol.js';

export interface ModuleHostOptions {
  /** Module files, built-ins first. */
  paths: readonly string[];
  /** `<data>/data`: where modules' emitted records go. */
  dataDir: string;
  timeoutMs: number;
  log: (line: string) => void;
}

/** What the modules made of one page. */
export interface PageVerdict {
  /** Fields the modules add to the page's pages.jsonl line. */
  fields: PageFields;
  /** URLs the modules asked the crawl to consider. */
  enqueue: string[];
}

export interface SiteVerdict {
  /** Per module name: what its onSite returned. */
  info: Record<string, unknown>;
  enqueue: string[];
}

interface Waiting {
  msg: ToWorker;
  resolve: (results: FromWorker | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * Margin past --module-timeout before a thread that has not answered is declared
 * stuck (a module in an endless loop): the thread's own timers cannot fire then.
 */
const STUCK_GRACE_MS = 1000;

/**
 * The crawl's side of the modules: one worker thread running every module, so a slow
 * module never stalls fetching. A module that throws is counted; one that hangs past
 * the timeout is counted and, if it hangs the whole thread, the thread is replaced.
 */
export class ModuleHost {
  private worker: Worker | null = null;
  private readonly running = new SharedArrayBuffer(4);
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private modules: { name: string; path: string }[] = [];
  private readonly counters = new Map<
    string,
    { calls: number; errors: number; timeouts: number; ms: number }
  >();
  private closed = false;

  private constructor(private readonly options: ModuleHostOptions) {}

  /** Loads the modules (each runs its selfTest); returns the host and every load verdict. */
  static async start(options: ModuleHostOptions): Promise<{ host: ModuleHost; reports: LoadReport[] }> {
    const host = new ModuleHost(options);
    if (options.paths.length === 0) {
      host.closed = true;
      return { host, reports: [] };
    }
    const reports = await host.spawn([...options.paths], true);
    host.modules = reports.flatMap((r) =>
      r.refused === undefined && r.name !== null ? [{ name: r.name, path: r.path }] : [],
    );
    for (const m of host.modules) host.counters.set(m.name, { calls: 0, errors: 0, timeouts: 0, ms: 0 });
    if (host.modules.length === 0) await host.close();
    return { host, reports };
  }

  get active(): boolean {
    return this.modules.length > 0 && !this.closed;
  }

  async onPages(pages: readonly ModulePage[]): Promise<PageVerdict[]> {
    const empty = (): PageVerdict[] => pages.map(() => ({ fields: {}, enqueue: [] }));
    if (!this.active || pages.length === 0) return empty();
    const reply = await this.ask({ id: this.nextId++, kind: 'pages', pages: [...pages] });
    if (reply === null || reply.kind !== 'pages') return empty();
    return reply.results.map((perModule) => {
      const verdict: PageVerdict = { fields: {}, enqueue: [] };
      perModule.forEach((r, i) => {
        if (r === null) return;
        this.count(i, r);
        if (r.value !== undefined && r.value !== null && typeof r.value === 'object') {
          Object.assign(verdict.fields, r.value);
        }
        if (r.enqueue !== undefined) verdict.enqueue.push(...r.enqueue);
      });
      return verdict;
    });
  }

  async onSite(site: ModuleSite): Promise<SiteVerdict> {
    const verdict: SiteVerdict = { info: {}, enqueue: [] };
    if (!this.active) return verdict;
    const reply = await this.ask({ id: this.nextId++, kind: 'site', site });
    if (reply === null || reply.kind !== 'site') return verdict;
    reply.results.forEach((r, i) => {
      if (r === null) return;
      this.count(i, r);
      const name = this.modules[i]?.name;
      if (name !== undefined && r.value !== undefined) verdict.info[name] = r.value;
      if (r.enqueue !== undefined) verdict.enqueue.push(...r.enqueue);
    });
    return verdict;
  }

  stats(): ModuleStats[] {
    return this.modules.map(({ name }) => {
      const c = this.counters.get(name) ?? { calls: 0, errors: 0, timeouts: 0, ms: 0 };
      return {
        name,
        calls: c.calls,
        errors: c.errors,
        timeouts: c.timeouts,
        meanMs: c.calls > 0 ? c.ms / c.calls : 0,
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
    await this.worker?.terminate();
  }

  private count(index: number, r: CallResult): void {
    const name = this.modules[index]?.name;
    const c = name === undefined ? undefined : this.counters.get(name);
    if (c === undefined) return;
    c.calls++;
    c.ms += r.ms;
    if (r.error !== undefined) {
      c.errors++;
      this.options.log(`module ${name}: ${r.error}`);
    }
    if (r.timeout === true) c.timeouts++;
  }

  private async spawn(paths: string[], selfTest: boolean): Promise<LoadReport[]> {
    const setup: WorkerSetup = {
      paths,
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      selfTest,
      running: this.running,
    };
    const worker = startWorker(new URL('./module-worker.js', import.meta.url), setup);
    this.worker = worker;
    const loaded = new Promise<LoadReport[]>((resolve, reject) => {
      worker.on('message', (msg: FromWorker) => {
        if (msg.kind === 'loaded') resolve(msg.modules);
        else if (msg.kind === 'log') this.options.log(`module ${msg.module}: ${msg.message}`);
        else this.settle(msg);
      });
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`the modules' thread exited (code ${code}) while loading`)),
      );
    });
    worker.on('error', (err) => this.options.log(`modules' thread failed: ${err.message}`));
    return loaded;
  }

  private ask(msg: ToWorker): Promise<FromWorker | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => void this.stuck(msg.id), this.options.timeoutMs + STUCK_GRACE_MS);
      this.waiting.set(msg.id, { msg, resolve, timer });
      this.worker?.postMessage(msg);
    });
  }

  private settle(reply: FromWorker): void {
    if (reply.kind !== 'pages' && reply.kind !== 'site') return;
    const w = this.waiting.get(reply.id);
    if (w === undefined) return;
    clearTimeout(w.timer);
    this.waiting.delete(reply.id);
    w.resolve(reply);
  }

  /**
   * The thread did not answer: a module is in an endless loop. Blame the one it names,
   * answer every waiting call with nothing, and start a fresh thread with the same modules.
   */
  private async stuck(id: number): Promise<void> {
    if (!this.waiting.has(id) || this.closed) return;
    const culprit = this.modules[(new Int32Array(this.running)[0] ?? 0) - 1];
    const stranded = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of stranded) {
      clearTimeout(w.timer);
      const calls = w.msg.kind === 'pages' ? w.msg.pages.length : 1;
      if (culprit !== undefined) {
        const c = this.counters.get(culprit.name);
        if (c !== undefined) {
          c.calls += calls;
          c.timeouts += calls;
          c.ms += calls * this.options.timeoutMs;
        }
      }
      w.resolve(null);
    }
    this.options.log(
      `module ${culprit?.name ?? '?'} did not return within ${this.options.timeoutMs} ms and held its thread; restarting the modules' thread`,
    );
    const old = this.worker;
    new Int32Array(this.running)[0] = 0;
    void old?.terminate();
    try {
      await this.spawn(
        this.modules.map((m) => m.path),
        false,
      );
    } catch (err) {
      // Closed while the new thread was loading (the crawl ended), or it failed to load.
      if (!this.closed) {
        this.options.log(
          `the modules' thread could not be restarted: ${(err as Error).message}; modules are off`,
        );
        this.closed = true;
      }
    }
  }
}
