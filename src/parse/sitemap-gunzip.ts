// Bounded gunzip for sitemap files (`sitemap.xml.gz`) that arrive still compressed: served
// as application/gzip or octet-stream, so the fetcher's Content-Encoding decoding did not
// touch them.
//
// The sitemap parser is synchronous, and node:zlib's only synchronous API (gunzipSync) is
// all-or-nothing: it either returns the whole output or throws, with no partial result. A
// sitemap past the size limit, cut short or corrupt still deserves the URLs before the
// damage, so on failure we look for a prefix of the compressed bytes that inflates cleanly
// within the limit (see inflateLongestPrefix).

import { constants as bufferConstants } from 'node:buffer';
import { constants, gunzipSync } from 'node:zlib';

export interface Gunzipped {
  /** The decompressed bytes, at most the limit; what could be salvaged if something went wrong. */
  bytes: Buffer;
  /** Short description of what went wrong, for the crawl's record; null when the file was clean. */
  problem: string | null;
}

/** gzip's magic bytes (RFC 1952): a served `.xml.gz` is recognized by content, not by its Content-Type. */
export function isGzip(body: Uint8Array): boolean {
  return body[0] === 0x1f && body[1] === 0x8b;
}

// Start small so that a file damaged early still yields what came before the damage.
const FIRST_PREFIX_BYTES = 1024;

type Outcome = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'truncated' | 'corrupt' };

/**
 * Inflates `input`; `partial` accepts input that ends mid-stream (Z_SYNC_FLUSH yields what
 * was decoded so far instead of "unexpected end of file").
 */
function inflate(input: Uint8Array, maxBytes: number, partial: boolean): Outcome {
  try {
    const bytes = gunzipSync(input, {
      maxOutputLength: maxBytes,
      finishFlush: partial ? constants.Z_SYNC_FLUSH : constants.Z_FINISH,
    });
    return { ok: true, bytes };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, reason: 'too-large' };
    if (code === 'Z_BUF_ERROR') return { ok: false, reason: 'truncated' };
    return { ok: false, reason: 'corrupt' };
  }
}

/**
 * The output of a prefix of `body` that inflates without error and within `maxBytes`,
 * trying prefixes of doubling length. The output of a prefix only grows with its length,
 * so this keeps at least about half of what the best prefix would give (all of it when
 * damage comes right after real content), at a cost of about three times `maxBytes` of
 * inflating: a bisection would get closer but inflate up to `maxBytes` per step.
 */
function inflateLongestPrefix(body: Uint8Array, maxBytes: number): Buffer {
  let best: Buffer = Buffer.alloc(0);
  for (let length = FIRST_PREFIX_BYTES; length < body.length; length *= 2) {
    const outcome = inflate(body.subarray(0, length), maxBytes, true);
    if (!outcome.ok) break;
    best = outcome.bytes;
  }
  return best;
}

/**
 * Gunzips `body` (one or more gzip members) into at most `maxBytes` bytes. Never throws:
 * a body that is too large, cut short or corrupt gives what could be decoded plus a problem.
 */
export function gunzipBounded(body: Uint8Array, maxBytes: number): Gunzipped {
  // zlib takes a limit from 1 to the largest Buffer; a zero limit is applied by trimming below.
  const limit = Math.max(1, Math.min(Math.floor(maxBytes), bufferConstants.MAX_LENGTH));
  const trim = (bytes: Buffer): Buffer => (bytes.length > maxBytes ? bytes.subarray(0, maxBytes) : bytes);

  const whole = inflate(body, limit, false);
  if (whole.ok) return { bytes: trim(whole.bytes), problem: null };

  let failure = whole.reason;
  if (failure === 'truncated') {
    const partial = inflate(body, limit, true);
    if (partial.ok) return { bytes: trim(partial.bytes), problem: 'truncated gzip' };
    failure = partial.reason;
  }
  const salvaged = trim(inflateLongestPrefix(body, limit));
  if (failure !== 'too-large') return { bytes: salvaged, problem: 'bad gzip' };
  return {
    bytes: salvaged,
    problem: `gzip expands past ${maxBytes} bytes; parsed the first ${salvaged.length}`,
  };
}
