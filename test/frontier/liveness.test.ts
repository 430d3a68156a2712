import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlerGone, MACHINE, processAlive } from '../../src/frontier/liveness.js';

/** Whether a crawler still runs, judged from what a store keeps of it, on real processes. */

const killers: (() => void)[] = [];
afterEach(() => {
  for (const kill of killers.splice(0)) kill();
});

/** A process of ours: `sleep`, until killed. */
async function sleeper(): Promise<number> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  killers.push(() => child.kill('SIGKILL'));
  await once(child, 'spawn');
  return child.pid as number;
}

/** A child of `sleep` that was killed: sleep never reaps it, so it stays a zombie. */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  killers.push(() => parent.kill('SIGKILL'));
  const [pidText] = (await once(parent.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const pid = Number(String(pidText).trim());
  // kill it only once sh has become sleep: sh itself would reap a child that dies before
  const parentIs = (name: string) => {
    try {
      return readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 500 && !parentIs('sleep'); i++) await new Promise((r) => setTimeout(r, 10));
  expect(parentIs('sleep')).toBe(true);
  process.kill(pid, 'SIGKILL');
  let state = '';
  for (let i = 0; i < 500 && state !== 'Z'; i++) {
    state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
    if (state !== 'Z') await new Promise((r) => setTimeout(r, 10));
  }
  expect(state).toBe('Z');
  return pid;
}

describe('liveness', () => {
  it('tells a running process from a dead one and from a zombie', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const running = await sleeper();
    expect(processAlive(running)).toBe(true);
    process.kill(running, 'SIGKILL');
    // node reaps its own children: once reaped, the pid is gone
    for (let i = 0; i < 500 && processAlive(running); i++) await new Promise((r) => setTimeout(r, 10));
    expect(processAlive(running)).toBe(false);
    expect(processAlive(await zombie())).toBe(false);
  });

  it('a crawler is gone when it left, when its process here is dead, or when another machine went silent', async () => {
    const leaseMs = 60_000;
    const now = 1_000_000;
    const here = { machine: MACHINE, pid: process.pid, lastSeen: 0, leftAt: null };
    // on this machine its process decides, however long it was silent
    expect(crawlerGone(here, now, leaseMs)).toBe(false);
    expect(crawlerGone({ ...here, leftAt: now - 1 }, now, leaseMs)).toBe(true);
    expect(crawlerGone({ ...here, pid: await zombie() }, now, leaseMs)).toBe(true);
    // on another machine only silence for a whole lease time tells
    const there = {
      machine: `${MACHINE}-elsewhere`,
      pid: process.pid,
      lastSeen: now - leaseMs,
      leftAt: null,
    };
    expect(crawlerGone(there, now, leaseMs)).toBe(false);
    expect(crawlerGone({ ...there, lastSeen: now - leaseMs - 1 }, now, leaseMs)).toBe(true);
    expect(crawlerGone({ ...there, leftAt: now }, now, leaseMs)).toBe(true);
  });
});
