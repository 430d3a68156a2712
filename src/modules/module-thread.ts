import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import {
  type FromWorker,
  type LoadReport,
  type RequestBody,
  SHARED_BYTES,
  sharedViews,
  type ToWorker,
  type WorkerSetup,
} from './protocol.js';

export interface ModuleThreadOptions {
  /** The module file. */
  path: string;
  /** `<data>/data`: where the module's emitted records go; null: back with each answer. */
  dataDir: string | null;
  timeoutMs: number;
  /** The module's own log lines (ctx.log). */
  log: (line: string) => void;
  /** What went wrong with its thread: stuck, died, could not be started again. */
  warn: (line: string) => void;
}

type Reply = Extract<FromWorker, { kind: 'pages' | 'site' }>;

/**
 * What became of one request: the module's answer; 'stuck' when the thread got stuck
 * while on it (the call that hung is counted against this one); 'lost' when another
 * request it had started on died with the stuck thread; 'off' when the module could
 * not be started again and is switched off.
 */
export type Answer = Reply | 'stuck' | 'lost' | 'off';

interface Waiting {
  msg: ToWorker;
  resolve: (answer: Answer) => void;
}

/**
 * Margin past --module-timeout before a thread whose heartbeat stopped is declared
 * stuck (a module in an endless loop): the thread's own timers cannot fire then.
 */
const STUCK_GRACE_MS = 1000;
/** How often the heartbeat of a thread with requests in flight is looked at. */
const WATCH_MS = 200;
/** How long a new thread may take to start beating (Node.js boot, loading tsx in tests). */
const BOOT_MS = 60_000;

/**
 * One module on its own worker thread. A module that hangs or burns CPU holds up only
 * its own thread: the others go on with every page. A stuck thread (no heartbeat past
 * the timeout) is terminated and started again; requests it had not started on are
 * sent to the new one.
 */
export class ModuleThread {
  /** The newest thread started (loading, or loaded). */
  private worker: Worker | null = null;
  /** The loaded thread that takes requests; null while loading or restarting, and once off. */
  private live: Worker | null = null;
  private readonly shared = new SharedArrayBuffer(SHARED_BYTES);
  private readonly views = sharedViews(this.shared);
  private readonly waiting = new Map<number, Waiting>();
  private spawnedAt = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  private constructor(private readonly options: ModuleThreadOptions) {}

  /** Starts the thread and loads the module, selfTest included. The report says whether it loaded. */
  static async load(options: ModuleThreadOptions): Promise<{ thread: ModuleThread; report: LoadReport }> {
    const thread = new ModuleThread(options);
    const { worker, report } = await thread.spawn(true);
    thread.live = worker;
    if (worker === null) thread.closed = true;
    return { thread, report };
  }

  ask(body: RequestBody): Promise<Answer> {
    if (this.closed) return Promise.resolve('off');
    const request: ToWorker = { ...body, id: this.nextId++ };
    return new Promise((resolve) => {
      this.waiting.set(request.id, { msg: request, resolve });
      this.startWatching();
      // While the thread is being started again, the request waits for the new one.
      this.live?.postMessage(request);
    });
  }

  async close(): Promise<void> {
    if (this.closed && this.worker === null) return;
    this.closed = true;
    this.live = null;
    this.settleAll('off');
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  /** Starts a thread on the module; resolves once it says whether the module loaded. */
  private spawn(selfTest: boolean): Promise<{ worker: Worker | null; report: LoadReport }> {
    Atomics.store(this.views.beat, 0, 0n);
    Atomics.store(this.views.started, 0, 0);
    const setup: WorkerSetup = {
      path: this.options.path,
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      selfTest,
      shared: this.shared,
    };
    const worker = startWorker(new URL('./module-worker.js', import.meta.url), setup);
    this.worker = worker;
    this.spawnedAt = Date.now();
    const refused = (why: string): { worker: null; report: LoadReport } => {
      void worker.terminate();
      return {
        worker: null,
        report: { path: this.options.path, name: null, refused: why, hooks: { page: false, site: false } },
      };
    };
    return new Promise((resolve) => {
      // A module stuck at load (its top-level code or selfTest never returns) is refused.
      const watch = setInterval(() => {
        if (!this.isStuck()) return;
        clearInterval(watch);
        resolve(
          refused(
            `it did not finish loading within ${this.options.timeoutMs} ms (its code or its selfTest never returned)`,
          ),
        );
      }, WATCH_MS);
      worker.on('message', (msg: FromWorker) => {
        if (msg.kind === 'loaded') {
          clearInterval(watch);
          if (msg.report.refused === undefined) resolve({ worker, report: msg.report });
          else resolve({ ...refused(msg.report.refused), report: msg.report });
        } else if (msg.kind === 'log') this.options.log(msg.message);
        else if (worker === this.live) this.settle(msg);
      });
      worker.on('error', (err) => {
        clearInterval(watch);
        resolve(refused(`its thread failed: ${err.message}`));
        // An error nothing caught (in a timer of the module's, say) ended a loaded thread.
        if (worker === this.live) void this.restart(`its thread failed: ${err.message}`);
      });
      worker.on('exit', (code) => {
        clearInterval(watch);
        resolve(refused(`its thread exited (code ${code}) while loading`));
      });
    });
  }

  private isStuck(): boolean {
    const beat = Number(Atomics.load(this.views.beat, 0));
    const since = beat === 0 ? this.spawnedAt + BOOT_MS : beat;
    return Date.now() - since > this.options.timeoutMs + STUCK_GRACE_MS;
  }

  private settle(reply: Reply): void {
    const w = this.waiting.get(reply.id);
    if (w === undefined) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.stopWatching();
    w.resolve(reply);
  }

  private settleAll(answer: 'off'): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    this.stopWatching();
    for (const w of all) w.resolve(answer);
  }

  private startWatching(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(() => {
      if (this.live !== null && this.isStuck()) {
        void this.restart(`did not return within ${this.options.timeoutMs} ms and held its thread`);
      }
    }, WATCH_MS);
  }

  private stopWatching(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  /**
   * The thread's heartbeat stopped (the module is in an endless loop), or the thread
   * died. The requests it had started on are answered 'stuck'; the others go to a
   * fresh thread.
   */
  private async restart(why: string): Promise<void> {
    const old = this.live;
    if (old === null || this.closed) return;
    this.live = null;
    const lastStarted = Atomics.load(this.views.started, 0);
    let blamed = false;
    for (const [id, w] of [...this.waiting].sort(([a], [b]) => a - b)) {
      if (id > lastStarted) continue;
      this.waiting.delete(id);
      w.resolve(blamed ? 'lost' : 'stuck');
      blamed = true;
    }
    this.options.warn(`${why}; starting its thread again`);
    void old.terminate();
    const { worker, report } = await this.spawn(false);
    if (this.closed) {
      void worker?.terminate();
      return;
    }
    if (worker === null) {
      this.options.warn(
        `could not be started again (${report.refused}); it is off for the rest of the crawl`,
      );
      this.closed = true;
      this.settleAll('off');
      return;
    }
    this.live = worker;
    for (const w of [...this.waiting.values()].sort((a, b) => a.msg.id - b.msg.id)) worker.postMessage(w.msg);
  }
}
