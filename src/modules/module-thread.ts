import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker.js';
import {
  type FromWorker,
  type LoadReport,
  type RequestBody,
  SHARED_BYTES,
  type SkippedCall,
  sharedViews,
  type ToWorker,
  type WorkerSetup,
} from './protocol.js';

export interface ModuleThreadOptions {
  /** `<data>/data`: where the modules' emitted records go; null: back with each answer. */
  dataDir: string | null;
  timeoutMs: number;
  /** A module's own log lines (ctx.log), by its slot. */
  log: (slot: number, line: string) => void;
  /** What went wrong with the thread: stuck, died, a module that could not be loaded again. */
  warn: (slot: number | null, line: string) => void;
  /** A call of the module in this slot held the thread (it counts as its timeout). */
  held: (slot: number) => void;
}

type Reply = Extract<FromWorker, { kind: 'pages' | 'site' }>;

/** What became of a page or site request: the modules' answer, or 'lost' when it could not be run. */
export type Answer = Reply | 'lost';

interface Waiting {
  msg: ToWorker;
  resolve: (reply: FromWorker | 'lost') => void;
  /** How many threads this request was sent to. */
  sends: number;
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
 * A request that went down with this many threads that no module's call was blamed for
 * (the thread died) is given up on (its calls are skipped).
 */
const MAX_SENDS = 3;
/**
 * A module whose calls held the thread this many times is switched off, it alone: the
 * thread is started again without it, and the other modules go on, on every page.
 */
export const HOLDS_BEFORE_OFF = 3;

/**
 * The modules' thread: every module on one worker thread, off the crawl's thread, so
 * they share each page's decoded text and DOM. A module that hangs holds the thread; the
 * crawl sees its heartbeat stop and knows from shared memory whose call it was. The
 * thread is terminated and started again with the same modules (their selfTests not run
 * again), and every request it held is sent again, less that one call, which counts as
 * the module's timeout. The other modules' calls thus run on every page (a call the old
 * thread had run runs again: hooks run at least once). A module that held the thread
 * HOLDS_BEFORE_OFF times is switched off, it alone: the next thread does not load it.
 */
export class ModuleThread {
  private worker: Worker | null = null;
  private readonly shared = new SharedArrayBuffer(SHARED_BYTES);
  private readonly views = sharedViews(this.shared);
  private readonly waiting = new Map<number, Waiting>();
  /** The modules loaded, by slot: what a new thread loads again. */
  private readonly loaded = new Map<number, string>();
  private readonly off = new Set<number>();
  /** Per slot: how many times a call of that module held the thread. */
  private readonly holds = new Map<number, number>();
  private spawnedAt = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ModuleThreadOptions) {
    this.spawn();
  }

  /** Loads a module into a slot (its selfTest run); the report says whether it was taken. */
  async load(slot: number, path: string): Promise<LoadReport> {
    const reply = await this.send({ kind: 'load', slot, path, selfTest: true });
    if (reply === 'lost' || reply.kind !== 'loaded') {
      return {
        path,
        name: null,
        refused: 'the modules thread could not load it',
        hooks: { page: false, site: false },
      };
    }
    if (reply.report.refused === undefined) this.loaded.set(slot, path);
    return reply.report;
  }

  /** Whether the module in this slot is switched off (it could not be loaded again after a restart). */
  isOff(slot: number): boolean {
    return this.off.has(slot);
  }

