import { TextDecoder } from 'node:util';

// Character-set detection and decoding for fetched bodies.
//
// Precedence (the crawl spec's order, which differs from the HTML spec by trusting the
// server before the BOM): Content-Type `charset=` > byte order mark > <meta> prescan of
// the first 1024 bytes > utf-8. A label that Node's TextDecoder does not support falls
// through to the next source instead of throwing, because a typo in one server header
// must not cost us the page.

export type CharsetSource = 'header' | 'bom' | 'meta' | 'default';

export interface Sniffed {
  /** Canonical WHATWG encoding name, as `TextDecoder#encoding` reports it. */
  charset: string;
  source: CharsetSource;
  /** Length of the byte order mark at the start of the body (0 if none); it is stripped before decoding. */
  bomLength: number;
}

const DEFAULT_CHARSET = 'utf-8';
const PRESCAN_LIMIT = 1024;

// Labels come from servers and pages, so they are attacker-controlled: bound the caches.
const MAX_CACHED_LABELS = 256;
const labelCache = new Map<string, string | null>();
const decoderCache = new Map<string, TextDecoder>();

/** Maps a label to its canonical encoding name via the WHATWG table, or null if Node cannot decode it. */
function resolveLabel(label: string): string | null {
  const cached = labelCache.get(label);
  if (cached !== undefined) return cached;
  let encoding: string | null;
  try {
    // The constructor is the label table: it trims, lowercases and maps aliases (latin1 -> windows-1252).
    const decoder = new TextDecoder(label, { fatal: false });
    encoding = decoder.encoding;
    if (!decoderCache.has(encoding)) decoderCache.set(encoding, decoder);
  } catch {
    encoding = null;
  }
  if (labelCache.size < MAX_CACHED_LABELS) labelCache.set(label, encoding);
  return encoding;
}

/** One reusable decoder per encoding; `decode()` without `stream` resets its state each call. */
function decoderFor(encoding: string): TextDecoder {
  let decoder = decoderCache.get(encoding);
  if (decoder === undefined) {
    decoder = new TextDecoder(encoding, { fatal: false });
    decoderCache.set(encoding, decoder);
  }
  return decoder;
}

/** The raw value of the `charset` parameter of a Content-Type header, quotes removed; null if absent. */
function charsetParam(contentType: string): string | null {
  // Parameters start after the first ';'. Quoted strings containing ';' are too rare in
  // charset values to justify a full RFC 9110 parser here.
  let start = contentType.indexOf(';');
  while (start !== -1) {
    const next = contentType.indexOf(';', start + 1);
    const end = next === -1 ? contentType.length : next;
    const eq = contentType.indexOf('=', start + 1);
    if (eq !== -1 && eq < end) {
      const name = contentType.slice(start + 1, eq).trim();
      if (name.length === 7 && name.toLowerCase() === 'charset') {
        let value = contentType.slice(eq + 1, end).trim();
        const quote = value.charCodeAt(0);
        // Single quotes are not valid HTTP, but some servers send them.
        if (value.length >= 2 && (quote === 0x22 || quote === 0x27)) {
          const close = value.indexOf(value.charAt(0), 1);
          value = close === -1 ? value.slice(1) : value.slice(1, close);
        }
        return value.length > 0 ? value : null;
      }
    }
    start = next;
  }
  return null;
}

interface Bom {
  readonly charset: string;
  readonly length: number;
}

const UTF8_BOM: Bom = { charset: 'utf-8', length: 3 };
const UTF16LE_BOM: Bom = { charset: 'utf-16le', length: 2 };
const UTF16BE_BOM: Bom = { charset: 'utf-16be', length: 2 };

function bomOf(body: Uint8Array): Bom | null {
  const b0 = body[0];
  const b1 = body[1];
  if (b0 === 0xef && b1 === 0xbb && body[2] === 0xbf) return UTF8_BOM;
  if (b0 === 0xff && b1 === 0xfe) return UTF16LE_BOM;
  if (b0 === 0xfe && b1 === 0xff) return UTF16BE_BOM;
  return null;
}

export function sniffCharset(body: Uint8Array, contentType: string | null): Sniffed {
  const bom = bomOf(body);
  const bomLength = bom === null ? 0 : bom.length;

  if (contentType !== null) {
    const label = charsetParam(contentType);
    const charset = label === null ? null : resolveLabel(label);
    if (charset !== null) return { charset, source: 'header', bomLength };
  }
  if (bom !== null) return { charset: bom.charset, source: 'bom', bomLength };

  const declared = prescanMetaCharset(body, PRESCAN_LIMIT);
  if (declared !== null) return { charset: declared, source: 'meta', bomLength };
  return { charset: DEFAULT_CHARSET, source: 'default', bomLength };
}

