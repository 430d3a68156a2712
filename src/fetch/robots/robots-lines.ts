/**
 * The line layer of robots.txt: splits the bytes into lines and each line into a key and a value,
 * with the tolerances of Google's reference parser (github.com/google/robotstxt), which RFC 9309
 * leaves room for: sites write robots.txt by hand, and a typo should not open (or close) a site.
 */

export type RobotsKey = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'unknown';

export type RobotsLineVisitor = (key: RobotsKey, value: string, lineNumber: number) => void;

/**
 * Longest line kept, in bytes; the rest of a longer line is dropped. Google's limit: 8 times the
 * 2,083 characters of the longest URL browsers take, minus the byte its C parser keeps for the NUL.
 */
export const MAX_LINE_BYTES = 2083 * 8 - 1;

const LF = 0x0a;
const CR = 0x0d;
const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Calls `visit` for every line that has a key and a value, in order, with its 1-based line number.
 * CR, LF and CRLF all end a line. Never throws: bytes that are not UTF-8 decode to U+FFFD and
 * make, at worst, an unknown key.
 */
export function forEachRobotsLine(body: Uint8Array, visit: RobotsLineVisitor): void {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const end = bytes.length;
  let start = bomLength(bytes);
  let lineNumber = 0;
  // Next CR and LF at or after `start`, searched again only once passed: two indexOf calls per line
  // would rescan to the end of a file that has no CR at all, quadratic on a large file.
  let nextLf = -2;
  let nextCr = -2;
  for (;;) {
    if (nextLf !== -1 && nextLf < start) nextLf = bytes.indexOf(LF, start);
    if (nextCr !== -1 && nextCr < start) nextCr = bytes.indexOf(CR, start);
    const lineEnd = firstFound(nextLf, nextCr, end);
    lineNumber++;
    const kept = Math.min(lineEnd, start + MAX_LINE_BYTES);
    if (kept > start) visitLine(bytes.toString('utf8', start, kept), lineNumber, visit);
    if (lineEnd === end) return;
    start = bytes[lineEnd] === CR && bytes[lineEnd + 1] === LF ? lineEnd + 2 : lineEnd + 1;
  }
}

/** Classifies a key the way Google's parser does: case-insensitive, by prefix, with its common misspellings. */
export function classifyKey(key: string): RobotsKey {
  const lower = key.toLowerCase();
  if (startsWithAny(lower, USER_AGENT_SPELLINGS)) return 'user-agent';
  if (lower.startsWith('allow')) return 'allow';
  if (startsWithAny(lower, DISALLOW_SPELLINGS)) return 'disallow';
  if (startsWithAny(lower, SITEMAP_SPELLINGS)) return 'sitemap';
  if (startsWithAny(lower, CRAWL_DELAY_SPELLINGS)) return 'crawl-delay';
  return 'unknown';
}

const USER_AGENT_SPELLINGS = ['user-agent', 'useragent', 'user agent'];
const DISALLOW_SPELLINGS = ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'];
const SITEMAP_SPELLINGS = ['sitemap', 'site-map'];
const CRAWL_DELAY_SPELLINGS = ['crawl-delay', 'crawldelay', 'crawl delay'];

function startsWithAny(text: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (text.startsWith(prefix)) return true;
  return false;
}

/** A BOM is skipped even when only its first one or two bytes are there, as Google does. */
function bomLength(bytes: Buffer): number {
  let length = 0;
  while (length < UTF8_BOM.length && bytes[length] === UTF8_BOM[length]) length++;
  return length;
}

function firstFound(a: number, b: number, notFound: number): number {
  if (a === -1) return b === -1 ? notFound : b;
  if (b === -1) return a;
  return Math.min(a, b);
}

function visitLine(line: string, lineNumber: number, visit: RobotsLineVisitor): void {
  const hash = line.indexOf('#');
  const content = trimAsciiWhitespace(hash === -1 ? line : line.slice(0, hash));
  let separator = content.indexOf(':');
  let valueStart = separator + 1;
  if (separator === -1) {
    // "Disallow /x" is obviously meant: take whitespace for the missing colon, but only between
    // exactly two words, so that free text is not read as a directive.
    separator = firstWhitespace(content, 0);
    if (separator === -1) return;
    valueStart = separator;
    if (firstWhitespace(trimAsciiWhitespace(content.slice(valueStart)), 0) !== -1) return;
  }
  const key = trimAsciiWhitespace(content.slice(0, separator));
  if (key === '') return;
  visit(classifyKey(key), trimAsciiWhitespace(content.slice(valueStart)), lineNumber);
}

function firstWhitespace(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) return i;
  }
  return -1;
}

/** Trims the ASCII whitespace C's isspace() knows; String.trim() would also eat U+FEFF and U+00A0. */
function trimAsciiWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isAsciiWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isAsciiWhitespace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
