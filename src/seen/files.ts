import { closeSync, fsyncSync, openSync, readSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeAll } from '../write-all.js';

/** Reads exactly `into.length` bytes from `position`; false when the file ends first. */
export function readExactly(fd: number, into: Uint8Array, position: number): boolean {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

/** Bytes of a typed array, as a Uint8Array over the same memory. */
export function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** fsync on a directory, so that a rename or unlink in it survives a power cut. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `parts`, all or nothing: write a temporary file beside it, fsync
 * it, rename it over the old one, fsync the folder. A kill or power cut at any moment
 * leaves the old file or the new one, never a mix.
 */
export function writeFileAtomic(path: string, parts: readonly Uint8Array[]): void {
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    for (const part of parts) writeAll(fd, part);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  fsyncDir(dirname(path));
}

/** An 8-byte magic string followed by 64-bit little-endian numbers: the head of every file a seen set writes. */
export function header(magic: string, numbers: readonly number[]): Uint8Array {
  const bytes = Buffer.alloc(8 + 8 * numbers.length);
  bytes.write(magic, 0, 8, 'latin1');
  numbers.forEach((n, i) => {
    bytes.writeBigUInt64LE(BigInt(n), 8 + 8 * i);
  });
  return bytes;
}

/** Reads a header written by `header`; undefined when the magic differs or the file is too short. */
export function readHeader(fd: number, magic: string, count: number): number[] | undefined {
  const bytes = Buffer.alloc(8 + 8 * count);
  if (!readExactly(fd, bytes, 0)) return undefined;
  if (bytes.toString('latin1', 0, 8) !== magic) return undefined;
  return Array.from({ length: count }, (_, i) => Number(bytes.readBigUInt64LE(8 + 8 * i)));
}