/** Resolves a label declared inside the document, with the HTML spec's fix-ups. */
function metaCharset(label: string): string | null {
  // The prescan read the declaration as ASCII, so the bytes cannot really be UTF-16.
  // x-user-defined is not decodable by TextDecoder; the spec maps it to windows-1252.
  const charset = resolveLabel(label);
  if (charset === 'utf-16le' || charset === 'utf-16be') return 'utf-8';
  if (charset === null && label.trim().toLowerCase() === 'x-user-defined') return 'windows-1252';
  return charset;
}

export function decodeBody(body: Uint8Array, contentType: string | null): { text: string; charset: string } {
  const sniffed = sniffCharset(body, contentType);
  const bytes = sniffed.bomLength === 0 ? body : body.subarray(sniffed.bomLength);
  return { text: decoderFor(sniffed.charset).decode(bytes), charset: sniffed.charset };
}

// ---------------------------------------------------------------------------------------
// <meta> prescan: a byte-level subset of the HTML spec's "prescan a byte stream to determine
// its encoding". It walks the bytes once (no regex, no string of the whole prefix) and only
// builds strings for the attributes of <meta> tags.

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const BANG = 0x21;
const QUESTION = 0x3f;
const DASH = 0x2d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const SEMICOLON = 0x3b;

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

function isAsciiLetter(code: number | undefined): boolean {
  return code !== undefined && ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a));
}

