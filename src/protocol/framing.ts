/**
 * Framing: cutting a byte stream into packets. Every packet starts with a 2-byte big-endian
 * length that counts the whole packet, then (except the DEQUEUE reply) a 1-byte type.
 *
 * PacketDecoder is incremental, in the manner of node-postgres's pg-protocol: feed it chunks
 * as they come off a socket, get whole packets back, and a partial packet waits for the rest.
 * It checks the length and type of a packet from its first bytes, before it buffers any of
 * its body, so it never holds more than one packet's limit. On a malformed packet it reports
 * one ProtocolError and stops: nothing after it on that stream is decoded, because nothing
 * after it can be trusted to start on a packet boundary.
 */
import { checkFrameHead, decodeFrame, type PacketSource } from './codec.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { decodeDequeueReplyFrame, MIN_DEQUEUE_REPLY } from './original.js';
import { MAX_PACKET, type Packet } from './types.js';

/**
 * awaiting-head: collecting a packet's first bytes (length and type; only the length for a
 * DEQUEUE reply). awaiting-body: the head passed its checks and the buffer for the rest is
 * filling. failed: a malformed packet was met; the stream is dead.
 */
export type DecoderState = 'awaiting-head' | 'awaiting-body' | 'failed';

export interface DecoderOptions {
  /** Who sends what this decoder reads; a packet only the other side sends is WRONG_DIRECTION. Default 'any'. */
  from?: PacketSource;
  /** Largest packet accepted, at most 65,535 (the default). */
  maxPacket?: number;
}

export interface DecodeResult {
  /** Whole packets, in stream order. */
  packets: Packet[];
  /** The length of each packet on the wire, by its index in `packets`. */
  sizes: number[];
  /** Set when the stream turned out malformed; no packet after it is returned, now or later. */
  error: ProtocolError | null;
}

export class PacketDecoder {
  private readonly from: PacketSource;
  private readonly maxPacket: number;
  private phase: DecoderState = 'awaiting-head';
  /** The head of the packet being read: up to 3 bytes. */
  private readonly head = Buffer.alloc(3);
  private headFilled = 0;
  /** The packet being read, allocated at its exact length once its head passed. */
  private frame: Buffer | null = null;
  private frameFilled = 0;
  /** Typeless DEQUEUE replies still due; the next frames are read as those. */
  private dequeueReplies = 0;
  private failure: ProtocolError | null = null;
  private peak = 0;

  constructor(options: DecoderOptions = {}) {
    this.from = options.from ?? 'any';
    this.maxPacket = options.maxPacket ?? MAX_PACKET;
    if (!Number.isInteger(this.maxPacket) || this.maxPacket < 3 || this.maxPacket > MAX_PACKET) {
      throw new RangeError(`maxPacket must be an integer from 3 to ${MAX_PACKET}, not ${this.maxPacket}`);
    }
  }

  get state(): DecoderState {
    return this.phase;
  }

  get error(): ProtocolError | null {
    return this.failure;
  }

  /** Bytes held for a packet not yet whole. */
  get held(): number {
    return this.frame === null ? this.headFilled : this.frame.length;
  }

  /** Bytes of the packet not yet whole that have come so far. */
  get partialBytes(): number {
    return this.frame === null ? this.headFilled : this.frameFilled;
  }

  /** The most bytes ever held at once: never more than maxPacket. */
  get peakHeld(): number {
    return this.peak;
  }

  /**
   * The client sent DEQUEUE: its reply, which has no type byte, is the next frame on the
   * stream (after any already expected). The protocol lets a client send DEQUEUE only when
   * no other reply can come first (docs/protocol.md, "DEQUEUE").
   */
  expectDequeueReply(): void {
    this.dequeueReplies++;
  }

  push(chunk: Uint8Array): DecodeResult {
    const packets: Packet[] = [];
    const sizes: number[] = [];
    if (this.failure !== null) return { packets, sizes, error: this.failure };
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    try {
      this.consume(bytes, packets, sizes);
    } catch (e) {
      // Only the codec's own errors are expected here. Anything else is a bug in the codec; it
      // is still reported as a coded error (INTERNAL), so one bad packet cannot take a server down.
      this.failure =
        e instanceof ProtocolError
          ? e
          : new ProtocolError(ErrorCode.INTERNAL, `the codec failed on this packet: ${String(e)}`);
      this.phase = 'failed';
      this.frame = null;
      this.headFilled = 0;
    }
    return { packets, sizes, error: this.failure };
  }

  /** The stream ended. TRUNCATED if it ended inside a packet. */
  end(): ProtocolError | null {
    if (this.failure === null && (this.headFilled > 0 || this.frame !== null)) {
      this.failure = new ProtocolError(
        ErrorCode.TRUNCATED,
        `the stream ended inside a packet (${this.partialBytes} bytes of it came)`,
      );
      this.phase = 'failed';
      this.frame = null;
      this.headFilled = 0;
    }
    return this.failure;
  }

