import type { ModuleSite, ModuleStats, PageFields } from './api.js';
import { HookRunner } from './hook-runner.js';
import { ModuleThread } from './module-thread.js';
import type { CallResult, LoadReport, PageBatch, SlotResults } from './protocol.js';

export interface ModuleHostOptions {
  /** Module files, built-ins first. */
  paths: readonly string[];
  /**
   * Those of `paths` that run on the crawl's own thread: the built-ins, which read only a
   * page's facts (a few microseconds a page, less than handing the page to a thread) and
   * cannot hang it. Every other module runs on the modules' thread.
   */
  inline?: readonly string[];
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

/** What the modules of one place (the thread, or the crawl's thread) made of a request; 'lost': nothing. */
type Answer = { results: SlotResults; emitted?: Record<number, string[]> } | 'lost';

/** A module's calls, errors, timeouts, pages skipped and the time its calls took (ms). */
export interface ModuleCounts {
  calls: number;
  errors: number;
  timeouts: number;
  skipped: number;
  ms: number;
}

interface Loaded {
  name: string;
  slot: number;
  /** Runs on the crawl's own thread (a built-in). */
  inline: boolean;
  hooks: LoadReport['hooks'];
  counts: ModuleCounts;
}

function sum(a: ModuleCounts, b: ModuleCounts | undefined): ModuleCounts {
  if (b === undefined) return { ...a };
  return {
    calls: a.calls + b.calls,
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    skipped: a.skipped + b.skipped,
    ms: a.ms + b.ms,
  };
}

/**
 * The crawl's side of the modules: the built-ins on the crawl's own thread, every other
 * module on one thread of their own (ModuleThread), started with the first of them.
 * Loading starts at once and is waited for only by what needs it: the first page or
 * site, or a caller that must know the verdicts before it goes on. Counts, per module,
 * calls, errors, timeouts and pages skipped.
 */
export class ModuleHost {
  private modules: Loaded[] = [];
  private thread: ModuleThread | null = null;
  private inlineRunner: HookRunner | null = null;
  private nextRequest = 1;
  /** Every load sent so far has been answered when this settles. */
  private loads: Promise<unknown> = Promise.resolve();
  private slots = 0;
  /** Loads sent to the modules' thread and not answered yet. */
  private pendingLoads = 0;
  private closed = false;
  /**
   * Calls made elsewhere and reported here (a server's bunnies run the page hooks), by
   * module name: added to this host's own counts of the same module.
   */
  private readonly reported = new Map<string, ModuleCounts>();
  /** What stats() last handed out, per module, for countsSince(). */
  private sent = new Map<string, ModuleCounts>();

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
   * selfTest. Its report says whether it was taken; `refuse` may give a reason not to
   * take it, from its name.
   */
  add(path: string, refuse?: (name: string) => string | undefined): Promise<LoadReport> {
    const slot = this.slots++;
    const inline = this.options.inline?.includes(path) === true;
    if (!inline) this.pendingLoads++;
    const loading = inline ? this.inlineOf().load(path, true, 0, slot) : this.threadOf().load(slot, path);
    const report = loading.then((r) => {
      if (!inline) this.pendingLoads--;
      if (r.refused === undefined && r.name !== null && this.modules.some((m) => m.name === r.name)) {
        r.refused = `a module named "${r.name}" is already loaded`;
      }
      if (r.refused === undefined && r.name !== null && refuse !== undefined) r.refused = refuse(r.name);
      if (r.refused === undefined && r.name !== null && !this.closed) {
        this.modules.push({
          name: r.name,
          slot,
          inline,
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

  /** The names of the modules loaded that have a page hook: what a crawling process must run on each page. */
  get withPageHooks(): string[] {
    return this.modules.filter((m) => m.hooks.page).map((m) => m.name);
  }

  /** Modules are loaded, or being loaded. */
  get active(): boolean {
    return this.slots > 0 && !this.closed;
  }

  /**
   * Whether a module on the modules' thread may want pages' bodies: one loaded there has a
   * page hook, or some are still loading. Without, the crawl need not copy them.
   */
  get mayWantBodies(): boolean {
    return this.active && (this.pendingLoads > 0 || this.modules.some((m) => !m.inline && m.hooks.page));
  }

  async onPages(batch: PageBatch): Promise<PageVerdict[]> {
    const count = batch.pages.length;
    const verdicts: PageVerdict[] = batch.pages.map(() => ({ fields: {}, enqueue: [], emitted: [] }));
    await this.loads;
    const withHook = this.modules.filter((m) => m.hooks.page);
    if (!this.active || count === 0 || withHook.length === 0) return verdicts;
    const [inThread, inline] = await this.ask(withHook, { kind: 'pages', batch, skip: [] });
    // Fields are merged in module order (built-ins first).
    for (const m of withHook) {
      const answer = m.inline ? inline : inThread;
      const results = this.resultsOf(m, answer, count);
      if (results === null) continue;
      // Lines of an earlier hook that ran past its call belong to no page: the first takes them.
      if (verdicts[0] !== undefined) keepEmitted(verdicts[0].emitted, m.name, lateOf(answer, m.slot));
      results.forEach((r, p) => {
        this.count(m, r, batch.pages[p]?.url ?? '');
        const verdict = verdicts[p] as PageVerdict;
        keepEmitted(verdict.emitted, m.name, r.emitted);
        if (r.value !== undefined && r.value !== null && typeof r.value === 'object') {
          Object.assign(verdict.fields, r.value);
        }
        if (r.enqueue !== undefined) verdict.enqueue.push(...r.enqueue);
      });
    }
    return verdicts;
  }

  async onSite(site: ModuleSite): Promise<SiteVerdict> {
    const verdict: SiteVerdict = { info: {}, enqueue: [], emitted: [] };
    await this.loads;
    const withHook = this.modules.filter((m) => m.hooks.site);
    if (!this.active || withHook.length === 0) return verdict;
    const [inThread, inline] = await this.ask(withHook, { kind: 'site', site, skip: [] });
    for (const m of withHook) {
      const answer = m.inline ? inline : inThread;
      const result = this.resultsOf(m, answer, 1)?.[0];
      if (result === undefined) continue;
      keepEmitted(verdict.emitted, m.name, lateOf(answer, m.slot));
      keepEmitted(verdict.emitted, m.name, result.emitted);
      this.count(m, result, site.origin);
      if (result.value !== undefined) verdict.info[m.name] = result.value;
      if (result.enqueue !== undefined) verdict.enqueue.push(...result.enqueue);
    }
    return verdict;
  }

  /** One request to the modules that have the hook: those on the thread and those here, at once. */
  private ask(
    withHook: readonly Loaded[],
    body: { kind: 'pages'; batch: PageBatch; skip: [] } | { kind: 'site'; site: ModuleSite; skip: [] },
  ): Promise<[Answer, Answer]> {
    const thread = this.thread;
    const inThread =
      thread !== null && withHook.some((m) => !m.inline) ? thread.ask(body) : Promise.resolve<Answer>('lost');
    const inline =
      this.inlineRunner !== null && withHook.some((m) => m.inline)
        ? this.inlineRunner.answer({ ...body, id: this.nextRequest++ })
        : Promise.resolve<Answer>('lost');
    return Promise.all([inThread, inline]);
  }

  /**
   * Per module: its calls here and those reported by other processes (addReported), a
   * module only reported included, after this host's own. Each says whether it is off.
   */
  stats(): ModuleStats[] {
    const own = this.modules.map((m) => ({
      name: m.name,
      counts: sum(m.counts, this.reported.get(m.name)),
      off: !m.inline && this.thread?.isOff(m.slot) === true,
    }));
    const elsewhere = [...this.reported]
      .filter(([name]) => !this.modules.some((m) => m.name === name))
      .map(([name, counts]) => ({ name, counts, off: false }));
    return [...own, ...elsewhere].map(({ name, counts: c, off }) => ({
      name,
      calls: c.calls,
      errors: c.errors,
      timeouts: c.timeouts,
      skipped: c.skipped,
      meanMs: c.calls > 0 ? c.ms / c.calls : 0,
      ...(off ? { off: true } : {}),
    }));
  }

  /** Calls another process made (a bunny's, on its server), added to this host's counts. */
  addReported(reports: readonly ({ name: string } & ModuleCounts)[]): void {
    for (const { name, ...counts } of reports) this.reported.set(name, sum(counts, this.reported.get(name)));
  }

  /**
   * This host's own counts since the last call, per module with any: what a bunny reports
   * to its server.
   */
  countsSince(): ({ name: string } & ModuleCounts)[] {
    const now = new Map(this.modules.map((m) => [m.name, { ...m.counts }]));
    const changes: ({ name: string } & ModuleCounts)[] = [];
    for (const [name, c] of now) {
      const before = this.sent.get(name);
      const d = {
        calls: c.calls - (before?.calls ?? 0),
        errors: c.errors - (before?.errors ?? 0),
        timeouts: c.timeouts - (before?.timeouts ?? 0),
        skipped: c.skipped - (before?.skipped ?? 0),
        ms: c.ms - (before?.ms ?? 0),
      };
      if (d.calls + d.errors + d.timeouts + d.skipped > 0) changes.push({ name, ...d });
    }
    this.sent = now;
    return changes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inlineRunner?.close();
    await this.thread?.close();
  }

  private threadOf(): ModuleThread {
    this.thread ??= new ModuleThread({
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      log: (slot, line) => this.options.log(`module ${this.nameOf(slot)}: ${line}`, 'info'),
      warn: (slot, line) =>
        this.options.log(slot === null ? line : `module ${this.nameOf(slot)}: ${line}`, 'error'),
      held: (slot) => {
        const m = this.modules.find((l) => l.slot === slot);
        if (m === undefined) return;
        m.counts.calls++;
        m.counts.timeouts++;
        m.counts.ms += this.options.timeoutMs;
      },
    });
    return this.thread;
  }

  private inlineOf(): HookRunner {
    this.inlineRunner ??= new HookRunner({
      timeoutMs: this.options.timeoutMs,
      dataDir: this.options.dataDir,
      log: (slot, line) => this.options.log(`module ${this.nameOf(slot)}: ${line}`, 'info'),
      starting: () => {},
      keepFilesOpen: true,
    });
    return this.inlineRunner;
  }

  private nameOf(slot: number): string {
    return this.modules.find((m) => m.slot === slot)?.name ?? this.options.paths[slot] ?? `#${slot}`;
  }

  /**
   * One module's results from an answer; null when it has none: the request was lost, or
   * the module is off (its pages are skipped).
   */
  private resultsOf(m: Loaded, answer: Answer, count: number): CallResult[] | null {
    const results = answer === 'lost' ? null : answer.results[m.slot];
    if (results === null || results === undefined || (!m.inline && this.thread?.isOff(m.slot) === true)) {
      // The crawl is over: nothing was skipped that mattered.
      if (!this.closed) m.counts.skipped += count;
      return null;
    }
    return results;
  }

  /** One call's result counted; an error or a timeout is said with the page (or site) it was on. */
  private count(m: Loaded, r: CallResult, on: string): void {
    // Counted when it held the thread (and said then).
    if (r.held === true) return;
    const c = m.counts;
    c.calls++;
    c.ms += r.ms;
    if (r.error !== undefined) {
      c.errors++;
      this.options.log(`module ${m.name} on ${on}: ${r.error}`, 'error');
    }
    if (r.timeout === true) {
      c.timeouts++;
      this.options.log(
        `module ${m.name} on ${on}: a call did not finish within ${this.options.timeoutMs} ms`,
        'error',
      );
    }
  }
}

/** What a module emitted after its calls had settled, as an answer carries it. */
function lateOf(answer: Answer, slot: number): string[] | undefined {
  return answer === 'lost' ? undefined : answer.emitted?.[slot];
}

function keepEmitted(into: EmittedRecord[], module: string, lines: readonly string[] | undefined): void {
  for (const line of lines ?? []) into.push({ module, record: JSON.parse(line) as Record<string, unknown> });
}
