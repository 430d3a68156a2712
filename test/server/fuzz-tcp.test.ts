import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { createPacketFuzzer, type PacketFuzzer } from '../helpers/packet-fuzz.js';
import { rssOf } from '../helpers/process-memory.js';
import { RawClient } from '../helpers/raw-socket.js';

/**
 * A real `cobweb server` process, fuzzed over TCP: random, valid and mutated packets on
 * many connections, cut into random chunks as a network delivers them. The server must
 * stay up, keep its memory bounded, and still answer a plain DEQUEUE afterwards.
 */

const SEED = 0xc0b_feed;
const PACKETS = 100_000;
const CLIENTS = 4;
/** A connection carries at most this many packets, so the test opens many of them. */
const PER_CONNECTION = 400;
/** What the server may grow by, whatever it was sent: its per-connection limits hold this. */
const RSS_GROWTH_LIMIT = 160 * 1024 * 1024;

let dir: string;
let server: CliProcess;
let port: number;

/** Sends packets on one connection until PER_CONNECTION are sent or the server closes it. */
async function oneConnection(fuzz: PacketFuzzer, budget: { left: number }): Promise<number> {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  let closed = false;
  socket.on('data', () => {}); // replies are read and dropped, so the server never waits on us
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
  });
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  let sent = 0;
  while (!closed && sent < PER_CONNECTION && budget.left > 0) {
    budget.left--; // taken before any wait, so the clients together send exactly PACKETS
    const roll = fuzz.random();
    const bytes = roll < 0.6 ? fuzz.mutated().bytes : roll < 0.9 ? fuzz.validPacket().bytes : fuzz.garbage();
    for (const chunk of fuzz.chunks(bytes)) {
      if (closed) break;
      if (!socket.write(chunk)) {
        await new Promise<void>((resolve) => {
          socket.once('drain', () => resolve());
          socket.once('close', () => resolve());
        });
      }
    }
    sent++;
    // Now and then let the server answer before more comes, as a slow client would.
    if (sent % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  socket.destroy();
  return sent;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-fuzz-'));
  server = cobweb([
    'server',
    'http://127.0.0.2/',
    '--data',
    join(dir, 'server'),
    '--listen',
    '127.0.0.1:0',
    '--delay',
    '0',
    '--quiet',
  ]);
  port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
});

afterAll(async () => {
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await server.exit();
  rmSync(dir, { recursive: true, force: true });
});

describe('the server under fuzzed packets over TCP', { timeout: 300_000 }, () => {
  it(`survives ${PACKETS.toLocaleString('en')} random and mutated packets on many connections`, async () => {
    const pid = server.child.pid as number;
    const before = rssOf(pid);
    const budget = { left: PACKETS };
    let connections = 0;
    let sent = 0;
    let peak = before;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const fuzz = createPacketFuzzer(SEED + i);
        while (budget.left > 0) {
          // (not `sent += await ...`: that reads `sent` before the wait and loses the others' counts)
          const n = await oneConnection(fuzz, budget);
          sent += n;
          connections++;
          if (connections % 20 === 0) peak = Math.max(peak, rssOf(pid));
        }
      }),
    );
    expect(sent).toBe(PACKETS);
    expect(connections).toBeGreaterThan(PACKETS / PER_CONNECTION - 1);
    expect(server.child.exitCode).toBeNull();
    peak = Math.max(peak, rssOf(pid));
    expect(peak - before).toBeLessThan(RSS_GROWTH_LIMIT);

    // A plain DEQUEUE still gets a well-formed original reply: a URL, or 00 00 for none.
    const c = await RawClient.connect(port);
    c.send([0x00, 0x03, 0x01]);
    const head = await c.read(2);
    const length = head.readUInt16BE(0);
    if (length !== 0) {
      const rest = await c.read(length - 2);
      const strings = rest.subarray(6).toString('latin1').split('\0');
      expect(strings).toHaveLength(3); // host NUL path NUL, then nothing
      expect(strings[1]?.startsWith('/')).toBe(true);
    }
    c.close();

    // And it still answers the control commands.
    const show = cobweb(['show', '--server', `127.0.0.1:${port}`, '--limit', '1']);
    expect(await show.exit()).toBe(0);
    expect(server.child.exitCode).toBeNull();
  });
});
