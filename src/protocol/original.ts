/**
 * The original packets (type codes 1-10), byte for byte as the table has them, and
 * the typeless reply to DEQUEUE. Layouts (docs/protocol.md, "The original packets"):
 *
 *   DEQUEUE, SHOWDATA, QUIT, MODSTAT   len=3: len(2) type(1)
 *   ENQUEUE, STOREURL                  len=11+h+p: len type addr(4) port(2) host NUL path NUL
 *   LOGDATA, READDATA, NEWMOD          len=4+f: len type text NUL
 *   MODINFO                            len=11+m+i: len type addr(4) port(2) module NUL info NUL
 *   DEQUEUE reply (no type byte)       len=10+h+p: len addr(4) port(2) host NUL path NUL
 *                                      or the two bytes 00 00 when nothing is queued
 */
import { checkPort, cStringBytes, readCString, readIPv4, writeIPv4 } from './bytes.js';
import { ErrorCode, ProtocolError } from './errors.js';
import {
  type DequeueReply,
  MAX_PACKET,
  type OriginalPacket,
  type OriginalTarget,
  PacketCode,
  type TypedPacketName,
} from './types.js';

/** The smallest DEQUEUE reply that is not empty: len, addr, port and two empty strings. */
export const MIN_DEQUEUE_REPLY = 10;

function frameOf(length: number, what: string): Buffer {
  if (length > MAX_PACKET) {
    throw new ProtocolError(
      ErrorCode.ITEM_TOO_LARGE,
      `${what} would be ${length} bytes, over the ${MAX_PACKET}-byte packet limit; shorten its strings`,
    );
  }
  const frame = Buffer.allocUnsafe(length);
  frame.writeUInt16BE(length, 0);
  return frame;
}

/** addr(4) port(2) then two NUL-terminated strings, written at `at`. */
function writeAddressed(frame: Buffer, at: number, addr: string, port: number, a: Buffer, b: Buffer): void {
  writeIPv4(addr, frame, at);
  checkPort(port);
  frame.writeUInt16BE(port, at + 4);
  let p = at + 6;
  p += a.copy(frame, p);
  frame[p++] = 0;
  p += b.copy(frame, p);
  frame[p] = 0;
}

export function encodeOriginal(packet: OriginalPacket): Buffer {
  const code = PacketCode[packet.type];
  switch (packet.type) {
    case 'DEQUEUE':
    case 'SHOWDATA':
    case 'QUIT':
    case 'MODSTAT': {
      const frame = frameOf(3, packet.type);
      frame[2] = code;
      return frame;
    }
    case 'ENQUEUE':
    case 'STOREURL': {
      const { addr, port, host, path } = packet.target;
      const h = cStringBytes(host, 'host');
      const p = cStringBytes(path, 'path');
      const frame = frameOf(11 + h.length + p.length, packet.type);
      frame[2] = code;
      writeAddressed(frame, 3, addr, port, h, p);
      return frame;
    }
    case 'LOGDATA':
    case 'READDATA':
    case 'NEWMOD': {
      const text = cStringBytes(packet.type === 'NEWMOD' ? packet.name : packet.file, 'name');
      const frame = frameOf(4 + text.length, packet.type);
      frame[2] = code;
      text.copy(frame, 3);
      frame[frame.length - 1] = 0;
      return frame;
    }
    case 'MODINFO': {
      const m = cStringBytes(packet.module, 'module');
      const i = cStringBytes(packet.info, 'info');
      const frame = frameOf(11 + m.length + i.length, packet.type);
      frame[2] = code;
      writeAddressed(frame, 3, packet.addr, packet.port, m, i);
      return frame;
    }
  }
}

function needExactly(frame: Buffer, length: number, name: string): void {
  if (frame.length !== length) {
    throw new ProtocolError(
      ErrorCode.BAD_LENGTH,
      `${name} must be ${length} bytes long, not ${frame.length}`,
    );
  }
}

function needAtLeast(frame: Buffer, length: number, name: string): void {
  if (frame.length < length) {
    throw new ProtocolError(
      ErrorCode.BAD_LENGTH,
      `${name} must be at least ${length} bytes long, not ${frame.length}`,
    );
  }
}

function needEnd(frame: Buffer, at: number, name: string): void {
  if (at !== frame.length) {
    throw new ProtocolError(
      ErrorCode.TRAILING_BYTES,
      `${name} has ${frame.length - at} bytes after its last NUL-terminated string`,
    );
  }
}

/** addr, port, two strings from `at` to the end of the frame. */
function readAddressed(frame: Buffer, at: number, names: [string, string], packet: string) {
  const addr = readIPv4(frame, at);
  const port = frame.readUInt16BE(at + 4);
  const a = readCString(frame, at + 6, `${packet} ${names[0]}`);
  const b = readCString(frame, a.next, `${packet} ${names[1]}`);
  needEnd(frame, b.next, packet);
  return { addr, port, a: a.text, b: b.text };
}

/** Decodes a whole frame (length field included) of an original packet. Throws ProtocolError. */
export function decodeOriginal(frame: Buffer, name: TypedPacketName): OriginalPacket {
  switch (name) {
    case 'DEQUEUE':
    case 'SHOWDATA':
    case 'QUIT':
    case 'MODSTAT':
      needExactly(frame, 3, name);
      return { type: name };
    case 'ENQUEUE':
    case 'STOREURL': {
      needAtLeast(frame, 11, name);
      const r = readAddressed(frame, 3, ['host', 'path'], name);
      return { type: name, target: { addr: r.addr, port: r.port, host: r.a, path: r.b } };
    }
    case 'LOGDATA':
    case 'READDATA':
    case 'NEWMOD': {
      needAtLeast(frame, 4, name);
      const s = readCString(frame, 3, `${name} ${name === 'NEWMOD' ? 'name' : 'file'}`);
      needEnd(frame, s.next, name);
      return name === 'NEWMOD' ? { type: name, name: s.text } : { type: name, file: s.text };
    }
    case 'MODINFO': {
      needAtLeast(frame, 11, name);
      const r = readAddressed(frame, 3, ['module', 'info'], name);
      return { type: name, addr: r.addr, port: r.port, module: r.a, info: r.b };
    }
    default:
      throw new ProtocolError(ErrorCode.UNKNOWN_TYPE, `${name} is not an original packet`);
  }
}

/** The reply to DEQUEUE: no type byte; null is the empty reply, the two bytes 00 00. */
export function encodeDequeueReply(target: OriginalTarget | null): Buffer {
  if (target === null) return Buffer.from([0, 0]);
  const h = cStringBytes(target.host, 'host');
  const p = cStringBytes(target.path, 'path');
  const frame = frameOf(10 + h.length + p.length, 'DEQUEUE reply');
  writeAddressed(frame, 2, target.addr, target.port, h, p);
  return frame;
}

/**
 * Decodes one whole DEQUEUE reply frame: the two bytes 00 00, or a frame whose first two
 * bytes are its length. Throws ProtocolError.
 */
export function decodeDequeueReplyFrame(frame: Buffer): DequeueReply {
  if (frame.length === 2 && frame[0] === 0 && frame[1] === 0) return { type: 'DEQUEUE_REPLY', target: null };
  needAtLeast(frame, MIN_DEQUEUE_REPLY, 'a DEQUEUE reply');
  const r = readAddressed(frame, 2, ['host', 'path'], 'DEQUEUE reply');
  return { type: 'DEQUEUE_REPLY', target: { addr: r.addr, port: r.port, host: r.a, path: r.b } };
}
