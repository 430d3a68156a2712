/**
 * One packet to bytes and back: `encode(packet)` and `decodeFrame(frame)`, dispatching to
 * the original layouts (original.ts) or ours (ours.ts). Streams go through PacketDecoder
 * (framing.ts), which uses `checkFrameHead` to refuse a packet from its first three bytes.
 */
import { ErrorCode, ProtocolError } from './errors.js';
import { decodeOriginal, encodeDequeueReply, encodeOriginal } from './original.js';
import { decodeOurs, encodeOurs } from './ours.js';
import {
  HEADER_BYTES,
  isOurType,
  MAX_ERROR_PACKET,
  MAX_PACKET,
  type Packet,
  packetName,
  SENDER,
  type TypedPacketName,
} from './types.js';

/** Whose packets a decoder reads: a server reads 'client' packets, a client reads 'server' packets. */
export type PacketSource = 'client' | 'server' | 'any';

/** Encodes one packet. Throws ProtocolError (a field that cannot be sent, a packet over the limit). */
export function encode(packet: Packet): Buffer {
  if (packet.type === 'DEQUEUE_REPLY') return encodeDequeueReply(packet.target);
  if (isOurType(packet.type)) return encodeOurs(packet as Parameters<typeof encodeOurs>[0]);
  return encodeOriginal(packet as Parameters<typeof encodeOriginal>[0]);
}

/** Least and greatest length of each type that the type byte alone tells. */
function lengthBounds(name: TypedPacketName): [number, number] {
  switch (name) {
    case 'DEQUEUE':
    case 'SHOWDATA':
    case 'QUIT':
    case 'MODSTAT':
      return [3, 3];
    case 'ENQUEUE':
    case 'STOREURL':
    case 'MODINFO':
      return [11, MAX_PACKET];
    case 'LOGDATA':
    case 'READDATA':
    case 'NEWMOD':
      return [4, MAX_PACKET];
    case 'ERROR':
      return [HEADER_BYTES, MAX_ERROR_PACKET];
    default:
      return [HEADER_BYTES, MAX_PACKET];
  }
}

/**
 * Checks a typed packet from its length field and type byte, before a byte of its body is
 * buffered: the limit, the type, who may send it, and the lengths the type allows.
 */
export function checkFrameHead(length: number, code: number, from: PacketSource, maxPacket: number) {
  if (length < 3) {
    throw new ProtocolError(ErrorCode.BAD_LENGTH, `length ${length} is below 3 (length and type bytes)`);
  }
  if (length > maxPacket) {
    throw new ProtocolError(
      ErrorCode.TOO_LARGE,
      `length ${length} is over the ${maxPacket}-byte packet limit`,
    );
  }
  const name = packetName(code);
  if (name === undefined) throw new ProtocolError(ErrorCode.UNKNOWN_TYPE, `type ${code} names no packet`);
  if (from !== 'any' && SENDER[name] !== from) {
    throw new ProtocolError(
      ErrorCode.WRONG_DIRECTION,
      `${name} is sent by the ${SENDER[name]}, not by the ${from}`,
    );
  }
  const [least, most] = lengthBounds(name);
  if (length < least || length > most) {
    const allowed = least === most ? `exactly ${least}` : `from ${least} to ${most}`;
    throw new ProtocolError(ErrorCode.BAD_LENGTH, `${name} length must be ${allowed}, not ${length}`);
  }
  return name;
}

/**
 * Decodes one whole typed frame (length field included; its length field must equal its
 * size). Throws ProtocolError.
 */
export function decodeFrame(frame: Buffer, from: PacketSource = 'any', maxPacket = MAX_PACKET): Packet {
  if (frame.length < 3) {
    throw new ProtocolError(ErrorCode.BAD_LENGTH, `a packet is at least 3 bytes, not ${frame.length}`);
  }
  const length = frame.readUInt16BE(0);
  if (length !== frame.length) {
    throw new ProtocolError(
      ErrorCode.BAD_LENGTH,
      `length field ${length} does not match the ${frame.length} bytes given`,
    );
  }
  const name = checkFrameHead(length, frame[2] as number, from, maxPacket);
  return isOurType(name) ? decodeOurs(frame, name) : decodeOriginal(frame, name);
}
