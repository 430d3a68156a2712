import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const started = new Set<ChildProcess>();

// If the benchmark dies or is interrupted, take down the children it started (by pid).
process.on('exit', () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/**
 * Node flags for every measured child, to profile one (BENCH_NODE_ARGS='--cpu-prof
 * --cpu-prof-dir=/tmp/prof'); node refuses --cpu-prof in NODE_OPTIONS.
 */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');

/**
 * Runs bin/cobweb.js (of this checkout or another) as a user's `cobweb` runs: the file
 * itself, whose first lines choose how node starts. With BENCH_NODE_ARGS (profiling),
 * node runs it with those flags instead, without the file's own settings.
 */
export function spawnCobweb(
  bin: string,
  args: readonly string[],
  cwd: string,
  stdout: 'pipe' | 'ignore' = 'pipe',
): ChildProcess {
  if (NODE_ARGS.length > 0) return spawnNode([bin, ...args], cwd, stdout);
  return tracked(spawn(bin, args, { cwd, stdio: ['pipe', stdout, 'pipe'] }));
}

/** Starts `node <args>` with stdin/stdout piped and stderr kept for error messages. */
export function spawnNode(
  args: readonly string[],
  cwd: string,
  stdout: 'pipe' | 'ignore' = 'pipe',
): ChildProcess {
  return tracked(spawn(process.execPath, [...NODE_ARGS, ...args], { cwd, stdio: ['pipe', stdout, 'pipe'] }));
}

/** A child the benchmark takes down if it dies first. */
function tracked(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** The last bytes of a child's stderr, for reporting why it failed. */
export function collectStderrTail(child: ChildProcess, maxChars = 4000): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-maxChars);
  });
  return () => tail;
}

/** Hands out stdout lines one at a time, each parsed as JSON, failing after timeoutMs or on exit. */
export function jsonLineReader(child: ChildProcess): (timeoutMs: number) => Promise<unknown> {
  if (!child.stdout) throw new Error('child stdout is not piped');
  const pending: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else pending.push(line);
  });
  lines.on('close', () => {
    closed = true;
    for (const waiter of waiting.splice(0)) waiter(undefined);
  });
  return (timeoutMs) =>
    new Promise((resolve, reject) => {
      const settle = (line: string | undefined): void => {
        clearTimeout(timer);
        if (line === undefined) reject(new Error('child closed stdout before printing a line'));
        else resolve(JSON.parse(line));
      };
      const timer = setTimeout(() => {
        const index = waiting.indexOf(settle);
        if (index >= 0) waiting.splice(index, 1);
        reject(new Error(`no line from child within ${timeoutMs} ms`));
      }, timeoutMs);
      const ready = pending.shift();
      if (ready !== undefined) settle(ready);
      else if (closed) settle(undefined);
      else waiting.push(settle);
    });
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Waits for the child to exit; after timeoutMs it is killed, so a benchmark always ends. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<ExitResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut });
    };
    if (child.exitCode !== null || child.signalCode !== null) finish(child.exitCode, child.signalCode);
    else child.once('exit', finish);
  });
}

/**
 * Samples VmHWM (the kernel's peak-RSS mark) from /proc every intervalMs. The mark only
 * grows, so the last sample before exit is the peak, short of growth in the final interval.
 */
export function watchPeakRss(pid: number, intervalMs = 100): { stop(): number } {
  let peakBytes = 0;
  const sample = (): void => {
    const kib = readVmHwmKib(pid);
    if (kib !== undefined) peakBytes = Math.max(peakBytes, kib * 1024);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peakBytes;
    },
  };
}

function readVmHwmKib(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined; // gone already, or not Linux
  }
}

// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every mainstream build and Node cannot ask sysconf.
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, or undefined when /proc cannot tell. */
export function processCpuSeconds(pid: number): number | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  // utime and stime are fields 14 and 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : undefined;
}

/**
 * CPU seconds (user + system) of this process's children that have exited and been
 * waited for, with their own children and threads: the kernel adds each one's whole use
 * when it is reaped, so the difference across a round is exactly what the round's
 * processes used, start-up and shutdown included (the web process, alive throughout, is
 * not in it). Undefined where /proc cannot tell.
 */
export function exitedChildrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) of a process and of its children, alive or exited: a
 * server that forks a process per connection (PostgreSQL's postmaster) does its work
 * in them. Live children are found by their parent pid in /proc; exited ones were added
 * to the parent's cutime and cstime when it reaped them. Undefined where /proc cannot tell.
 */
export function processTreeCpuSeconds(pid: number): number | undefined {
  const own = statFields(pid);
  if (own === undefined) return undefined;
  let ticks = ticksWithChildren(own);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    // Field 4, the parent pid, is index 1 after the command name.
    if (f !== undefined && Number(f[1]) === pid) ticks += ticksWithChildren(f);
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** The fields of /proc/PID/stat after the command name (field 3 is index 0). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** utime + stime + cutime + cstime (fields 14 to 17), in clock ticks. */
function ticksWithChildren(f: string[]): number {
  const t = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return Number.isFinite(t) ? t : 0;
}
