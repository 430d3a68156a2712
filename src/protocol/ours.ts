/**
 * Our packets (type codes 16 and up): an 8-byte header and a UTF-8 JSON body.
 *
 *   offset 0  length      u16 big-endian, the whole packet
 *          2  type        u8
 *          3  request id  u32 big-endian
 *          7  flags       u8: bit 0 MORE, bits 1-7 reserved (0)
 *          8  body        UTF-8 JSON text of one object, to the end of the packet
 */

import { isUtf8 } from 'node:buffer';
import { checkBody } from './bodies.js';
import { duplicateKey } from './duplicate-keys.js';
import { ErrorCode, ProtocolError } from './errors.js';
import {
  type Bodies,
  FLAG_MORE,
  HEADER_BYTES,
  MAX_ERROR_PACKET,
  MAX_PACKET,
  type OurPacket,
  type OurPacketName,
  type OurPacketOf,
  PacketCode,
  REQUEST_ID_RULE,
  SPLITTABLE,
} from './types.js';

/** Checks the header fields a packet object carries; the same rules the decoder applies. */
function checkHeader(type: OurPacketName, requestId: number, more: boolean): void {
  if (!Number.isInteger(requestId) || requestId < 0 || requestId > 0xffffffff) {
    throw new ProtocolError(
      ErrorCode.BAD_REQUEST_ID,
      `${type} request id ${requestId} is not an integer from 0 to 4294967295`,
    );
  }
  const rule = REQUEST_ID_RULE[type];
  if (rule === 'required' && requestId === 0) {
    throw new ProtocolError(ErrorCode.BAD_REQUEST_ID, `${type} needs a nonzero request id`);
  }
  if (rule === 'zero' && requestId !== 0) {
    throw new ProtocolError(ErrorCode.BAD_REQUEST_ID, `${type} is a push and must carry request id 0`);
  }
  if (more && !SPLITTABLE.has(type)) {
    throw new ProtocolError(ErrorCode.BAD_FLAGS, `${type} cannot be split, so its MORE flag must be clear`);
  }
}

function header(type: OurPacketName, requestId: number, more: boolean, bodyBytes: number): Buffer {
  const length = HEADER_BYTES + bodyBytes;
  const frame = Buffer.allocUnsafe(length);
  frame.writeUInt16BE(length, 0);
  frame[2] = PacketCode[type];
  frame.writeUInt32BE(requestId, 3);
  frame[7] = more ? FLAG_MORE : 0;
  return frame;
}

/** Bytes of a packet whose body text is already made; refuses it if it is over the limit. */
export function frameJson(type: OurPacketName, requestId: number, more: boolean, json: string): Buffer {
  checkHeader(type, requestId, more);
  const bytes = Buffer.byteLength(json);
  if (HEADER_BYTES + bytes > MAX_PACKET) {
    throw new ProtocolError(
      ErrorCode.ITEM_TOO_LARGE,
      `${type} would be ${HEADER_BYTES + bytes} bytes, over the ${MAX_PACKET}-byte packet limit; split it with encodeMessage()`,
    );
  }
  const frame = header(type, requestId, more, bytes);
  frame.write(json, HEADER_BYTES, 'utf8');
  return frame;
}

function stringify(type: OurPacketName, body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (e) {
    throw new ProtocolError(
      ErrorCode.BAD_FIELD,
      `${type} body cannot be written as JSON: ${(e as Error).message}`,
    );
  }
}

/**
 * The ERROR message cut so the packet stays within MAX_ERROR_PACKET bytes (then its first
 * byte is below 0x09, which is how a text answer's reader tells it from text).
 */
function errorJson(body: Bodies['ERROR']): string {
  let json = JSON.stringify({ code: body.code, message: body.message });
  const chars = [...body.message];
  let keep = chars.length;
  // Every character is at least one byte of JSON, so dropping `over` of them (and adding the
  // 3-byte marker) converges in a pass or two.
  for (let over = HEADER_BYTES + Buffer.byteLength(json) - MAX_ERROR_PACKET; over > 0; ) {
    keep = Math.max(0, keep - over - 3);
    json = JSON.stringify({ code: body.code, message: `${chars.slice(0, keep).join('')}…` });
    over = HEADER_BYTES + Buffer.byteLength(json) - MAX_ERROR_PACKET;
  }
  return json;
}

/** Encodes one of our packets, checking its body first. Throws ProtocolError. */
export function encodeOurs(packet: OurPacket): Buffer {
  const body = checkBody(packet.type, packet.body);
  const json = packet.type === 'ERROR' ? errorJson(body as Bodies['ERROR']) : stringify(packet.type, body);
  return frameJson(packet.type, packet.requestId, packet.more, json);
}

/** Decodes the whole frame of one of our packets (length field included). Throws ProtocolError. */
export function decodeOurs(frame: Buffer, type: OurPacketName): OurPacket {
  if (frame.length < HEADER_BYTES) {
    throw new ProtocolError(
      ErrorCode.BAD_LENGTH,
      `${type} must be at least ${HEADER_BYTES} bytes long (its header), not ${frame.length}`,
    );
  }
  if (type === 'ERROR' && frame.length > MAX_ERROR_PACKET) {
    throw new ProtocolError(
      ErrorCode.BAD_LENGTH,
      `ERROR must be at most ${MAX_ERROR_PACKET} bytes long, not ${frame.length}`,
    );
  }
  const requestId = frame.readUInt32BE(3);
  const flags = frame[7] as number;
  if ((flags & ~FLAG_MORE) !== 0) {
    throw new ProtocolError(
      ErrorCode.BAD_FLAGS,
      `${type} has reserved flag bits set (flags 0x${flags.toString(16)})`,
    );
  }
  const more = (flags & FLAG_MORE) !== 0;
  checkHeader(type, requestId, more);
  const bytes = frame.subarray(HEADER_BYTES);
  if (!isUtf8(bytes)) throw new ProtocolError(ErrorCode.BAD_JSON, `${type} body is not valid UTF-8`);
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProtocolError(ErrorCode.BAD_JSON, `${type} body is not JSON text`);
  }
  const twice = duplicateKey(text);
  if (twice !== null) {
    throw new ProtocolError(
      ErrorCode.BAD_JSON,
      `${type} body has the name ${JSON.stringify(twice)} twice in one object`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError(ErrorCode.BAD_JSON, `${type} body must be one JSON object`);
  }
  return { type, requestId, more, body: checkBody(type, parsed) } as OurPacketOf<typeof type> as OurPacket;
}
