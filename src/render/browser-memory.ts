import { readdirSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/**
 * The process id of a launched Chromium, asked of the browser itself (the DevTools
 * Protocol's SystemInfo.getProcessInfo): playwright-core's Browser does not say it.
 * Null when the browser will not say (a remote browser, an old Chromium): no memory cap then.
 */
export async function browserPid(browser: Browser): Promise<number | null> {
  try {
    const session = await browser.newBrowserCDPSession();
    try {
      const info = (await session.send('SystemInfo.getProcessInfo')) as {
        processInfo: { type: string; id: number }[];
      };
      return info.processInfo.find((p) => p.type === 'browser')?.id ?? null;
    } finally {
      await session.detach().catch(() => {});
    }
  } catch {
    return null;
  }
}

/**
 * The memory of a process and all its descendants (Chromium's renderers, GPU and utility
 * processes), in bytes, read from /proc: the sum of each one's PSS (proportional set size,
 * /proc/PID/smaps_rollup), so pages shared by the processes (the browser's own code, a few
 * hundred MB) count once in all, not once per process as a sum of RSS would. A process
 * whose smaps_rollup cannot be read counts its RSS. 0 where there is no /proc.
 */
export function processTreeBytes(root: number): number {
  const tree = descendantsOf(root);
  let bytes = 0;
  for (const pid of tree) bytes += pssOf(pid) ?? rssOf(pid) ?? 0;
  return bytes;
}

/** `root` and every process under it, from each process's parent in /proc/PID/stat. */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(name);
    if (parent === null) continue;
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [Number(name)]);
    else list.push(Number(name));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

function parentOf(pid: string): number | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // The command name (in parentheses) may hold spaces; the fields after it are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const parent = Number(fields[1]);
  return Number.isInteger(parent) ? parent : null;
}

function pssOf(pid: number): number | null {
  const kb = /^Pss:\s+(\d+) kB/m.exec(readOrNull(`/proc/${pid}/smaps_rollup`) ?? '');
  return kb === null ? null : Number(kb[1]) * 1024;
}

function rssOf(pid: number): number | null {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readOrNull(`/proc/${pid}/status`) ?? '');
  return kb === null ? null : Number(kb[1]) * 1024;
}

/** A process may end between listing /proc and reading it. */
function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
