import { readdirSync, readFileSync } from 'node:fs';

/**
 * Samples, every intervalMs, the memory of a process and all its descendants (a browser's
 * process tree included), and keeps the highest sum seen. RSS counts a page shared by
 * several processes once in each (Chromium's processes share much); PSS divides it among
 * them, so the sum of PSS is what the tree really holds. Both are given; both contenders
 * are measured the same way.
 */
export function watchTreeMemory(rootPid: number, intervalMs = 100): { stop(): TreeMemory } {
  const peak: TreeMemory = { rssBytes: 0, pssBytes: 0, processes: 0 };
  const sample = (): void => {
    const pids = descendantsOf(rootPid);
    let rss = 0;
    let pss = 0;
    for (const pid of pids) {
      const m = memoryOf(pid);
      rss += m.rssBytes;
      pss += m.pssBytes;
    }
    peak.rssBytes = Math.max(peak.rssBytes, rss);
    peak.pssBytes = Math.max(peak.pssBytes, pss);
    peak.processes = Math.max(peak.processes, pids.length);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { ...peak };
    },
  };
}

export interface TreeMemory {
  rssBytes: number;
  pssBytes: number;
  /** The most processes the tree had at once. */
  processes: number;
}

function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid === undefined) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const all: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    all.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return all;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The field after the state, past the ")" that closes the command name.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone between the listing and the read
  }
}

function memoryOf(pid: number): { rssBytes: number; pssBytes: number } {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kib = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
    return { rssBytes: kib('Rss') * 1024, pssBytes: kib('Pss') * 1024 };
  } catch {
    return { rssBytes: 0, pssBytes: 0 };
  }
}
