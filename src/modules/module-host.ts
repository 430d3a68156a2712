import type { ModulePage, ModuleSite, ModuleStats, PageFields } from './api.js';
import { type Answer, ModuleThread } from './module-thread.js';
import type { CallResult, LoadReport } from './protocol.js';

export interface ModuleHostOptions {
  /** Module files, built-ins first. */
  paths: readonly string[];
  /**
   * `<data>/data`: where modules' emitted records go. null: they come back in each
   * page's and site's verdict (a bunny sends them to its server, which keeps the
   * crawl's records).
   */
  dataDir: string | null;
  timeoutMs: number;
  /** Module logs (ctx.log) and what happens to them: errors, timeouts, restarts. */
  log: (line: string, level: 'error' | 'info') => void;
}

/** A record a module emitted, when it has no data folder of its own. */
export interface EmittedRecord {
  module: string;
  record: Record<string, unknown>;
}

/** What the modules made of one page. */
export interface PageVerdict {
  /** Fields the modules add to the page's pages.jsonl line. */
  fields: PageFields;
  /** URLs the modules asked the crawl to consider. */
  enqueue: string[];
  /** What the hooks emitted for this page (without a data folder). */
  emitted: EmittedRecord[];
}

export interface SiteVerdict {
  /** Per module name: what its onSite returned. */
  info: Record<string, unknown>;
  enqueue: string[];
  /** What the hooks emitted for this site (without a data folder). */
  emitted: EmittedRecord[];
}

interface Loaded {
  name: string;
  thread: ModuleThread;
  hooks: LoadReport['hooks'];
  counts: { calls: number; errors: number; timeouts: number; skipped: number; ms: number };
}

/**
 * The crawl's side of the modules: each module on a thread of its own (ModuleThread),
 * so a module that is slow, hangs or loops costs only its own calls; every other
 * module still runs on every page. Counts, per module, calls, errors, timeouts and
 * pages skipped.
 */
export class ModuleHost {
  private modules: Loaded[] = [];
  private closed = false;

  private constructor(private readonly options: ModuleHostOptions) {}

  /**
   * Loads one more module while the crawl runs (loadmod): on its own thread, after its
   * selfTest. Its report says whether it was taken; `refuse` may give a reason not to
   * take it, from its name.
   */
  async add(path: string, refuse?: (name: string) => string | undefined): Promise<LoadReport> {
    const { thread, report } = await ModuleThread.load({
      path,
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      log: (line) => this.options.log(`module ${report.name ?? path}: ${line}`, 'info'),
      warn: (line) => this.options.log(`module ${report.name ?? path}: ${line}`, 'error'),
    });
    if (
      report.refused === undefined &&
      report.name !== null &&
      this.modules.some((m) => m.name === report.name)
    ) {
      report.refused = `a module named "${report.name}" is already loaded`;
    }
    if (report.refused === undefined && report.name !== null && refuse !== undefined) {
      report.refused = refuse(report.name);
    }
    if (report.refused !== undefined || report.name === null || this.closed) {
      await thread.close();
      return report;
    }
    this.modules.push({
      name: report.name,
      thread,
      hooks: report.hooks,
      counts: { calls: 0, errors: 0, timeouts: 0, skipped: 0, ms: 0 },
    });
    return report;
  }

  /** The names of the modules loaded. */
  get names(): string[] {
    return this.modules.map((m) => m.name);
  }

  /**
   * Loads every module, each on its own thread and at once (each runs its selfTest).
   * The reports are in the order of `paths`; the caller decides what a refusal means.
   */
  static async start(options: ModuleHostOptions): Promise<{ host: ModuleHost; reports: LoadReport[] }> {
    const host = new ModuleHost(options);
    const started = await Promise.all(
      options.paths.map((path) => {
        let name = path;
        return ModuleThread.load({
          path,
          dataDir: options.dataDir,
          timeoutMs: options.timeoutMs,
          log: (line) => options.log(`module ${name}: ${line}`, 'info'),
          warn: (line) => options.log(`module ${name}: ${line}`, 'error'),
        }).then((loaded) => {
          name = loaded.report.name ?? path;
          return loaded;
        });
      }),
    );
    const names = new Set<string>();
    for (const { thread, report } of started) {
      if (report.refused === undefined && report.name !== null && names.has(report.name)) {
        report.refused = `a module named "${report.name}" is already loaded`;
      }
      if (report.refused !== undefined || report.name === null) {
        await thread.close();
        continue;
      }
      names.add(report.name);
      host.modules.push({
        name: report.name,
        thread,
        hooks: report.hooks,
        counts: { calls: 0, errors: 0, timeouts: 0, skipped: 0, ms: 0 },
      });
    }
    return { host, reports: started.map((s) => s.report) };
  }

