import { describe, expect, it } from 'vitest';
import { exitedChildrenCpuSeconds, jsonLineReader, spawnNode, waitForExit } from '../../bench/child.js';

describe("the benchmark's count of its children's CPU", () => {
  it('adds what a child used, by its own count, once the child has exited', async () => {
    const before = exitedChildrenCpuSeconds();
    // A child that keeps a core busy for a while, then says how much CPU it used.
    const child = spawnNode(
      [
        '-e',
        `const end = Date.now() + 300; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1);
         const u = process.cpuUsage(); console.log(JSON.stringify({ seconds: (u.user + u.system) / 1e6, x }));`,
      ],
      process.cwd(),
    );
    child.stdin?.end();
    const own = (await jsonLineReader(child)(30_000)) as { seconds: number };
    const exit = await waitForExit(child, 30_000);
    expect(exit.code).toBe(0);
    const after = exitedChildrenCpuSeconds();
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    // The kernel counts in hundredths of a second, and the child's start and exit besides.
    expect((after as number) - (before as number)).toBeGreaterThanOrEqual(own.seconds - 0.02);
    expect(own.seconds).toBeGreaterThan(0);
  });
});
