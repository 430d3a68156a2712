/**
 * Servers that misbehave on purpose, for test/bunny/hostile.test.ts: raw TCP servers that
 * write HTTP by hand (to break the protocol), bounded body pumps and drips, a gzip bomb,
 * and a memory watch. Every loop here stops by itself: at a byte cap, a drip count, or
 * when the peer goes away.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { listenOnLoopback } from './http.js';

export interface RawServer {
  /** http://127.0.0.x:port */
  origin: string;
  address: string;
  port: number;
  /** Request targets in arrival order, '/robots.txt' included. */
  log: string[];
  close(): Promise<void>;
}

/** Answers one request on `socket`; `path` is the request target. */
export type RawResponder = (socket: Socket, path: string) => void;

const HEAD_LIMIT = 64 * 1024;

/** The 404 a raw server gives for /robots.txt: no robots.txt, everything allowed. */
export const NO_ROBOTS = 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

/**
 * A TCP server on a loopback address that reads one HTTP request head per connection
 * and hands the socket to `respond`, which writes whatever bytes it likes. /robots.txt
 * gets a plain 404 unless `robots` is given. close() destroys every socket still open.
 */
export async function serveRaw(
  address: string,
  respond: RawResponder,
  robots: RawResponder = (socket) => socket.end(NO_ROBOTS),
): Promise<RawServer> {
  const log: string[] = [];
  const server: Server = createServer((socket) => {
    // A peer that resets while we write is part of the game, not a test failure.
    socket.on('error', () => {});
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > HEAD_LIMIT) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const path = head.slice(0, head.indexOf('\r\n')).split(' ')[1] ?? '/';
      log.push(path);
      if (path === '/robots.txt') robots(socket, path);
      else respond(socket, path);
    };
    socket.on('data', onData);
  });
  return { ...(await listenOnLoopback(server, address)), log };
}

/**
 * Writes `chunk` again and again, waiting for 'drain' whenever the peer is behind, until
 * `maxBytes` are out or the stream is gone; at the cap the stream is destroyed, so the
 * response never completes. Returns a function telling how many bytes were handed over.
 */
export function pump(out: Writable, chunk: Buffer, maxBytes: number): () => number {
  let sent = 0;
  const step = () => {
    while (!out.destroyed && sent < maxBytes) {
      sent += chunk.length;
      if (!out.write(chunk)) {
        out.once('drain', step);
        return;
      }
    }
    if (!out.destroyed) out.destroy();
  };
  step();
  return () => sent;
}

/**
 * Writes one byte every `everyMs`, at most `maxDrips` times, then destroys the stream;
 * stops early when the stream closes.
 */
export function drip(out: Writable, everyMs: number, maxDrips: number): void {
  let drips = 0;
  const timer = setInterval(() => {
    if (out.destroyed || drips >= maxDrips) {
      clearInterval(timer);
      out.destroy();
      return;
    }
    drips++;
    out.write('x');
  }, everyMs);
  out.on('close', () => clearInterval(timer));
}

/** A gzip member that inflates to `decodedBytes` zero bytes (about 1,000 to 1), built without holding them. */
export async function gzipBomb(decodedBytes: number): Promise<Buffer> {
  const zeros = Buffer.alloc(1024 * 1024);
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = once(gzip, 'end');
  for (let written = 0; written < decodedBytes; written += zeros.length) {
    if (!gzip.write(zeros)) await once(gzip, 'drain');
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

/** `n` bytes from a fixed-seed xorshift generator: "random" garbage, the same every run. */
export function garbageBytes(n: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export interface MemoryWatch {
  /** Stops sampling; the most the resident set grew above where it stood at the start, in bytes. */
  stop(): number;
}

/**
 * Samples the resident set size every few ms from now on. Growth is the larger of the
 * sampled peak above the starting RSS and the rise of the process's high-water mark
 * (getrusage maxRSS, which also sees peaks between samples); neither overstates growth.
 */
export function watchMemory(everyMs = 5): MemoryWatch {
  const baseline = process.memoryUsage.rss();
  const maxBefore = Math.max(process.resourceUsage().maxRSS * 1024, baseline);
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      const maxAfter = process.resourceUsage().maxRSS * 1024;
      return Math.max(peak - baseline, maxAfter - maxBefore);
    },
  };
}
