/** Joins byte-fixture parts: arrays are raw bytes, strings are UTF-8 text, buffers as they are. */
export function bytes(...parts: (readonly number[] | string | Buffer)[]): Buffer {
  return Buffer.concat(
    parts.map((p) =>
      Buffer.isBuffer(p) ? p : typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p),
    ),
  );
}
