/** Small byte helpers shared by the codec: UTF-8 strings, NUL-terminated strings, IPv4. */
import { isUtf8 } from 'node:buffer';
import { ErrorCode, ProtocolError } from './errors.js';

/** The bytes from..to as UTF-8 text; BAD_TEXT when they are not valid UTF-8. */
export function utf8(frame: Buffer, from: number, to: number, what: string): string {
  const bytes = frame.subarray(from, to);
  if (!isUtf8(bytes)) throw new ProtocolError(ErrorCode.BAD_TEXT, `${what} is not valid UTF-8`);
  return bytes.toString('utf8');
}

/**
 * Reads a NUL-terminated string starting at `from`. Returns the text and the offset after the
 * NUL. MISSING_NUL when the packet ends first.
 */
export function readCString(frame: Buffer, from: number, what: string): { text: string; next: number } {
  const nul = frame.indexOf(0, from);
  if (nul === -1) {
    throw new ProtocolError(ErrorCode.MISSING_NUL, `${what} has no terminating NUL before the packet ends`);
  }
  return { text: utf8(frame, from, nul, what), next: nul + 1 };
}

/** The UTF-8 bytes of a string to be sent NUL-terminated; refuses a string with a NUL in it. */
export function cStringBytes(text: string, what: string): Buffer {
  if (text.includes('\0')) throw new ProtocolError(ErrorCode.BAD_FIELD, `${what} contains a NUL character`);
  return Buffer.from(text, 'utf8');
}

const DOTTED = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Whether `text` is an IPv4 address in plain dotted form (no leading zeros, no shorthand). */
export function isDottedIPv4(text: string): boolean {
  return DOTTED.test(text);
}

export function writeIPv4(addr: string, out: Buffer, at: number): void {
  if (!isDottedIPv4(addr)) {
    throw new ProtocolError(ErrorCode.BAD_FIELD, `addr "${addr}" is not a dotted IPv4 address`);
  }
  const parts = addr.split('.');
  for (let i = 0; i < 4; i++) out[at + i] = Number(parts[i]);
}

export function readIPv4(frame: Buffer, at: number): string {
  return `${frame[at]}.${frame[at + 1]}.${frame[at + 2]}.${frame[at + 3]}`;
}

export function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) {
    throw new ProtocolError(ErrorCode.BAD_FIELD, `port ${port} is not an integer from 0 to 65535`);
  }
}
