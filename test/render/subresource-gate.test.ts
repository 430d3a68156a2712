import { describe, expect, it, vi } from 'vitest';
import { Giveup, SubresourceGate } from '../../src/render/subresource-gate.js';

const GAP = 50;
const later = () => new Giveup(Date.now() + 10_000);

describe('SubresourceGate', () => {
  it('lets one request of a host through at a time, the next the gap after it ended', async () => {
    const gate = new SubresourceGate(() => GAP);
    const first = await gate.take('http://a.test/1', later());
    expect(first).not.toBeNull();
    let second: number | null | undefined;
    const waiting = gate.take('http://a.test/2', later()).then((at) => {
      second = at;
    });
    await new Promise((resolve) => setTimeout(resolve, 2 * GAP));
    // Still under way: the second waits however long the first takes.
    expect(second).toBeUndefined();
    const endedAt = Date.now();
    gate.done('http://a.test/1', first as number);
    await waiting;
    expect(second).toBeGreaterThanOrEqual(endedAt + GAP);
  });

  it('lets --per-host requests of a host through at once, and the next only when one is over', async () => {
    const gate = new SubresourceGate(() => 0, 2);
    const first = await gate.take('http://a.test/1', later());
    expect(await gate.take('http://a.test/2', later())).not.toBeNull();
    let third: number | null | undefined;
    const waiting = gate.take('http://a.test/3', later()).then((at) => {
      third = at;
    });
    await new Promise((resolve) => setTimeout(resolve, 2 * GAP));
    expect(third).toBeUndefined();
    gate.done('http://a.test/1', first as number);
    await waiting;
    expect(third).not.toBeNull();
  });

  it('keeps a host it forgets idle only: a request asleep for the gap holds the line, so the next still waits for it', async () => {
    // A busy machine runs the timers that fell due together before the code they wake:
    // the line's forget timer then fires while a request sleeps out the gap.
    vi.useFakeTimers();
    try {
      const gate = new SubresourceGate(() => GAP);
      const flush = async () => {
        for (let i = 0; i < 10; i++) await Promise.resolve();
      };
      const first = await gate.take('http://a.test/1', later());
      const second = gate.take('http://a.test/2', later());
      await flush();
      gate.done('http://a.test/1', first as number);
      await flush();
      vi.advanceTimersByTime(GAP + 5);
      expect(await second).not.toBeNull();
      let third: number | null | undefined;
      void gate.take('http://a.test/3', later()).then((at) => {
        third = at;
      });
      await flush();
      // The second is under way: the third waits for it, then the gap.
      expect(third).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps hosts apart: another host (or port) need not wait', async () => {
    const gate = new SubresourceGate(() => 60_000);
    expect(await gate.take('http://a.test/', later())).not.toBeNull();
    expect(await gate.take('http://b.test/', later())).not.toBeNull();
    expect(await gate.take('http://a.test:8080/', later())).not.toBeNull();
  });

  it("makes a page's requests wait for the crawl's own fetch of the host, then the gap", async () => {
    const gate = new SubresourceGate(() => GAP);
    const release = gate.hold('http://a.test/page');
    let at: number | null | undefined;
    const waiting = gate.take('http://a.test/app.js', later()).then((t) => {
      at = t;
    });
    await new Promise((resolve) => setTimeout(resolve, 2 * GAP));
    expect(at).toBeUndefined();
    const endedAt = Date.now();
    release();
    await waiting;
    expect(at).toBeGreaterThanOrEqual(endedAt + GAP);
  });

  it('gives nothing to a page that stopped waiting, and the host is not held by it', async () => {
    const gate = new SubresourceGate(() => 60_000);
    const first = await gate.take('http://a.test/1', later());
    const giveup = later();
    const waiting = gate.take('http://a.test/2', giveup);
    giveup.end();
    expect(await waiting).toBeNull();
    expect(await gate.take('http://a.test/3', new Giveup(Date.now()))).toBeNull();
    gate.done('http://a.test/1', first as number);
  });

  it('gives the gap the time the last request took (the delay factor), per host', async () => {
    const seen: number[] = [];
    const gate = new SubresourceGate((_url, lastMs) => {
      seen.push(lastMs);
      return 0;
    });
    const at = (await gate.take('http://a.test/1', later())) as number;
    await new Promise((resolve) => setTimeout(resolve, 30));
    gate.done('http://a.test/1', at);
    await gate.take('http://a.test/2', later());
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBeGreaterThanOrEqual(25);
  });
});
