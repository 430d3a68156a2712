/**
 * One spelling for robots.txt paths, so that a rule and a URL that name the same octets compare
 * equal (RFC 9309 section 2.2.2): `%7E` and `~`, `%aa` and `%AA`, `ツ` and `%E3%83%84`.
 *
 * Both sides go through the same function:
 * - `%XX` that encodes an unreserved character (ALPHA, DIGIT, `-`, `.`, `_`, `~`) is decoded;
 *   any other `%XX` keeps its encoding with uppercase hex digits (a reserved character and its
 *   escape differ in meaning, RFC 3986 section 2.2);
 * - a `%` that starts no escape becomes `%25`;
 * - octets a URI cannot hold as they are (non-ASCII, space, controls, `"`, `<`, `{`, ...) are
 *   percent-encoded as UTF-8, as the WHATWG URL parser would encode them;
 * - `*` and `$` are wildcards in a rule (`$` only as its last character). Everywhere else they are
 *   spelled `%2A` and `%24`, so a rule can name a literal `*` or `$` by its escape (section 2.2.3).
 */

const HEX = '0123456789ABCDEF';
const PERCENT = 0x25;
const STAR = 0x2a;
const DOLLAR = 0x24;

/** Characters that stay as they are in a URL path; `%`, `*` and `$` are left out on purpose (see above). */
const LITERAL = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!&'()+,;=") {
  LITERAL[char.charCodeAt(0)] = 1;
}

// Everything the loop below would rewrite. A URL from the WHATWG parser rarely has any of it, so most
// calls return their input after one regex scan and allocate nothing.
const NEEDS_WORK = /[^A-Za-z0-9\-._~:/?#[\]@!&'()+,;=]/;
// The same for a rule, where `*` is fine anywhere and `$` at the end.
const PATTERN_NEEDS_WORK = /[^A-Za-z0-9\-._~:/?#[\]@!&'()+,;=*$]|\$./;

/** The path and query of `url` as the matcher wants it: WHATWG pathname + search; "/" when `url` is not an absolute URL. */
export function robotsPathOf(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return '/';
  const path = parsed.pathname + parsed.search;
  return path.startsWith('/') ? path : `/${path}`;
}

/** Normalizes the path and query of a URL for matching. */
export function normalizeUrlPath(pathAndQuery: string): string {
  return NEEDS_WORK.test(pathAndQuery) ? normalize(pathAndQuery, false) : pathAndQuery;
}

/** Normalizes the value of an Allow or Disallow line; `*` and a final `$` keep their wildcard meaning. */
export function normalizePattern(value: string): string {
  return PATTERN_NEEDS_WORK.test(value) ? normalize(value, true) : value;
}

function normalize(text: string, isPattern: boolean): string {
  let out = '';
  const end = text.length;
  let i = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === PERCENT) {
      const high = hexValue(text.charCodeAt(i + 1));
      const low = hexValue(text.charCodeAt(i + 2));
      if (high === -1 || low === -1) {
        out += '%25';
        i += 1;
        continue;
      }
      const byte = (high << 4) | low;
      out += isUnreserved(byte) ? String.fromCharCode(byte) : `%${HEX[high]}${HEX[low]}`;
      i += 3;
    } else if (c === STAR) {
      out += isPattern ? '*' : '%2A';
      i += 1;
    } else if (c === DOLLAR) {
      out += isPattern && i === end - 1 ? '$' : '%24';
      i += 1;
    } else if (c < 0x80) {
      out += LITERAL[c] === 1 ? text.charAt(i) : percentEncodedByte(c);
      i += 1;
    } else {
      // Encode a whole run of non-ASCII at once: Buffer handles surrogate pairs, and turns a lone
      // surrogate into U+FFFD instead of throwing as encodeURIComponent would.
      let runEnd = i + 1;
      while (runEnd < end && text.charCodeAt(runEnd) >= 0x80) runEnd++;
      for (const byte of Buffer.from(text.slice(i, runEnd), 'utf8')) out += percentEncodedByte(byte);
      i = runEnd;
    }
  }
  return out;
}

function percentEncodedByte(byte: number): string {
  return `%${HEX[byte >> 4]}${HEX[byte & 0xf]}`;
}

function isUnreserved(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f || // _
    byte === 0x7e // ~
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}
