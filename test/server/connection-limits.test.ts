import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bodies, encodeMessage, MAX_SPLIT_BYTES, readTextAnswer } from '../../src/protocol/index.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { rssOf } from '../helpers/process-memory.js';
import { RawClient } from '../helpers/raw-socket.js';

/**
 * The limits a `cobweb server` process puts on each connection: how long it may sit idle
 * or with half a packet (--idle-timeout), how many connections it takes
 * (--max-connections), and how many bytes of split messages one connection may have half
 * sent (one message of the most packets).
 */

const IDLE_MS = 2000;
let dir: string;
let server: CliProcess;
let port: number;

/** The ERROR code the server closed with (the reply is an ERROR packet and nothing else). */
async function closedWith(c: RawClient): Promise<number> {
  const answer = readTextAnswer(await c.readToClose(60_000));
  if (answer.kind !== 'error') throw new Error(`the server answered text: ${answer.text}`);
  return answer.code;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-limits-'));
  server = cobweb([
    'server',
    '--data',
    join(dir, 'server'),
    '--listen',
    '127.0.0.1:0',
    '--quiet',
    '--no-builtin-modules',
    '--max-connections',
    '3',
    '--idle-timeout',
    String(IDLE_MS),
  ]);
  port = Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]);
});

afterAll(async () => {
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await server.exit();
  rmSync(dir, { recursive: true, force: true });
});

describe('limits per connection', { timeout: 120_000 }, () => {
  it('--idle-timeout: a connection that sends nothing is closed with IDLE_TIMEOUT', async () => {
    const c = await RawClient.connect(port);
    expect(await closedWith(c)).toBe(301);
  });

  it('--idle-timeout: half a packet that never completes is closed with IDLE_TIMEOUT', async () => {
    const c = await RawClient.connect(port);
    c.send([0x00, 0x20, 0x10, 0x00]); // the head of a 32-byte AUTH, and no more
    expect(await closedWith(c)).toBe(301);
  });

  it('--max-connections: the connection past the limit gets TOO_MANY_CONNECTIONS; the others are answered', async () => {
    const open = await Promise.all([1, 2, 3].map(() => RawClient.connect(port)));
    const extra = await RawClient.connect(port);
    expect(await closedWith(extra)).toBe(300);
    const first = open[0] as RawClient;
    first.send([0x00, 0x03, 0x06]); // MODSTAT
    expect((await first.readToClose()).toString()).toBe('modules: 0\n');
    for (const c of open) c.close();
  });

  it('split messages half sent past the byte budget: BAD_FRAGMENTS and a close, and the memory stays bounded', async () => {
    const pid = server.child.pid as number;
    const before = rssOf(pid);
    // One COMPLETE of about 16 MB of outlinks, split into fewer packets than a message may
    // take: sent without its last packet, under one request id after another, it is never
    // whole. Four of them are 64 MB the server would hold for one connection.
    const outlinks = Array.from({ length: 60_000 }, (_, i) => ({
      url: `http://a.test/${'x'.repeat(220)}/${i}`,
      depth: 1,
      via: null,
    }));
    const body: Bodies['COMPLETE'] = {
      completions: [
        {
          lease: '1',
          outcome: { kind: 'done' },
          report: { fetchMs: 0 },
          page: null,
          outlinks,
          rejected: [],
          modules: [],
        },
      ],
    };
    const frames = encodeMessage({ type: 'COMPLETE', requestId: 1, more: false, body }).slice(0, -1);
    expect(frames.length).toBeLessThan(256);
    const halfMessage = frames.reduce((n, f) => n + f.length, 0);
    expect(halfMessage).toBeGreaterThan(MAX_SPLIT_BYTES * 0.9);

    const socket: Socket = connect({ host: '127.0.0.1', port });
    const replies: Buffer[] = [];
    let closed = false;
    socket.on('data', (d) => replies.push(d));
    socket.on('error', () => {});
    const gone = new Promise<void>((resolve) =>
      socket.on('close', () => {
        closed = true;
        resolve();
      }),
    );
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let sent = 0;
    let peak = before;
    for (let requestId = 1; requestId <= 4 && !closed; requestId++) {
      for (const frame of frames) {
        if (closed) break;
        const copy = Buffer.from(frame);
        copy.writeUInt32BE(requestId, 3); // the request id follows length and type
        sent += copy.length;
        if (!socket.write(copy)) {
          await new Promise<void>((resolve) => {
            socket.once('drain', () => resolve());
            socket.once('close', () => resolve());
          });
          peak = Math.max(peak, rssOf(pid));
        }
      }
    }
    await Promise.race([gone, new Promise((r) => setTimeout(r, 30_000))]);
    peak = Math.max(peak, rssOf(pid));
    expect(closed).toBe(true);
    const answer = readTextAnswer(Buffer.concat(replies));
    expect(answer).toMatchObject({ kind: 'error', code: 110 });
    // it was closed during the second half message, not after all four
    expect(sent).toBeLessThan(3 * halfMessage);
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
    // and the server still answers
    const c = await RawClient.connect(port);
    c.send([0x00, 0x03, 0x06]);
    expect((await c.readToClose()).toString()).toBe('modules: 0\n');
  });
});
