import { readFileSync } from 'node:fs';

/** The resident memory of a process, in bytes, as Linux counts it (VmRSS). */
export function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (kb === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb[1]) * 1024;
}
