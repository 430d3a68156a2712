/** Building the raw HTTP heads stored in WARC records, and the header record handed to the crawler. */

const CRLF = Buffer.from('\r\n', 'latin1');
const COLON_SPACE = Buffer.from(': ', 'latin1');

/** Header names and values as undici's HTTP/1.1 parser delivers them: alternating name, value. */
export type RawHeaderList = readonly Buffer[];

function isTransferEncoding(name: Buffer): boolean {
  return name.length === 17 && name.toString('latin1').toLowerCase() === 'transfer-encoding';
}

/**
 * "HTTP/1.1 <status> <text>\r\n" + the headers in their received case and order + "\r\n". Transfer-Encoding
 * is left out because the body stored beside this head is de-chunked. undici does not report the response's
 * HTTP version, so the line always says HTTP/1.1 (the only version this fetcher speaks).
 * Built with one allocation: this runs for every response.
 */
export function buildResponseHead(status: number, statusText: string, rawHeaders: RawHeaderList): Buffer {
  const statusLine = `HTTP/1.1 ${status} ${statusText}\r\n`;
  let size = Buffer.byteLength(statusLine, 'latin1') + CRLF.length;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as Buffer;
    if (isTransferEncoding(name)) continue;
    size += name.length + COLON_SPACE.length + (rawHeaders[i + 1] as Buffer).length + CRLF.length;
  }
  const head = Buffer.allocUnsafe(size);
  let offset = head.write(statusLine, 0, 'latin1');
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as Buffer;
    if (isTransferEncoding(name)) continue;
    offset += name.copy(head, offset);
    offset += COLON_SPACE.copy(head, offset);
    offset += (rawHeaders[i + 1] as Buffer).copy(head, offset);
    offset += CRLF.copy(head, offset);
  }
  CRLF.copy(head, offset);
  return head;
}

/**
 * Lowercase names; a repeated header's values joined with ', ' in arrival order. Values are decoded as UTF-8
 * (not latin1 as node does) because servers put raw UTF-8 in Location and the crawler must follow it.
 */
export function headerRecord(rawHeaders: RawHeaderList): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as Buffer).toString('latin1').toLowerCase();
    const value = (rawHeaders[i + 1] as Buffer).toString('utf8');
    const previous = Object.hasOwn(record, name) ? record[name] : undefined;
    const joined = previous === undefined ? value : `${previous}, ${value}`;
    if (name === '__proto__') {
      // A header named "__proto__" must become a plain entry, not a prototype change.
      Object.defineProperty(record, name, {
        value: joined,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      record[name] = joined;
    }
  }
  return record;
}

/**
 * The request head exactly as undici 7 writes it for a bodiless GET (see writeH1 in undici's client-h1.js):
 * request line, host, connection, then our headers. Used only when the head could not be captured from
 * undici's diagnostics channel.
 */
export function buildRequestHead(url: URL, requestHeaders: readonly string[]): Buffer {
  let head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
  for (let i = 0; i + 1 < requestHeaders.length; i += 2) {
    head += `${requestHeaders[i]}: ${requestHeaders[i + 1]}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/** The Set-Cookie headers of a response, each on its own (they cannot be joined: dates hold commas). */
export function setCookiesOf(rawHeaders: RawHeaderList): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as Buffer;
    if (name.length === 10 && name.toString('latin1').toLowerCase() === 'set-cookie') {
      out.push((rawHeaders[i + 1] as Buffer).toString('latin1'));
    }
  }
  return out;
}

/**
 * An HTTP/2 request's headers (undici's "name: value" lines, pseudo-headers first) in
 * HTTP/1.1 form: "GET path HTTP/1.1", Host from :authority, then the other headers.
 */
export function h2RequestHead(lines: string, path: string): Buffer {
  const pseudo = new Map<string, string>();
  const rest: string[] = [];
  for (const line of lines.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':', 1);
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (name.startsWith(':')) pseudo.set(name, value);
    else rest.push(`${name}: ${value}`);
  }
  const head = [
    `${pseudo.get(':method') ?? 'GET'} ${pseudo.get(':path') ?? path} HTTP/1.1`,
    `host: ${pseudo.get(':authority') ?? ''}`,
    ...rest,
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1');
}
