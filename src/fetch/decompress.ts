import type { Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

export type ContentCoding = 'gzip' | 'deflate' | 'br';

/**
 * The codings of a Content-Encoding value in the order the server applied them, or null when the body is to
 * be kept as it is: no header, only identity, or any coding we cannot undo (the raw bytes are then the best
 * we have, and the crawler can still store them).
 */
export function parseContentEncoding(value: string | undefined): ContentCoding[] | null {
  if (value === undefined) return null;
  const codings: ContentCoding[] = [];
  for (const token of value.split(',')) {
    const coding = token.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'deflate') codings.push('deflate');
    else if (coding === 'br') codings.push('br');
    else return null;
  }
  return codings.length === 0 ? null : codings;
}

export interface DecodeEvents {
  /** The decoded body grew past the limit; decoding has stopped. `head()` gives its first limitBytes bytes. */
  onOverLimit(limitBytes: number, head: () => Buffer): void;
  /** The body could not be decoded (corrupt data); decoding has stopped. */
  onError(error: Error): void;
  /** All input was decoded within the limit. */
  onEnd(body: Buffer): void;
}

// Output chunks of 64 KiB rather than zlib's 16 KiB: fewer callbacks per page.
const OUTPUT_CHUNK_BYTES = 64 * 1024;

/*
 * finishFlush = SYNC_FLUSH: a body cut short at the end (a common server bug) yields what was decoded instead
 * of an "unexpected end of file" error, as browsers do. Corrupt data still fails.
 */
const ZLIB_OPTIONS = { chunkSize: OUTPUT_CHUNK_BYTES, finishFlush: constants.Z_SYNC_FLUSH };

/**
 * "deflate" is meant to be zlib-wrapped (RFC 9110) but many servers send raw deflate. A zlib stream starts
 * with a CMF byte whose low nibble is 8 (method deflate) and a header whose 16-bit value is a multiple of 31.
 */
function looksZlibWrapped(firstBytes: Buffer): boolean {
  const cmf = firstBytes[0] ?? 0;
  const flg = firstBytes[1];
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (flg === undefined || ((cmf << 8) | flg) % 31 === 0);
}

/** firstBytes: the start of this layer's input, known only for the outermost layer. */
function decoderFor(coding: ContentCoding, firstBytes: Buffer | null): Transform {
  if (coding === 'gzip') return createGunzip(ZLIB_OPTIONS);
  if (coding === 'br') {
    return createBrotliDecompress({
      chunkSize: OUTPUT_CHUNK_BYTES,
      finishFlush: constants.BROTLI_OPERATION_FLUSH,
    });
  }
  // Inner layers of a multi-coding body cannot be sniffed up front; they get the standard (zlib) format.
  return firstBytes === null || looksZlibWrapped(firstBytes)
    ? createInflate(ZLIB_OPTIONS)
    : createInflateRaw(ZLIB_OPTIONS);
}

/**
 * Streams a content-coded body through node:zlib as it arrives, counting decoded bytes and stopping as soon
 * as they pass the limit, so a compression bomb never expands in memory beyond the limit plus one chunk.
 * Input backpressure is ignored on purpose: the compressed input is bounded by the raw-bytes limit and is
 * kept by the caller anyway (the WARC record needs it), so buffering it in zlib costs no extra memory.
 */
export class LimitedDecoder {
  readonly #codings: readonly ContentCoding[];
  readonly #limitBytes: number;
  readonly #events: DecodeEvents;
  #stages: Transform[] | null = null;
  readonly #decoded: Buffer[] = [];
  #decodedBytes = 0;
  #stopped = false;

  constructor(codings: readonly ContentCoding[], limitBytes: number, events: DecodeEvents) {
    this.#codings = codings;
    this.#limitBytes = limitBytes;
    this.#events = events;
  }

  write(chunk: Buffer): void {
    if (this.#stopped || chunk.length === 0) return;
    const stages = this.#stages ?? this.#start(chunk);
    (stages[0] as Transform).write(chunk);
  }

  end(): void {
    if (this.#stopped) return;
    if (this.#stages === null) {
      // No body at all (204, 304, empty 200): nothing to decode, and not an error.
      this.#stopped = true;
      this.#events.onEnd(Buffer.alloc(0));
      return;
    }
    (this.#stages[0] as Transform).end();
  }

  /** Stops decoding and frees zlib's native memory; no event follows. */
  destroy(): void {
    this.#stopped = true;
    if (this.#stages !== null) for (const stage of this.#stages) stage.destroy();
  }

  #start(firstChunk: Buffer): Transform[] {
    // The last coding applied by the server is the first to undo.
    const stages: Transform[] = [];
    for (let i = this.#codings.length - 1; i >= 0; i--) {
      stages.push(decoderFor(this.#codings[i] as ContentCoding, stages.length === 0 ? firstChunk : null));
    }
    for (let i = 0; i < stages.length; i++) {
      const stage = stages[i] as Transform;
      stage.on('error', (error: Error) => this.#fail(error));
      const next = stages[i + 1];
      if (next !== undefined) stage.pipe(next);
    }
    const last = stages[stages.length - 1] as Transform;
    last.on('data', (chunk: Buffer) => this.#onDecoded(chunk));
    last.on('end', () => this.#finish());
    this.#stages = stages;
    return stages;
  }

  #onDecoded(chunk: Buffer): void {
    if (this.#stopped) return;
    this.#decodedBytes += chunk.length;
    if (this.#decodedBytes > this.#limitBytes) {
      this.destroy();
      const kept = this.#decoded;
      const limit = this.#limitBytes;
      // Made only when asked for (a cut body): a failed one needs no copy.
      const head = () => Buffer.concat([...kept, chunk]).subarray(0, limit);
      this.#events.onOverLimit(limit, head);
      return;
    }
    this.#decoded.push(chunk);
  }

  #fail(error: Error): void {
    if (this.#stopped) return;
    this.destroy();
    this.#events.onError(error);
  }

  #finish(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    const decoded = this.#decoded;
    this.#events.onEnd(
      decoded.length === 1 ? (decoded[0] as Buffer) : Buffer.concat(decoded, this.#decodedBytes),
    );
  }
}