  get active(): boolean {
    return this.modules.length > 0 && !this.closed;
  }

  async onPages(pages: readonly ModulePage[]): Promise<PageVerdict[]> {
    const verdicts: PageVerdict[] = pages.map(() => ({ fields: {}, enqueue: [], emitted: [] }));
    if (!this.active || pages.length === 0) return verdicts;
    const withHook = this.modules.filter((m) => m.hooks.page);
    const answers = await Promise.all(
      withHook.map((m) => m.thread.ask({ kind: 'pages', pages: [...pages] })),
    );
    // Fields are merged in module order (built-ins first), whichever thread answered first.
    withHook.forEach((m, i) => {
      const answer = answers[i] as Answer;
      if (typeof answer === 'string') {
        this.lost(m, answer, pages.length);
        return;
      }
      if (answer.kind !== 'pages') return;
      // Lines of an earlier hook that ran past its call belong to no page: the first takes them.
      if (verdicts[0] !== undefined) keepEmitted(verdicts[0].emitted, m.name, answer.emitted);
      answer.results.forEach((r, p) => {
        this.count(m, r);
        const verdict = verdicts[p] as PageVerdict;
        keepEmitted(verdict.emitted, m.name, r.emitted);
        if (r.value !== undefined && r.value !== null && typeof r.value === 'object') {
          Object.assign(verdict.fields, r.value);
        }
        if (r.enqueue !== undefined) verdict.enqueue.push(...r.enqueue);
      });
    });
    return verdicts;
  }

  async onSite(site: ModuleSite): Promise<SiteVerdict> {
    const verdict: SiteVerdict = { info: {}, enqueue: [], emitted: [] };
    if (!this.active) return verdict;
    const withHook = this.modules.filter((m) => m.hooks.site);
    const answers = await Promise.all(withHook.map((m) => m.thread.ask({ kind: 'site', site })));
    withHook.forEach((m, i) => {
      const answer = answers[i] as Answer;
      if (typeof answer === 'string') {
        this.lost(m, answer, 1);
        return;
      }
      if (answer.kind !== 'site') return;
      keepEmitted(verdict.emitted, m.name, answer.emitted);
      keepEmitted(verdict.emitted, m.name, answer.result.emitted);
      this.count(m, answer.result);
      if (answer.result.value !== undefined) verdict.info[m.name] = answer.result.value;
      if (answer.result.enqueue !== undefined) verdict.enqueue.push(...answer.result.enqueue);
    });
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
    await Promise.all(this.modules.map((m) => m.thread.close()));
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

  /**
   * A request whose answer will never come. 'stuck': the thread hung on one of its calls
   * (one call, one timeout), and the module's results for its other pages died with
   * the thread (skipped). 'lost' and 'off': none of it ran to the end (all skipped).
   */
  private lost(m: Loaded, answer: 'stuck' | 'lost' | 'off', calls: number): void {
    if (this.closed) return; // the crawl is over: nothing was skipped that mattered
    const c = m.counts;
    if (answer === 'stuck') {
      c.calls++;
      c.timeouts++;
      c.ms += this.options.timeoutMs;
      c.skipped += calls - 1;
    } else {
      c.skipped += calls;
    }
  }
}

function keepEmitted(into: EmittedRecord[], module: string, lines: readonly string[] | undefined): void {
  for (const line of lines ?? []) into.push({ module, record: JSON.parse(line) as Record<string, unknown> });
}
