// Bytes to text for a sitemap. XML has its own rules for the encoding (RFC 7303): the
// Content-Type charset, then a byte order mark, then the XML declaration, then UTF-8. An
// HTML <meta charset> means nothing in XML, so the HTML prescan's answer is not used.

import { TextDecoder } from 'node:util';
import { sniffCharset } from './charset.js';

export interface DecodedText {
  text: string;
  /** Set when the declared encoding could not be honoured. */
  problem: string | null;
}

// The declaration has to come first; a little leading whitespace is tolerated.
const DECLARATION_SCAN_BYTES = 256;
const DECLARED_ENCODING = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"'<>]{0,40})["']/;

/** The encoding label of `<?xml ... encoding="..."?>`, read as ASCII; null if there is none. */
function declaredEncoding(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, DECLARATION_SCAN_BYTES));
  return DECLARED_ENCODING.exec(head.toString('latin1'))?.[1] ?? null;
}

/** The canonical name TextDecoder gives a label, or null if it cannot decode it. */
function encodingFor(label: string): string | null {
  try {
    const encoding = new TextDecoder(label).encoding;
    // A declaration readable as ASCII proves the bytes are not UTF-16, whatever it says.
    return encoding === 'utf-16le' || encoding === 'utf-16be' ? 'utf-8' : encoding;
  } catch {
    return null;
  }
}

function decode(encoding: string, bytes: Uint8Array): string {
  // ignoreBOM: the sniffer already stripped the byte order mark, and a second one is content.
  return new TextDecoder(encoding, { fatal: false, ignoreBOM: true }).decode(bytes);
}

export function decodeSitemapText(bytes: Uint8Array, contentType: string | null): DecodedText {
  const sniffed = sniffCharset(bytes, contentType);
  const body = sniffed.bomLength === 0 ? bytes : bytes.subarray(sniffed.bomLength);
  if (sniffed.source === 'header' || sniffed.source === 'bom') {
    return { text: decode(sniffed.charset, body), problem: null };
  }
  const label = declaredEncoding(body);
  if (label === null) return { text: decode('utf-8', body), problem: null };
  const encoding = encodingFor(label);
  if (encoding === null) {
    return { text: decode('utf-8', body), problem: `unsupported encoding "${label}", read as UTF-8` };
  }
  return { text: decode(encoding, body), problem: null };
}
