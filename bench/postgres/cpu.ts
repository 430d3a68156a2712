// CPU time, read from /proc (Linux): the PostgreSQL server's processes and the whole machine's.
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** A process's CPU ticks so far (utime + stime) and its parent, or null when it is gone. */
function procStat(pid: number): { ppid: number; ticks: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces: fields count from after it
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(f[i - 3]);
    return { ppid: n(4), ticks: n(14) + n(15) };
  } catch {
    return null;
  }
}

/** What a server process is, from the title PostgreSQL gives it. */
function kindOf(pid: number): 'backend' | 'background' {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // "postgres: USER DB HOST(PORT) STATE" for a connection; "postgres: checkpointer" and the like otherwise
    return /^postgres: \S+ \S+ [\d.[\]:]+\(\d+\)|^postgres: \S+ \S+ \[local\]/.test(title)
      ? 'backend'
      : 'background';
  } catch {
    return 'background';
  }
}

/** The postmaster's pid: the parent of this connection's backend. */
export async function postmasterPid(client: pg.Client): Promise<number> {
  const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const stat = procStat(Number(r.rows[0]?.pid));
  if (stat === null) throw new Error('the server is not on this machine: its CPU cannot be read');
  return stat.ppid;
}

/** The server's CPU seconds in a measured time: its connections' (backends) and the rest's. */
export interface ServerCpu {
  backends: number;
  /** Autovacuum, the checkpointer, the WAL writer and the other background processes. */
  background: number;
}

/**
 * Measures the CPU the server's processes use from now until stop(), each process by
 * itself: the postmaster's children are read every 250 ms, and each one counts what it
 * used since it was first seen (or since the start). A process that ends between two
 * reads loses its last quarter second; counting it through the postmaster's totals of
 * ended children instead would count all its life, the time before the start included
 * (an autovacuum worker that ran for a minute, say).
 */
export function measureServerCpu(postmaster: number): { stop: () => ServerCpu } {
  const first = new Map<number, number>();
  const last = new Map<number, { ticks: number; kind: 'backend' | 'background' }>();
  const read = (atStart: boolean) => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const s = procStat(pid);
      if (s === null || s.ppid !== postmaster) continue;
      if (!first.has(pid)) first.set(pid, atStart ? s.ticks : 0);
      last.set(pid, { ticks: s.ticks, kind: last.get(pid)?.kind ?? kindOf(pid) });
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 250);
  return {
    stop() {
      clearInterval(timer);
      read(false);
      const cpu: ServerCpu = { backends: 0, background: 0 };
      for (const [pid, l] of last) {
        const seconds = (l.ticks - (first.get(pid) ?? 0)) / TICKS;
        if (l.kind === 'backend') cpu.backends += seconds;
        else cpu.background += seconds;
      }
      return cpu;
    },
  };
}

/** The whole machine's CPU seconds so far: busy (every process, this one included) and idle. */
export function machineCpuSeconds(): { busy: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...fields] = line.trim().split(/\s+/);
  const v = fields.map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / TICKS, idle: idle / TICKS };
}