function lowerByte(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

/** Bytes [from, to) as a lowercased latin1 string. */
function latin1Lower(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += String.fromCharCode(lowerByte(bytes[i] as number));
  return out;
}

/** Byte offsets of one attribute; reused across calls so skipping attributes allocates nothing. */
interface AttributeSpan {
  nameStart: number;
  nameEnd: number;
  valueStart: number;
  valueEnd: number;
  /** Position just after the attribute. */
  end: number;
}

const span: AttributeSpan = { nameStart: 0, nameEnd: 0, valueStart: 0, valueEnd: 0, end: 0 };

/**
 * The spec's "get an attribute", filling `span`. Returns false when there is none: the tag
 * ended ('>'), or the bytes ran out mid-attribute. `span.end` is then where scanning stopped.
 */
function readAttribute(bytes: Uint8Array, start: number, limit: number): boolean {
  let pos = start;
  while (pos < limit && (isSpace(bytes[pos]) || bytes[pos] === SLASH)) pos++;
  span.end = pos;
  if (pos >= limit || bytes[pos] === GT) return false;

  span.nameStart = pos;
  // '=' as the very first character belongs to the name, as in the spec.
  if (bytes[pos] === EQUALS) pos++;
  while (pos < limit) {
    const c = bytes[pos] as number;
    if (c === EQUALS || c === SLASH || c === GT || isSpace(c)) break;
    pos++;
  }
  span.nameEnd = pos;
  while (pos < limit && isSpace(bytes[pos])) pos++;
  span.end = pos;
  if (pos >= limit) return false;
  if (bytes[pos] !== EQUALS) {
    span.valueStart = span.valueEnd = pos;
    return true;
  }
  pos++;
  while (pos < limit && isSpace(bytes[pos])) pos++;
  span.end = pos;
  if (pos >= limit) return false;

  const first = bytes[pos];
  if (first === DQUOTE || first === SQUOTE) {
    let close = pos + 1;
    while (close < limit && bytes[close] !== first) close++;
    span.end = close;
    if (close >= limit) return false;
    span.valueStart = pos + 1;
    span.valueEnd = close;
    span.end = close + 1;
    return true;
  }
  span.valueStart = pos;
  while (pos < limit && bytes[pos] !== GT && !isSpace(bytes[pos])) pos++;
  span.end = pos;
  if (pos >= limit) return false;
  span.valueEnd = pos;
  return true;
}

/** The spec's "extract a character encoding from a meta element", applied to a content value. */
function charsetFromMetaContent(content: string): string | null {
  let from = 0;
  for (;;) {
    // `content` is already lowercased by the prescan.
    const found = content.indexOf('charset', from);
    if (found === -1) return null;
    let pos = found + 7;
    while (pos < content.length && isSpace(content.charCodeAt(pos))) pos++;
    if (content.charCodeAt(pos) !== EQUALS) {
      from = pos;
      continue;
    }
    pos++;
    while (pos < content.length && isSpace(content.charCodeAt(pos))) pos++;
    const quote = content.charCodeAt(pos);
    if (quote === DQUOTE || quote === SQUOTE) {
      const close = content.indexOf(content.charAt(pos), pos + 1);
      return close === -1 ? null : content.slice(pos + 1, close);
    }
    let end = pos;
    while (end < content.length && content.charCodeAt(end) !== SEMICOLON && !isSpace(content.charCodeAt(end)))
      end++;
    return end > pos ? content.slice(pos, end) : null;
  }
}

/**
 * Reads the attributes of one <meta> tag starting at `start`. Returns its declared label
 * (null if none or if a content= declaration lacks http-equiv=content-type); `span.end`
 * tells where the tag's attributes stopped.
 */
function metaTagLabel(bytes: Uint8Array, start: number, limit: number): string | null {
  let pos = start;
  let gotPragma = false;
  let needPragma: boolean | null = null;
  let label: string | null = null;
  let seen: string[] | null = null;
  while (readAttribute(bytes, pos, limit)) {
    pos = span.end;
    const name = latin1Lower(bytes, span.nameStart, span.nameEnd);
    // Only the first occurrence of an attribute counts.
    if (seen === null) seen = [];
    else if (seen.includes(name)) continue;
    seen.push(name);
    if (name === 'http-equiv') {
      if (latin1Lower(bytes, span.valueStart, span.valueEnd) === 'content-type') gotPragma = true;
    } else if (name === 'content') {
      if (label === null) {
        const fromContent = charsetFromMetaContent(latin1Lower(bytes, span.valueStart, span.valueEnd));
        if (fromContent !== null) {
          label = fromContent;
          needPragma = true;
        }
      }
    } else if (name === 'charset') {
      label = latin1Lower(bytes, span.valueStart, span.valueEnd);
      needPragma = false;
    }
  }
  if (needPragma === null || (needPragma && !gotPragma)) return null;
  return label;
}

function isMetaTagStart(bytes: Uint8Array, pos: number): boolean {
  return (
    lowerByte(bytes[pos + 1] ?? 0) === 0x6d &&
    lowerByte(bytes[pos + 2] ?? 0) === 0x65 &&
    lowerByte(bytes[pos + 3] ?? 0) === 0x74 &&
    lowerByte(bytes[pos + 4] ?? 0) === 0x61 &&
    (isSpace(bytes[pos + 5]) || bytes[pos + 5] === SLASH)
  );
}

/**
 * Scans the first `maxBytes` bytes for a <meta charset> or <meta http-equiv=content-type>
 * declaration and returns its canonical encoding name. Comments and other tags'
 * attributes are skipped, so `<!-- <meta charset=x> -->` or `<a title="<meta charset=x>">`
 * are not mistaken for a declaration.
 */
function prescanMetaCharset(bytes: Uint8Array, maxBytes: number): string | null {
  const limit = Math.min(bytes.length, maxBytes);
  let pos = 0;
  while (pos < limit) {
    if (bytes[pos] !== LT) {
      pos++;
      continue;
    }
    const next = bytes[pos + 1];
    if (next === BANG && bytes[pos + 2] === DASH && bytes[pos + 3] === DASH) {
      // The closing "-->" may reuse the opening dashes ("<!-->"), as in the spec.
      let end = pos + 2;
      while (end + 2 < limit && !(bytes[end] === DASH && bytes[end + 1] === DASH && bytes[end + 2] === GT))
        end++;
      pos = end + 3;
    } else if (isMetaTagStart(bytes, pos)) {
      const label = metaTagLabel(bytes, pos + 5, limit);
      // A meta with an unknown label is skipped and the scan goes on, as in the spec.
      const charset = label === null ? null : metaCharset(label);
      if (charset !== null) return charset;
      pos = span.end + 1;
    } else if (isAsciiLetter(next) || (next === SLASH && isAsciiLetter(bytes[pos + 2]))) {
      // Another tag: skip its name and attributes, so a quoted '<' or '>' inside cannot mislead us.
      pos += 2;
      while (pos < limit && bytes[pos] !== GT && !isSpace(bytes[pos])) pos++;
      while (readAttribute(bytes, pos, limit)) pos = span.end;
      pos = span.end + 1;
    } else if (next === BANG || next === SLASH || next === QUESTION) {
      pos += 2;
      while (pos < limit && bytes[pos] !== GT) pos++;
      pos++;
    } else {
      pos++;
    }
  }
  return null;
}
