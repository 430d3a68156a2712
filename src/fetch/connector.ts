import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';

export interface ConnectorOptions {
  connectTimeoutMs: number;
  /** 'hostname:port' -> IP address to dial instead (curl --resolve). */
  resolve?: ReadonlyMap<string, string>;
  /**
   * Name resolution for every hostname not in `resolve`; defaults to node's dns.lookup. This is where a DNS
   * cache or a private-range check belongs. It is not called for IP literals (node skips it), so a mapped
   * address from `resolve` must be vetted where the map is built.
   */
  lookup?: LookupFunction;
}

export type Connector = buildConnector.connector;

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** Normalizes keys once so that a lookup per connection is a single Map.get (URL hostnames are lowercase). */
function normalizeResolveMap(resolve: ReadonlyMap<string, string>): Map<string, string> {
  const normalized = new Map<string, string>();
  for (const [hostAndPort, address] of resolve) normalized.set(hostAndPort.toLowerCase(), address);
  return normalized;
}

/**
 * The connect function handed to undici: undici's own connector (TCP or TLS, connect timeout, TLS session
 * cache), wrapped so that a `hostname:port` found in the resolve map is dialled at the mapped address.
 * Only the dialled address changes: the Host header comes from the URL, and the TLS servername stays the
 * URL's hostname so that SNI and the certificate check are about the site, not the IP.
 */
export function createConnector(options: ConnectorOptions): Connector {
  const connect = buildConnector(
    options.lookup === undefined
      ? { timeout: options.connectTimeoutMs }
      : { timeout: options.connectTimeoutMs, lookup: options.lookup },
  );
  if (options.resolve === undefined || options.resolve.size === 0) return connect;
  const resolve = normalizeResolveMap(options.resolve);

  return (target, callback) => {
    const port = target.port || defaultPort(target.protocol);
    const address = resolve.get(`${target.hostname}:${port}`);
    if (address === undefined) {
      connect(target, callback);
      return;
    }
    const servername = target.servername || (isIP(target.hostname) === 0 ? target.hostname : undefined);
    connect({ ...target, hostname: address, servername }, callback);
  };
}
