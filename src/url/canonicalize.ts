/**
 * One spelling per resource: every discovered link goes through here before it is filtered,
 * fingerprinted and queued, so two spellings of the same URL must come out identical.
 */

/** Longest canonical URL we keep; the de-facto limit of older browsers and many servers. */
export const MAX_URL_LENGTH = 2083;

export type CanonicalizeFailure = 'unsupported-scheme' | 'invalid-url' | 'too-long';

export type CanonicalizeResult =
  | { ok: true; url: string }
  | { ok: false; reason: CanonicalizeFailure; input: string };

/**
 * Canonicalizes `raw` (resolved against `base` when relative) into the form the crawler stores.
 *
 * The WHATWG parser does most of the work: it strips surrounding whitespace and C0 controls,
 * removes tabs and newlines, lowercases scheme and host, converts IDN hosts to punycode, drops
 * default ports, resolves dot segments (including `%2e` spellings of them) and percent-encodes
 * non-ASCII. On top of that we drop the fragment, the userinfo and an empty `?`, and normalize
 * percent-encoding in path and query.
 *
 * Userinfo is dropped although it is not a WHATWG normalization: credentials do not identify a
 * resource, must not leak into the store, logs or WARC files, and without them hostKey() can
 * slice the host straight out of the canonical string.
 *
 * A stray `%` not followed by two hex digits is kept as is (WHATWG does the same): it is what a
 * browser would send, and rewriting it to `%25` would change the request.
 */
export function canonicalize(raw: string, base?: string): CanonicalizeResult {
  // Decide the scheme before parsing when the input names one: `data:` and `javascript:` links
  // can be huge and are never crawled, so they should not cost a full parse.
  if (schemeOf(raw) === 'other') return { ok: false, reason: 'unsupported-scheme', input: raw };

  const url = URL.parse(raw, base);
  if (url === null) return { ok: false, reason: 'invalid-url', input: raw };

  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') {
    return { ok: false, reason: 'unsupported-scheme', input: raw };
  }
  // WHATWG already refuses an empty host for special schemes; kept as a guard so an empty host
  // can never reach the politeness key or the scope check.
  if (url.hostname === '') return { ok: false, reason: 'invalid-url', input: raw };

  // `search` is '' both for no query and for a bare `?`, which drops the empty query for free.
  const canonical = `${protocol}//${url.host}${normalizePercentEncoding(url.pathname)}${normalizePercentEncoding(url.search)}`;
  if (canonical.length > MAX_URL_LENGTH) return { ok: false, reason: 'too-long', input: raw };
  return { ok: true, url: canonical };
}

type SchemeGuess = 'http' | 'other' | 'none';

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const HTTPS = 'https';

/**
 * Reads the scheme the way the WHATWG scheme state would: after leading C0 controls and spaces,
 * skipping tabs and newlines, an ASCII letter followed by letters, digits, `+`, `-` or `.` up to
 * a `:`. 'none' means the input has no scheme (relative, or left for the parser to reject).
 */
function schemeOf(raw: string): SchemeGuess {
  const end = raw.length;
  let i = 0;
  while (i < end && raw.charCodeAt(i) <= 0x20) i++;
  if (i === end || !isAsciiAlpha(raw.charCodeAt(i))) return 'none';

  let schemeLength = 0;
  let matchesHttps = true; // whether the scheme so far is a prefix of "https"
  for (; i < end; i++) {
    const c = raw.charCodeAt(i);
    if (c === TAB || c === LF || c === CR) continue;
    if (c === COLON) {
      return matchesHttps && (schemeLength === 4 || schemeLength === 5) ? 'http' : 'other';
    }
    if (!isSchemeChar(c)) return 'none';
    // ASCII lowercase by setting bit 0x20; only letters can match "https" so digits are harmless.
    if (schemeLength >= HTTPS.length || (c | 0x20) !== HTTPS.charCodeAt(schemeLength)) matchesHttps = false;
    schemeLength++;
  }
  return 'none';
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isSchemeChar(c: number): boolean {
  return isAsciiAlpha(c) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
}

const UPPER_HEX = '0123456789ABCDEF';

/**
 * Uppercases the hex digits of every `%XX` and decodes those that encode an unreserved character
 * (ALPHA, DIGIT, `-`, `.`, `_`, `~`), per RFC 3986 section 6.2.2. Returns the input itself when
 * nothing changes, so the common case allocates nothing.
 *
 * Decoding `%2E` never creates a new dot segment, so no second dot-segment pass is needed: the
 * WHATWG parser already treats every segment spelled `.`, `%2e`, `..`, `.%2e`, `%2e.` or
 * `%2e%2e` (any case) as a dot segment and has removed it. What is left can only decode to a
 * segment with other characters in it, like `.secure`, `..bar` or `...`, which are plain names.
 * A `%2F` is not unreserved and stays encoded, so decoding never creates a new segment either.
 */
function normalizePercentEncoding(component: string): string {
  let percent = component.indexOf('%');
  if (percent === -1) return component;

  let out = '';
  let copiedUpTo = 0;
  // Output position of the last `%` that starts no escape (a "stray" one, kept as WHATWG keeps
  // it). Decoding a hex digit just after it could forge a new escape: `%%300` must not become
  // `%00`, which names a NUL byte instead of the text "%00".
  let lastStrayPercent = -3;
  while (percent !== -1) {
    const highDigit = component.charCodeAt(percent + 1);
    const lowDigit = component.charCodeAt(percent + 2);
    const high = hexValue(highDigit);
    const low = hexValue(lowDigit);
    const outputPosition = out.length + percent - copiedUpTo;
    if (high === -1 || low === -1) {
      lastStrayPercent = outputPosition;
      percent = component.indexOf('%', percent + 1);
      continue;
    }
    const byte = (high << 4) | low;
    const previousChar =
      percent > copiedUpTo ? component.charCodeAt(percent - 1) : out.charCodeAt(out.length - 1);
    if (isUnreserved(byte) && !forgesEscape(byte, outputPosition - lastStrayPercent, previousChar)) {
      out += component.slice(copiedUpTo, percent) + String.fromCharCode(byte);
      copiedUpTo = percent + 3;
    } else if (isLowerHexLetter(highDigit) || isLowerHexLetter(lowDigit)) {
      out += `${component.slice(copiedUpTo, percent)}%${UPPER_HEX.charAt(high)}${UPPER_HEX.charAt(low)}`;
      copiedUpTo = percent + 3;
    }
    percent = component.indexOf('%', percent + 3);
  }
  return copiedUpTo === 0 ? component : out + component.slice(copiedUpTo);
}

/**
 * Whether writing `char` `distanceFromStray` places after a stray `%` could make that `%` an
 * escape: a hex digit right after it, or a hex digit after it and another hex digit.
 */
function forgesEscape(char: number, distanceFromStray: number, previousChar: number): boolean {
  if (distanceFromStray > 2 || hexValue(char) === -1) return false;
  return distanceFromStray === 1 || hexValue(previousChar) !== -1;
}

/** Value of an ASCII hex digit, or -1 (also for NaN, which charCodeAt returns past the end). */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function isLowerHexLetter(c: number): boolean {
  return c >= 0x61 && c <= 0x66;
}

function isUnreserved(byte: number): boolean {
  return (
    isAsciiAlpha(byte) ||
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f || // _
    byte === 0x7e // ~
  );
}
