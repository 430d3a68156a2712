// One set-up's run on the scale web: start it, sample it while it crawls (pages answered at
// the web, RSS and CPU of each process, its lease latency), wait for the crawlers to
// exit, then ask the web what it saw.
import { readFileSync } from 'node:fs';
import { processCpuSeconds, processTreeCpuSeconds, waitForExit } from '../child.js';
import { type LeaseLatency, leaseLatency } from './lease-latency.js';
import { type SetupContext, type SetupName, type StartedSetup, startSetup } from './setups.js';
import type { TallyReport } from './tally.js';
import type { ScaleWebProcess } from './web-process.js';

export interface Window {
  /** Pages answered (200) at the window's end. */
  pages: number;
  seconds: number;
  pagesPerSecond: number;
  /** RSS in bytes of each process at the window's end, by process name. */
  rss: Record<string, number>;
  /**
   * V8 heap in use (bytes, main thread) of each process that serves /metrics, from its
   * last scrape (at most 2 s before the window's end): RSS that grows while this does not
   * is V8's headroom or memory outside the heap, not what the process keeps.
   */
  heap: Record<string, number>;
}

export interface ProcessFigures {
  name: string;
  cpuSeconds: number;
  peakRssBytes: number;
  exitCode: number | null;
  lease?: LeaseLatency;
}

export interface SetupResult {
  setup: SetupName;
  label: string;
  seconds: number;
  timedOut: boolean;
  failed: string | null;
  web: TallyReport;
  /** CPU seconds of the web process during the run (did serving compete for the cores?). */
  webCpuSeconds: number;
  windows: Window[];
  processes: ProcessFigures[];
  /** CPU seconds of the database server and its backends during the run (the postgres set-up). */
  databaseCpuSeconds?: number;
  /** The database's time by statement (pg_stat_statements), when asked for. */
  statements?: string;
  storeBytes: number;
}

export interface RunSetupOptions extends Omit<SetupContext, 'firstStarted'> {
  setup: SetupName;
  label?: string;
  webProcess: ScaleWebProcess;
  /** Pages per window (10^5 at full size; a tenth of the reachable set below). */
  windowPages: number;
  timeoutSeconds: number;
  /** The database server's pid (the postgres set-up): its CPU, backends included, is counted. */
  databasePid?: number;
}

const SAMPLE_MS = 250;
const METRICS_EVERY = 8;

function rssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** nodejs_heap_size_used_bytes of a /metrics text (prom-client's default metrics). */
function heapUsedOf(text: string | undefined): number | undefined {
  const m = text === undefined ? null : /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

async function scrape(port: number | undefined): Promise<string | undefined> {
  if (port === undefined) return undefined;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

export async function runSetup(o: RunSetupOptions): Promise<SetupResult> {
  const web = o.webProcess;
  await web.reset();
  const webCpuAtStart = web.cpuSeconds() ?? 0;
  const databaseCpu = () => (o.databasePid === undefined ? undefined : processTreeCpuSeconds(o.databasePid));
  const databaseCpuAtStart = databaseCpu();
  const startedAt = performance.now();
  let started: StartedSetup;
  try {
    started = await startSetup(o.setup, {
      ...o,
      firstStarted: async () => {
        // The first bunny has added the seeds once the web sees a request.
        for (let i = 0; i < 600 && (await web.stats()).requests === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
      },
    });
  } catch (error) {
    return failedResult(o, (error as Error).message, await web.report());
  }
  const cpu = new Map<string, number>();
  const peak = new Map<string, number>();
  const metrics = new Map<string, string>();
  const windows: Window[] = [];
  let windowStart = { pages: 0, at: performance.now() };
  let samples = 0;
  let sampling = true;

  const sample = async (): Promise<void> => {
    for (const p of started.procs) {
      const c = p.child.pid === undefined ? undefined : processCpuSeconds(p.child.pid);
      if (c !== undefined) cpu.set(p.name, c);
      const r = rssBytes(p.child.pid);
      if (r !== undefined) peak.set(p.name, Math.max(peak.get(p.name) ?? 0, r));
    }
    if (samples++ % METRICS_EVERY === 0) {
      await Promise.all(
        started.procs.map(async (p) => {
          const text = await scrape(p.metricsPort);
          if (text !== undefined) metrics.set(p.name, text);
        }),
      );
    }
    const { pages } = await web.stats();
    while (pages >= windowStart.pages + o.windowPages) {
      const now = performance.now();
      const end = windowStart.pages + o.windowPages;
      const seconds = (now - windowStart.at) / 1000;
      const rss: Record<string, number> = {};
      const heap: Record<string, number> = {};
      for (const p of started.procs) {
        rss[p.name] = rssBytes(p.child.pid) ?? 0;
        const used = heapUsedOf(metrics.get(p.name));
        if (used !== undefined) heap[p.name] = used;
      }
      windows.push({
        pages: end,
        seconds,
        pagesPerSecond: o.windowPages / Math.max(seconds, 1e-3),
        rss,
        heap,
      });
      windowStart = { pages: end, at: now };
    }
  };
  const loop = (async () => {
    while (sampling) {
      await sample();
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();

  const exits = await Promise.all(started.crawlers.map((p) => waitForExit(p.child, o.timeoutSeconds * 1000)));
  const seconds = (performance.now() - startedAt) / 1000;
  // Before the bunnies' connections close: a backend's CPU reaches the postmaster's
  // children's count only when it exits and is reaped, so it is read from the live ones.
  const databaseCpuAtEnd = databaseCpu();
  sampling = false;
  await loop;
  await started.finish();
  // The last pages of a crawl that ended inside a window: a partial window.
  const { pages } = await web.stats();
  if (pages > windowStart.pages) {
    const s = (performance.now() - windowStart.at) / 1000;
    windows.push({
      pages,
      seconds: s,
      pagesPerSecond: (pages - windowStart.pages) / Math.max(s, 1e-3),
      rss: {},
      heap: {},
    });
  }
  const report = await web.report();
  const failedIndex = exits.findIndex((e) => e.code !== 0);
  const failedProc = failedIndex === -1 ? undefined : started.crawlers[failedIndex];
  return {
    setup: o.setup,
    label: o.label ?? o.setup,
    seconds,
    timedOut: exits.some((e) => e.timedOut),
    failed:
      failedProc === undefined
        ? null
        : `${failedProc.name} exited ${exits[failedIndex]?.code}: ${failedProc.tail().slice(-600)}`,
    web: report,
    webCpuSeconds: (web.cpuSeconds() ?? 0) - webCpuAtStart,
    windows,
    processes: started.procs.map((p) => {
      const text = metrics.get(p.name);
      const lease = text === undefined ? undefined : leaseLatency(text);
      return {
        name: p.name,
        cpuSeconds: cpu.get(p.name) ?? 0,
        peakRssBytes: peak.get(p.name) ?? 0,
        exitCode: started.crawlers.includes(p) ? (exits[started.crawlers.indexOf(p)]?.code ?? null) : null,
        ...(lease === undefined ? {} : { lease }),
      };
    }),
    ...(databaseCpuAtStart === undefined || databaseCpuAtEnd === undefined
      ? {}
      : { databaseCpuSeconds: databaseCpuAtEnd - databaseCpuAtStart }),
    storeBytes: await started.storeBytes().catch(() => 0),
  };
}

function failedResult(o: RunSetupOptions, why: string, web: TallyReport): SetupResult {
  return {
    setup: o.setup,
    label: o.label ?? o.setup,
    seconds: 0,
    timedOut: false,
    failed: why,
    web,
    webCpuSeconds: 0,
    windows: [],
    processes: [],
    storeBytes: 0,
  };
}