  private consume(chunk: Buffer, out: Packet[], sizes: number[]): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.frame === null) {
        const dequeue = this.dequeueReplies > 0;
        // Fast path: a whole packet inside the chunk is decoded in place, nothing copied.
        if (this.headFilled === 0 && chunk.length - at >= 2) {
          const length = chunk.readUInt16BE(at);
          this.checkLength(length, dequeue);
          if (dequeue && length === 0) {
            this.emptyDequeueReply(out);
            sizes.push(2);
            at += 2;
            continue;
          }
          if (chunk.length - at >= length) {
            // length >= 3 here (checkLength), so the type byte is in the chunk as well
            if (!dequeue) checkFrameHead(length, chunk[at + 2] as number, this.from, this.maxPacket);
            out.push(this.decode(chunk.subarray(at, at + length), dequeue));
            sizes.push(length);
            at += length;
            continue;
          }
        }
        // Slow path: the head arrives in pieces; each part is checked as soon as it is here.
        const need = dequeue ? 2 : 3;
        while (this.headFilled < need && at < chunk.length) {
          this.head[this.headFilled++] = chunk[at++] as number;
          if (this.headFilled === 2) this.checkLength(this.head.readUInt16BE(0), dequeue);
        }
        this.notePeak(this.headFilled);
        if (this.headFilled < need) return;
        const length = this.head.readUInt16BE(0);
        if (dequeue && length === 0) {
          this.headFilled = 0;
          this.emptyDequeueReply(out);
          sizes.push(2);
          continue;
        }
        if (!dequeue) checkFrameHead(length, this.head[2] as number, this.from, this.maxPacket);
        // The head passed every check: only now is the packet's buffer allocated.
        this.frame = Buffer.allocUnsafe(length);
        this.head.copy(this.frame, 0, 0, need);
        this.frameFilled = need;
        this.headFilled = 0;
        this.phase = 'awaiting-body';
        this.notePeak(length);
      }
      const frame: Buffer = this.frame;
      const n = Math.min(frame.length - this.frameFilled, chunk.length - at);
      chunk.copy(frame, this.frameFilled, at, at + n);
      this.frameFilled += n;
      at += n;
      if (this.frameFilled === frame.length) {
        this.frame = null;
        this.phase = 'awaiting-head';
        out.push(this.decode(frame, this.dequeueReplies > 0));
        sizes.push(frame.length);
      }
    }
  }

  private emptyDequeueReply(out: Packet[]): void {
    this.dequeueReplies--;
    out.push({ type: 'DEQUEUE_REPLY', target: null });
  }

  private decode(frame: Buffer, dequeue: boolean): Packet {
    if (!dequeue) return decodeFrame(frame, this.from, this.maxPacket);
    const reply = decodeDequeueReplyFrame(frame);
    this.dequeueReplies--;
    return reply;
  }

  /** The length field alone: below the least a packet can be, or over the limit. */
  private checkLength(length: number, dequeue: boolean): void {
    if (dequeue ? length !== 0 && length < MIN_DEQUEUE_REPLY : length < 3) {
      throw new ProtocolError(
        ErrorCode.BAD_LENGTH,
        dequeue
          ? `a DEQUEUE reply is 00 00 or at least ${MIN_DEQUEUE_REPLY} bytes, not ${length}`
          : `length ${length} is below 3 (length and type bytes)`,
      );
    }
    if (length > this.maxPacket) {
      throw new ProtocolError(
        ErrorCode.TOO_LARGE,
        `length ${length} is over the ${this.maxPacket}-byte packet limit`,
      );
    }
  }

  private notePeak(bytes: number): void {
    if (bytes > this.peak) this.peak = bytes;
  }
}

/**
 * Decodes the whole packets at the start of `buffer` in one go. `rest` is the unread tail (a
 * partial packet, to be put before the next bytes); empty after an error.
 */
export function decode(
  buffer: Buffer,
  options: DecoderOptions = {},
): { packets: Packet[]; rest: Buffer; error: ProtocolError | null } {
  const decoder = new PacketDecoder(options);
  const { packets, error } = decoder.push(buffer);
  if (error !== null) return { packets, rest: Buffer.alloc(0), error };
  return { packets, rest: buffer.subarray(buffer.length - decoder.partialBytes), error: null };
}

/**
 * Decodes a DEQUEUE reply at the start of `buffer` (the two bytes 00 00, or a whole reply).
 * null reply when the buffer does not hold all of it yet.
 */
export function decodeDequeueReply(buffer: Buffer) {
  if (buffer.length < 2) return { reply: null, rest: buffer, error: null };
  const length = buffer.readUInt16BE(0);
  const size = length === 0 ? 2 : length;
  if (length !== 0 && length < MIN_DEQUEUE_REPLY) {
    return {
      reply: null,
      rest: Buffer.alloc(0),
      error: new ProtocolError(
        ErrorCode.BAD_LENGTH,
        `a DEQUEUE reply is 00 00 or at least ${MIN_DEQUEUE_REPLY} bytes, not ${length}`,
      ),
    };
  }
  if (buffer.length < size) return { reply: null, rest: buffer, error: null };
  try {
    return {
      reply: decodeDequeueReplyFrame(buffer.subarray(0, size)),
      rest: buffer.subarray(size),
      error: null,
    };
  } catch (e) {
    return { reply: null, rest: Buffer.alloc(0), error: e as ProtocolError };
  }
}
