import type { ModuleSite, ModuleStats, PageFields } from './api.js';
import { type Answer, ModuleThread } from './module-thread.js';
import type { CallResult, LoadReport, PageBatch } from './protocol.js';

export interface ModuleHostOptions {
  /** Module files, built-ins first. */
  paths: readonly string[];
  /**
   * `<data>/data`: where modules' emitted records go. null: they are kept for
   * takeEmitted() (a bunny sends them to its server, which keeps the crawl's records).
   */
  dataDir: string | null;
  timeoutMs: number;
  /** Module logs (ctx.log) and what happens to them: errors, timeouts, restarts. */
  log: (line: string, level: 'error' | 'info') => void;
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

interface Loaded {
  name: string;
  slot: number;
  hooks: LoadReport['hooks'];
  counts: { calls: number; errors: number; timeouts: number; skipped: number; ms: number };
}

/**
 * The crawl's side of the modules, all on one thread of their own (ModuleThread), off
 * the crawl's thread. Loading starts at once and is waited for only by what needs it:
 * the first page or site, or a caller that must know the verdicts before it goes on.
 * Counts, per module, calls, errors, timeouts and pages skipped.
 */
export class ModuleHost {
  private modules: Loaded[] = [];
  private emitted: { module: string; record: Record<string, unknown> }[] = [];
  private thread: ModuleThread | null = null;
  /** Every load sent so far has been answered when this settles. */
  private loads: Promise<unknown> = Promise.resolve();
  private slots = 0;
  private pendingLoads = 0;
  private closed = false;

  /** The verdicts on the modules `options.paths` named, in that order. */
  readonly loaded: Promise<LoadReport[]>;

  private constructor(private readonly options: ModuleHostOptions) {
    this.loaded = Promise.all(options.paths.map((path) => this.add(path)));
  }

  /** Starts loading every module (selfTests included); `loaded` says how that went. */
  static start(options: ModuleHostOptions): ModuleHost {
    return new ModuleHost(options);
  }

  /**
   * Loads one more module (at start, or while the crawl runs: loadmod), after its
   * selfTest. Its report says whether it was taken.
   */
  add(path: string): Promise<LoadReport> {
    const slot = this.slots++;
    this.pendingLoads++;
    const report = this.threadOf()
      .load(slot, path)
      .then((r) => {
        this.pendingLoads--;
        if (r.refused === undefined && r.name !== null && this.modules.some((m) => m.name === r.name)) {
          r.refused = `a module named "${r.name}" is already loaded`;
        }
        if (r.refused === undefined && r.name !== null && !this.closed) {
          this.modules.push({
            name: r.name,
            slot,
            hooks: r.hooks,
            counts: { calls: 0, errors: 0, timeouts: 0, skipped: 0, ms: 0 },
          });
          this.modules.sort((a, b) => a.slot - b.slot);
        }
        return r;
      });
    this.loads = Promise.all([this.loads, report]);
    return report;
  }

  /** The names of the modules loaded. */
  get names(): string[] {
    return this.modules.map((m) => m.name);
  }

  /** What modules emitted since the last call, when they have no data folder of their own. */
  takeEmitted(): { module: string; record: Record<string, unknown> }[] {
    const out = this.emitted;
    this.emitted = [];
    return out;
  }

  /** Modules are loaded, or being loaded. */
  get active(): boolean {
    return this.slots > 0 && !this.closed;
  }

  /**
   * Whether the modules may want pages: a loaded one has a page hook, or some are still
   * loading. Without, the crawl need not get pages ready for them.
   */
  get mayWantPages(): boolean {
    return this.active && (this.pendingLoads > 0 || this.modules.some((m) => m.hooks.page));
  }

  async onPages(batch: PageBatch): Promise<PageVerdict[]> {
    const count = batch.pages.length;
    const verdicts: PageVerdict[] = batch.pages.map(() => ({ fields: {}, enqueue: [] }));
    await this.loads;
    const withHook = this.modules.filter((m) => m.hooks.page);
    if (!this.active || count === 0 || withHook.length === 0 || this.thread === null) return verdicts;
    const answer = await this.thread.ask({ kind: 'pages', batch, skip: [] });
    // Fields are merged in module order (built-ins first).
    for (const m of withHook) {
      const results = this.resultsOf(m, answer, count);
      if (results === null) continue;
      results.forEach((r, p) => {
        this.count(m, r);
        const verdict = verdicts[p] as PageVerdict;
        if (r.value !== undefined && r.value !== null && typeof r.value === 'object') {
          Object.assign(verdict.fields, r.value);
        }
        if (r.enqueue !== undefined) verdict.enqueue.push(...r.enqueue);
      });
    }
    return verdicts;
  }

  async onSite(site: ModuleSite): Promise<SiteVerdict> {
    const verdict: SiteVerdict = { info: {}, enqueue: [] };
    await this.loads;
    const withHook = this.modules.filter((m) => m.hooks.site);
    if (!this.active || withHook.length === 0 || this.thread === null) return verdict;
    const answer = await this.thread.ask({ kind: 'site', site, skip: [] });
    for (const m of withHook) {
      const result = this.resultsOf(m, answer, 1)?.[0];
      if (result === undefined) continue;
      this.count(m, result);
      if (result.value !== undefined) verdict.info[m.name] = result.value;
      if (result.enqueue !== undefined) verdict.enqueue.push(...result.enqueue);
    }
    return verdict;
  }

  stats(): ModuleStats[] {
    return this.modules.map(({ name, counts: c }) => ({
      name,
      calls: c.calls,
      errors: c.errors,
      timeouts: c.timeouts,
      skipped: c.skipped,
      meanMs: c.calls > 0 ? c.ms / c.calls : 0,
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread?.close();
  }

  private threadOf(): ModuleThread {
    this.thread ??= new ModuleThread({
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      log: (slot, line) => this.options.log(`module ${this.nameOf(slot)}: ${line}`, 'info'),
      warn: (slot, line) =>
        this.options.log(slot === null ? line : `module ${this.nameOf(slot)}: ${line}`, 'error'),
    });
    return this.thread;
  }

  private nameOf(slot: number): string {
    return this.modules.find((m) => m.slot === slot)?.name ?? this.options.paths[slot] ?? `#${slot}`;
  }

  /**
   * One module's results from an answer, with what it emitted kept; null when it has
   * none: the request was lost, or the module is off (its pages are skipped).
   */
  private resultsOf(m: Loaded, answer: Answer, count: number): CallResult[] | null {
    const results = answer === 'lost' ? null : answer.results[m.slot];
    if (results === null || results === undefined || this.thread?.isOff(m.slot) === true) {
      // The crawl is over: nothing was skipped that mattered.
      if (!this.closed) m.counts.skipped += count;
      return null;
    }
    if (answer !== 'lost') {
      for (const line of answer.emitted?.[m.slot] ?? []) {
        this.emitted.push({ module: m.name, record: JSON.parse(line) as Record<string, unknown> });
      }
    }
    return results;
  }

  private count(m: Loaded, r: CallResult): void {
    const c = m.counts;
    c.calls++;
    c.ms += r.ms;
    if (r.error !== undefined) {
      c.errors++;
      this.options.log(`module ${m.name}: ${r.error}`, 'error');
    }
    if (r.timeout === true) {
      c.timeouts++;
      this.options.log(
        `module ${m.name}: a call did not finish within ${this.options.timeoutMs} ms`,
        'error',
      );
    }
  }
}
