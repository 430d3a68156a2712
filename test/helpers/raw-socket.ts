import { connect, type Socket } from 'node:net';
import { decodeDequeueReply, encode, type OriginalTarget } from '../../src/protocol/index.js';
import { bytes } from './bytes.js';

/** A raw TCP client for byte-for-byte protocol tests: send bytes, read bytes. */
export class RawClient {
  private buffered = Buffer.alloc(0);
  private closedFlag = false;
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (c) => {
      this.buffered = Buffer.concat([this.buffered, c]);
      this.wake();
    });
    socket.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  send(...parts: (Buffer | readonly number[] | string)[]): void {
    this.socket.write(bytes(...parts));
  }

  /** Exactly n bytes, waiting at most `ms`. */
  async read(n: number, ms = 10_000): Promise<Buffer> {
    const deadline = Date.now() + ms;
    while (this.buffered.length < n) {
      if (this.closedFlag || Date.now() > deadline) {
        throw new Error(
          `wanted ${n} bytes, got ${this.buffered.length}${this.closedFlag ? ' before the close' : ''}`,
        );
      }
      await this.waitForNews(deadline - Date.now());
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** Sends DEQUEUE and reads its reply: the URL handed out, or null for `00 00`. */
  async dequeue(): Promise<OriginalTarget | null> {
    this.send(encode({ type: 'DEQUEUE' }));
    const head = await this.read(2);
    const length = head.readUInt16BE(0);
    const whole = length === 0 ? head : Buffer.concat([head, await this.read(length - 2)]);
    const { reply, error } = decodeDequeueReply(whole);
    if (error !== null || reply === null) throw new Error(`not a DEQUEUE reply: ${whole.toString('hex')}`);
    return reply.target;
  }

  /** Everything until the server closes the connection (at most `ms`). */
  async readToClose(ms = 10_000): Promise<Buffer> {
    const deadline = Date.now() + ms;
    while (!this.closedFlag) {
      if (Date.now() > deadline) throw new Error('the server did not close the connection');
      await this.waitForNews(deadline - Date.now());
    }
    const out = this.buffered;
    this.buffered = Buffer.alloc(0);
    return out;
  }

  /** Whatever has come so far. */
  pending(): Buffer {
    return this.buffered;
  }

  close(): void {
    this.socket.destroy();
  }

  private waitForNews(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