  async ask(body: Exclude<RequestBody, { kind: 'load' }>): Promise<Answer> {
    const reply = await this.send(body);
    return reply === 'lost' || reply.kind === 'pages' || reply.kind === 'site' ? reply : 'lost';
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.settleAll();
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private send(body: RequestBody): Promise<FromWorker | 'lost'> {
    if (this.closed) return Promise.resolve('lost');
    const msg = { ...body, id: this.nextId++ } as ToWorker;
    return new Promise((resolve) => {
      this.waiting.set(msg.id, { msg, resolve, sends: 1 });
      this.startWatching();
      this.worker?.postMessage(msg);
    });
  }

  private spawn(): Worker {
    Atomics.store(this.views.beat, 0, 0n);
    Atomics.store(this.views.call, 0, 0);
    const setup: WorkerSetup = {
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      shared: this.shared,
    };
    const worker = startWorker(new URL('./module-worker.js', import.meta.url), setup);
    this.worker = worker;
    this.spawnedAt = Date.now();
    worker.on('message', (msg: FromWorker) => {
      if (worker !== this.worker) return;
      if (msg.kind === 'log') {
        this.options.log(msg.slot, msg.message);
        return;
      }
      const w = this.waiting.get(msg.id);
      if (w === undefined) return;
      this.waiting.delete(msg.id);
      if (this.waiting.size === 0) this.stopWatching();
      w.resolve(msg);
    });
    worker.on('error', (err) => {
      if (worker === this.worker) this.restart(`the modules thread failed: ${err.message}`, false);
    });
    worker.on('exit', (code) => {
      if (worker === this.worker && !this.closed)
        this.restart(`the modules thread exited (code ${code})`, false);
    });
    return worker;
  }

  private isStuck(): boolean {
    const beat = Number(Atomics.load(this.views.beat, 0));
    const since = beat === 0 ? this.spawnedAt + BOOT_MS : beat;
    return Date.now() - since > this.options.timeoutMs + STUCK_GRACE_MS;
  }

  private startWatching(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(() => {
      if (this.worker !== null && this.isStuck()) this.restart('', true);
    }, WATCH_MS);
  }

  private stopWatching(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  /**
   * The thread is gone or stuck. When stuck, the call that held it is named by shared
   * memory: a module stuck loading is refused, a hook's call is skipped when its request
   * is sent again. Then a new thread loads the same modules and gets every request
   * that was waiting.
   */
  private restart(why: string, stuck: boolean): void {
    const old = this.worker;
    if (old === null || this.closed) return;
    this.worker = null;
    void old.terminate();
    let blamed = false;
    if (stuck) {
      const [id, slot, page] = Array.from(this.views.call);
      const w = this.waiting.get(id ?? 0);
      if (w !== undefined && slot !== undefined && page !== undefined) {
        if (w.msg.kind === 'load') {
          this.waiting.delete(w.msg.id);
          w.resolve({
            kind: 'loaded',
            id: w.msg.id,
            report: {
              path: w.msg.path,
              name: null,
              refused: `it did not finish loading within ${this.options.timeoutMs} ms (its code or its selfTest never returned)`,
              hooks: { page: false, site: false },
            },
          });
        } else {
          w.msg.skip.push([slot, page] satisfies SkippedCall);
          blamed = true;
          this.hold(slot);
        }
      }
    } else {
      this.options.warn(null, `${why}; starting it again`);
    }
    // Loads into the old thread that it never answered are sent again below, for the
    // modules still on: none is answered twice, none switched off for the thread's loss.
    for (const w of [...this.waiting.values()]) {
      if (w.msg.kind === 'load' && !w.msg.selfTest) this.waiting.delete(w.msg.id);
    }
    const pending = [...this.waiting.values()].sort((a, b) => a.msg.id - b.msg.id);
    const worker = this.spawn();
    for (const [slot, path] of this.loaded) {
      if (!this.off.has(slot)) this.reload(slot, path);
    }
    for (const w of pending) {
      // A restart that skips the call that held the thread goes forward: only a thread
      // lost for no call's sake counts against the requests it held.
      if (!blamed) w.sends++;
      if (w.sends > MAX_SENDS) {
        this.waiting.delete(w.msg.id);
        w.resolve('lost');
      } else {
        worker.postMessage(w.msg);
      }
    }
    this.startWatching();
  }

  /** A call of the module in `slot` held the thread: it is started again, without the module once it did so too often. */
  private hold(slot: number): void {
    this.options.held(slot);
    const holds = (this.holds.get(slot) ?? 0) + 1;
    this.holds.set(slot, holds);
    const what = `did not return within ${this.options.timeoutMs} ms (--module-timeout) and held the modules thread`;
    if (holds < HOLDS_BEFORE_OFF) {
      this.options.warn(slot, `${what}; starting it again`);
      return;
    }
    this.off.add(slot);
    this.options.warn(
      slot,
      `${what} ${holds} times; it is off for the rest of the crawl, and the thread starts again without it (the other modules go on)`,
    );
  }

  /** Loads a module into a new thread, without its selfTest; one that cannot be loaded is off. */
  private reload(slot: number, path: string): void {
    const msg: ToWorker = { kind: 'load', slot, path, selfTest: false, id: this.nextId++ };
    this.waiting.set(msg.id, {
      msg,
      sends: 1,
      resolve: (reply) => {
        const refused =
          reply === 'lost'
            ? 'the thread was lost'
            : reply.kind === 'loaded'
              ? reply.report.refused
              : undefined;
        if (refused === undefined) return;
        this.off.add(slot);
        this.options.warn(
          slot,
          `could not be started again (${refused}); it is off for the rest of the crawl`,
        );
      },
    });
    this.worker?.postMessage(msg);
  }

  private settleAll(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    this.stopWatching();
    for (const w of all) w.resolve('lost');
  }
}
