import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerConnection } from '../../src/frontier/remote/connection.js';
import { type Clock, Outage, RECONNECT } from '../../src/frontier/remote/reconnect.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * A bunny whose server went away waits for it until it is back, however long: attempts
 * spaced by a capped back-off, the user told now and then. Time is a test clock here, so
 * an outage of minutes takes a moment.
 */

/** A clock whose sleeps move it on at once (with a real moment, so sockets get their turn). */
function testClock(): Clock & { at: number } {
  const clock = {
    at: 1_000_000,
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.at += ms;
      await new Promise((r) => setTimeout(r, 2));
    },
  };
  return clock;
}

describe('Outage', () => {
  it('a server that welcomed us is waited for past any limit: waits double up to the cap, and are said at most every 30 s', () => {
    const clock = testClock();
    const outage = new Outage(RECONNECT, true, '127.0.0.1:7070', clock);
    const waits: number[] = [];
    const said: number[] = [];
    // 30 minutes without the server
    while (clock.at - 1_000_000 < 30 * 60_000) {
      const next = outage.failed('ECONNREFUSED');
      if (next.waitMs === null) throw new Error('gave up');
      if (next.say !== null) said.push(clock.at);
      waits.push(next.waitMs);
      clock.at += next.waitMs;
    }
    expect(waits.slice(0, 8)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    expect(Math.max(...waits)).toBe(5000);
    expect(said.length).toBeGreaterThan(1);
    for (let i = 1; i < said.length; i++) {
      expect((said[i] as number) - (said[i - 1] as number)).toBeGreaterThanOrEqual(30_000);
    }
    expect(said.length).toBeLessThanOrEqual(30 * 2 + 1);
    expect(outage.back()).toMatch(/is back, after \d+ attempts in 18\d\d s/);
  });

  it('a server never reached is given up on after firstConnectForMs, silently (the caller says why)', () => {
    const clock = testClock();
    const outage = new Outage(RECONNECT, false, '127.0.0.1:7070', clock);
    let next = outage.failed('ECONNREFUSED');
    while (next.waitMs !== null) {
      expect(next.say).toBeNull();
      clock.at += next.waitMs;
      next = outage.failed('ECONNREFUSED');
    }
    expect(clock.at - 1_000_000).toBeGreaterThanOrEqual(RECONNECT.firstConnectForMs);
    expect(clock.at - 1_000_000).toBeLessThan(RECONNECT.firstConnectForMs + RECONNECT.maxRetryMs);
  });
});

describe('ServerConnection across a server restart', () => {
  let dir: string;
  let server: InProcessServer | null = null;
  afterEach(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is still trying after 90 s (of its clock) without the server, and its request is answered once it is back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cobweb-reconnect-'));
    server = await startTestServer({ dir });
    const port = server.port;
    const clock = testClock();
    const said: string[] = [];
    const c = new ServerConnection({
      host: '127.0.0.1',
      port,
      token: 'test-token',
      name: 'bunny',
      clock,
      log: (line) => said.push(line),
    });
    await c.open();
    await server.dispose();
    server = null;
    // asked while the server is away: it waits for the server
    const stats = c.request('STATS', {});
    let settled = false;
    stats.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    const started = clock.at;
    // bounded: each attempt moves the clock on by its wait (5 s at most)
    for (let i = 0; i < 10_000 && clock.at - started < 90_000; i++)
      await new Promise((r) => setTimeout(r, 1));
    expect(clock.at - started).toBeGreaterThanOrEqual(90_000);
    expect(settled).toBe(false);
    server = await startTestServer({ dir, port });
    expect(await stats).toMatchObject({ queued: 0, bunnies: 1 });
    c.close();
    expect(said[0]).toMatch(/^lost the cobweb server at 127\.0\.0\.1:\d+ .*until it is back/);
    // told now and then, not at every attempt: about 90 s of it is two or three lines
    const still = said.filter((l) => l.startsWith('still no cobweb server'));
    expect(still.length).toBeGreaterThanOrEqual(2);
    expect(still.length).toBeLessThanOrEqual(3);
    expect(said.at(-1)).toMatch(/is back, after \d+ attempts/);
  });
});
