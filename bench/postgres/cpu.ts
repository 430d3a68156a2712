// CPU time, read from /proc (Linux): the PostgreSQL server's processes and the whole machine's.
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** utime, stime, cutime, cstime and ppid of a process, or null when it is gone. */
function procStat(pid: number): { ppid: number; own: number; children: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces: fields count from after it
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(f[i - 3]);
    return { ppid: n(4), own: n(14) + n(15), children: n(16) + n(17) };
  } catch {
    return null;
  }
}

/** The postmaster's pid: the parent of this connection's backend. */
export async function postmasterPid(client: pg.Client): Promise<number> {
  const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const stat = procStat(Number(r.rows[0]?.pid));
  if (stat === null) throw new Error('the server is not on this machine: its CPU cannot be read');
  return stat.ppid;
}

/**
 * Seconds of CPU the server has used: the postmaster, its live processes (backends, WAL
 * writer, checkpointer, autovacuum) and the ones that ended (reaped by the postmaster).
 */
export function serverCpuSeconds(postmaster: number): number {
  const main = procStat(postmaster);
  if (main === null) return Number.NaN;
  let ticks = main.own + main.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = procStat(Number(entry));
    if (s !== null && s.ppid === postmaster) ticks += s.own + s.children;
  }
  return ticks / TICKS;
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
