/**
 * URLs in the original packets. Those carry no scheme and no whole URL, only (addr, port,
 * host, path): port 443 means https and any other port http; addr 0.0.0.0 means the address
 * is not resolved. So only some URLs can travel in them (docs/protocol.md, "URLs in the
 * original packets"); the rest go to clients that speak LEASE.
 */
import { isDottedIPv4 } from './bytes.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { MAX_PACKET, type OriginalTarget } from './types.js';

export const UNRESOLVED = '0.0.0.0';

function badUrl(message: string): never {
  throw new ProtocolError(ErrorCode.BAD_URL, message);
}

/** Whether `text` has a control character (or, with `space`, a space). */
function hasControl(text: string, space: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (space && c === 0x20)) return true;
  }
  return false;
}

// A host in an original packet is a bare name or IPv4 address: none of these may appear.
const NOT_IN_HOST = /[/\\?#@:[\]%]/;

/**
 * The URL an original packet means, and the address it carries (null when 0.0.0.0).
 * Throws BAD_URL when the host and path cannot make one.
 */
export function urlFromOriginal(target: OriginalTarget): { url: string; address: string | null } {
  const { addr, port, host, path } = target;
  if (host.length === 0) badUrl('the host is empty');
  if (NOT_IN_HOST.test(host) || hasControl(host, true))
    badUrl(`the host "${host}" has a character a host name cannot have`);
  if (!path.startsWith('/')) badUrl(`the path "${path}" does not start with "/"`);
  if (hasControl(path, false)) badUrl('the path has a control character');
  if (!Number.isInteger(port) || port < 1 || port > 0xffff) badUrl(`port ${port} is not from 1 to 65535`);
  if (!isDottedIPv4(addr)) badUrl(`addr "${addr}" is not a dotted IPv4 address`);
  const scheme = port === 443 ? 'https' : 'http';
  const authority = port === 443 || port === 80 ? host : `${host}:${port}`;
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}${path}`);
  } catch {
    badUrl(`"${host}" and "${path}" do not make a URL`);
  }
  return { url: url.href, address: addr === UNRESOLVED ? null : addr };
}

/**
 * What an original packet carries for `url`: https only on port 443, http on any port but 443,
 * a host name or IPv4 address (no IPv6), no user name or password; the fragment is dropped.
 * `address` (if a dotted IPv4 address) fills addr; else an IPv4 host does; else 0.0.0.0.
 * Throws BAD_URL naming what the original packets cannot say.
 */
export function originalFromUrl(url: string, address?: string | null): OriginalTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    badUrl(`"${url}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    badUrl(`${url}: the original packets carry only http and https URLs`);
  }
  if (u.username !== '' || u.password !== '') {
    badUrl(`${url}: the original packets cannot carry a user name or password`);
  }
  if (u.hostname.startsWith('[')) badUrl(`${url}: the original packets cannot carry an IPv6 host`);
  const https = u.protocol === 'https:';
  const port = u.port === '' ? (https ? 443 : 80) : Number(u.port);
  if (https && port !== 443) {
    badUrl(
      `${url}: https on port ${port} cannot be said (in the original packets only port 443 means https)`,
    );
  }
  if (!https && port === 443) {
    badUrl(`${url}: http on port 443 cannot be said (in the original packets port 443 means https)`);
  }
  const host = u.hostname;
  const path = `${u.pathname}${u.search}`;
  // ENQUEUE and STOREURL are the longest packets that carry a target: 11 bytes besides the strings.
  if (11 + Buffer.byteLength(host) + Buffer.byteLength(path) > MAX_PACKET) {
    badUrl(`${url.slice(0, 80)}...: too long for one packet`);
  }
  const addr = address != null && isDottedIPv4(address) ? address : isDottedIPv4(host) ? host : UNRESOLVED;
  return { addr, port, host, path };
}
