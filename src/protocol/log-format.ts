/**
 * The log file of LOGDATA, READDATA and QUIT (`cobweb.log`): one JSON object per site per
 * line, UTF-8, each line ending in "\n". A site is a web server: an address and a port, with
 * every host name seen on it (docs/protocol.md, "The log file").
 */
import { ErrorCode, ProtocolError } from './errors.js';
import { array, freeObject, integer, nullableString, object, string, stringItem } from './fields.js';
import type { JsonObject } from './types.js';

export interface SiteLogLine {
  /** scheme://host[:port] of the first host name the site was reached by. */
  origin: string;
  /** Its IP address (IPv4 dotted or IPv6 text); null when it was never learned. */
  address: string | null;
  port: number;
  /** Host names seen on this address and port, the first one first. */
  hosts: string[];
  /** URLs visited on the site. */
  count: number;
  /** Directories visited ('/', '/docs/', ...), each ending in '/'. */
  directories: string[];
  /** Per module name: what its site hook found. */
  info: JsonObject;
}

/** One line of the log, with its newline. */
export function formatSiteLine(site: SiteLogLine): string {
  const { origin, address, port, hosts, count, directories, info } = site;
  return `${JSON.stringify({ origin, address, port, hosts, count, directories, info })}\n`;
}

/** Reads one line of a log (without or with its newline). Throws ProtocolError naming what is wrong. */
export function parseSiteLine(line: string): SiteLogLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new ProtocolError(ErrorCode.BAD_JSON, 'the log line is not JSON');
  }
  const o = object(parsed, 'site');
  const origin = string(o, 'origin', 'site', true);
  if (!/^https?:\/\/[^/?#]+$/.test(origin)) {
    throw new ProtocolError(ErrorCode.BAD_FIELD, `site.origin "${origin}" is not scheme://host[:port]`);
  }
  const port = integer(o, 'port', 'site', 1);
  if (port > 0xffff) throw new ProtocolError(ErrorCode.BAD_FIELD, `site.port ${port} is over 65535`);
  const hosts = array(o, 'hosts', 'site', stringItem);
  if (hosts.length === 0)
    throw new ProtocolError(ErrorCode.BAD_FIELD, 'site.hosts must name at least one host');
  const directories = array(o, 'directories', 'site', (v, w) => {
    const d = stringItem(v, w);
    if (!d.startsWith('/'))
      throw new ProtocolError(ErrorCode.BAD_FIELD, `${w} "${d}" does not start with "/"`);
    return d;
  });
  return {
    origin,
    address: nullableString(o, 'address', 'site'),
    port,
    hosts,
    count: integer(o, 'count', 'site'),
    directories,
    info: freeObject(o.info, 'site.info'),
  };
}
