/**
 * Text answers. SHOWDATA, MODSTAT and NEWMOD are answered with plain UTF-8 text, and the
 * server closes the connection after it: the answer is every byte until the close. Text
 * never starts with a byte below 0x09, and an ERROR packet (at most 2,048 bytes long) always
 * starts with one, so the first byte says which came.
 */
import { decodeFrame } from './codec.js';
import { ErrorCode, ProtocolError } from './errors.js';

export type TextAnswer = { kind: 'text'; text: string } | { kind: 'error'; code: number; message: string };

/** Reads everything the server sent before it closed, in answer to SHOWDATA, MODSTAT or NEWMOD. */
export function readTextAnswer(bytes: Buffer): TextAnswer {
  if (bytes.length === 0 || (bytes[0] as number) >= 0x09)
    return { kind: 'text', text: bytes.toString('utf8') };
  try {
    const packet = decodeFrame(
      bytes.length >= 2 ? bytes.subarray(0, bytes.readUInt16BE(0)) : bytes,
      'server',
    );
    if (packet.type === 'ERROR')
      return { kind: 'error', code: packet.body.code, message: packet.body.message };
    throw new ProtocolError(ErrorCode.BAD_FIELD, `a text answer starts with a ${packet.type} packet`);
  } catch (e) {
    const err = e instanceof ProtocolError ? e : new ProtocolError(ErrorCode.BAD_FIELD, String(e));
    return {
      kind: 'error',
      code: err.wireCode,
      message: `the answer is neither text nor an ERROR packet: ${err.message}`,
    };
  }
}

/** The server's side: text for a text answer, made safe to read as one (no leading control bytes). */
export function textAnswerBytes(text: string): Buffer {
  // A text that began with a byte below 0x09 would read as an ERROR packet.
  let start = 0;
  while (start < text.length && text.charCodeAt(start) < 0x09) start++;
  const safe = text.slice(start);
  return Buffer.from(safe, 'utf8');
}
