// Serialization of single WARC 1.1 records, each as its own gzip member, plus the digest helpers they need.
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync, type ZlibOptions } from 'node:zlib';

/** One WARC named field, in the order it is written. */
export type WarcField = readonly [name: string, value: string];

const VERSION_LINE = 'WARC/1.1\r\n';
const RECORD_END = Buffer.from('\r\n\r\n');
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
// A field name is an RFC 7230 token; anything else would not parse back as "name: value".
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const LINE_BREAK = /[\r\n]/g;

/** RFC 4648 base32, uppercase, without padding (the form WARC digests use). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff; // 16 bits are enough: at most 7 are pending before a new byte
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** `sha1:` + base32 of the SHA-1 over the parts taken as one byte sequence (no concatenation needed). */
export function sha1Digest(...parts: readonly Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  return `sha1:${base32(hash.digest())}`;
}

/** A fresh WARC-Record-ID. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** WARC-Date: UTC, ISO 8601 with milliseconds, which WARC 1.1 allows and keeps records of one second apart. */
export function warcDate(date: Date): string {
  return date.toISOString();
}

export function isValidFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}

/**
 * A line break inside a value would end the header block early and corrupt the framing of every record
 * after it, so percent-encode it (which is also what it means inside a URI).
 */
export function safeFieldValue(value: string): string {
  return value.replace(LINE_BREAK, (ch) => (ch === '\r' ? '%0D' : '%0A'));
}

/** An `application/warc-fields` block, as used by warcinfo records. */
export function warcFieldsBlock(fields: readonly WarcField[]): Buffer {
  let text = '';
  for (const [name, value] of fields) text += `${name}: ${safeFieldValue(value)}\r\n`;
  return Buffer.from(text, 'utf8');
}

/**
 * One complete record (version line, fields, Content-Length, block, trailing CRLFCRLF) as one gzip member,
 * so a reader can start decompressing at the record's offset. Content-Length is computed here from the block.
 */
export function gzipRecord(
  fields: readonly WarcField[],
  block: readonly Uint8Array[],
  zlib: ZlibOptions,
): Buffer {
  let blockLength = 0;
  for (const part of block) blockLength += part.length;
  let head = VERSION_LINE;
  for (const [name, value] of fields) head += `${name}: ${safeFieldValue(value)}\r\n`;
  head += `Content-Length: ${blockLength}\r\n\r\n`;
  return gzipSync(Buffer.concat([Buffer.from(head, 'utf8'), ...block, RECORD_END]), zlib);
}
