import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** This machine's name, as crawler rows record it. */
export const MACHINE = hostname();

/**
 * Whether a process on this machine still runs. A zombie (killed, not yet reaped by
 * its parent, as in containers without an init) has stopped: it holds nothing.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "pid (comm) S ..."; the state letter follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(pid, 0) has answered
  }
}

/** What the store keeps of a crawler to judge whether it still runs. */
export interface CrawlerLife {
  machine: string;
  pid: number;
  lastSeen: number;
  leftAt: number | null;
}

/**
 * A crawler is gone when it left, when it ran on this machine and its process is dead,
 * or when it has not been heard from for a whole lease time (another machine's).
 */
export function crawlerGone(c: CrawlerLife, now: number, leaseMs: number): boolean {
  if (c.leftAt !== null) return true;
  if (c.machine === MACHINE) return !processAlive(c.pid);
  return now - c.lastSeen > leaseMs;
}
