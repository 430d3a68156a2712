import { isIP, type LookupFunction } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { privateAddressError } from './errors.js';
import { systemLookup } from './node-dns.js';
import { type ResolveLookup, resolveLookupOf } from './resolve-map.js';
import { withNodeRoots } from './root-certificates.js';
import type { AddressPolicy } from './types.js';
import { buildConnector } from './undici-parts.js';

export interface ConnectorOptions {
  connectTimeoutMs: number;
  /** 'hostname:port' (or '*.suffix:port', see resolve-map.ts) -> IP address to dial instead (curl --resolve). */
  resolve?: ReadonlyMap<string, string>;
  /**
   * Name resolution for every hostname not in `resolve`; defaults to node's dns.lookup. The fetcher passes
   * its DnsCache's. It is not called for IP literals (node skips it).
   */
  lookup?: LookupFunction;
  /** Vets each address before it is dialled, IP literals and `resolve` targets included. Default: all allowed. */
  addressPolicy?: AddressPolicy;
  /** Offer HTTP/2 in the TLS handshake (ALPN); a server that picks it gets HTTP/2. */
  allowH2?: boolean;
  /** CA certificates (PEM) trusted besides Node's own; certificates are verified either way. */
  ca?: readonly string[];
}

/** The TLS options every connection of the fetcher uses: HTTP/2 offered or not, the CAs trusted. */
export function tlsOptionsOf(options: Pick<ConnectorOptions, 'allowH2' | 'ca'>): {
  allowH2?: boolean;
  ca?: string[];
} {
  return {
    ...(options.allowH2 === true ? { allowH2: true } : {}),
    // `ca` replaces Node's roots in a TLS handshake: they are kept, the file's are added.
    ...(options.ca === undefined ? {} : { ca: withNodeRoots(options.ca) }),
  };
}

export type Connector = BuildConnector.connector;

export function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/**
 * Wraps a lookup so that only addresses the policy allows come out of it. node dials exactly what the lookup
 * returns, so the address checked is the address connected to: a name that resolves to a private address, or
 * a DNS answer that changes between a check and the connection (rebinding), cannot slip through.
 */
function vettedLookup(lookup: LookupFunction, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    // Always asks for every address, so that one refused address does not hide an allowed one.
    lookup(hostname, { ...options, all: true }, (error, found, family) => {
      if (error !== null || typeof found === 'string') {
        callback(error, found, family);
        return;
      }
      const allowed = found.filter((entry) => policy(entry.address, hostname));
      const first = allowed[0];
      if (first === undefined) callback(privateAddressError(found[0]?.address ?? '', hostname), '', 0);
      else if (options.all === true) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/** How a connection finds its address: the resolve map, then the (vetted) lookup. */
interface Dialling {
  policy: AddressPolicy | undefined;
  lookup: LookupFunction | undefined;
  resolve: ResolveLookup | null;
}

function diallingOf(options: ConnectorOptions): Dialling {
  const policy = options.addressPolicy;
  return {
    policy,
    lookup: policy === undefined ? options.lookup : vettedLookup(options.lookup ?? systemLookup, policy),
    resolve: resolveLookupOf(options.resolve),
  };
}

/**
 * The address a connection to `hostname:port` would dial first, by the same rules as
 * createConnector: the resolve map, an IP literal, or the lookup's first address the
 * policy allows. null when there is none (the name does not resolve, or the policy
 * refuses every address): the connection would fail.
 */
export function createDialledAddress(
  options: ConnectorOptions,
): (hostname: string, port: string) => Promise<string | null> {
  const { policy, lookup, resolve } = diallingOf(options);
  return (hostname, port) => {
    const mapped = resolve?.(hostname, port);
    const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const literal = isIP(bare) !== 0 ? bare : undefined;
    const fixed = mapped ?? literal;
    if (fixed !== undefined) {
      return Promise.resolve(policy === undefined || policy(fixed, hostname) ? fixed : null);
    }
    return new Promise((resolved) => {
      (lookup ?? systemLookup)(hostname, {}, (error, address) => {
        resolved(error === null && typeof address === 'string' && address !== '' ? address : null);
      });
    });
  };
}

/**
 * Whether a request to `hostname:port` may be sent through a proxy, which dials the
 * target itself: 'refused' when the policy refuses every address it resolves to (or the
 * resolve map's, or the IP literal), 'unresolved' when it does not resolve here (the
 * proxy may know it: a company's proxy resolving outside names), else 'allowed'.
 */
export function createTargetCheck(
  options: ConnectorOptions,
): (
  hostname: string,
  port: string,
) => Promise<{ verdict: 'allowed' | 'refused' | 'unresolved'; address: string }> {
  const { policy, resolve } = diallingOf(options);
  const lookup = options.lookup ?? systemLookup;
  return (hostname, port) => {
    const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const fixed = resolve?.(hostname, port) ?? (isIP(bare) !== 0 ? bare : undefined);
    if (policy === undefined) return Promise.resolve({ verdict: 'allowed', address: fixed ?? '' });
    if (fixed !== undefined) {
      return Promise.resolve({ verdict: policy(fixed, hostname) ? 'allowed' : 'refused', address: fixed });
    }
    return new Promise((done) => {
      lookup(hostname, { all: true }, (error, found) => {
        if (error !== null || typeof found === 'string' || found.length === 0) {
          done({ verdict: 'unresolved', address: '' });
          return;
        }
        const allowed = found.find((a) => policy(a.address, hostname));
        done(
          allowed === undefined
            ? { verdict: 'refused', address: found[0]?.address ?? '' }
            : { verdict: 'allowed', address: allowed.address },
        );
      });
    });
  };
}

/**
 * The connect function handed to undici: undici's own connector (TCP or TLS, connect timeout, TLS session
 * cache), wrapped so that a `hostname:port` found in the resolve map is dialled at the mapped address.
 * Only the dialled address changes: the Host header comes from the URL, and the TLS servername stays the
 * URL's hostname so that SNI and the certificate check are about the site, not the IP. With an address
 * policy, every address is vetted before it is dialled; a refusal fails the connect with 'private-address'.
 */
export function createConnector(options: ConnectorOptions): Connector {
  const { policy, lookup, resolve } = diallingOf(options);
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    ...tlsOptionsOf(options),
    ...(lookup === undefined ? {} : { lookup }),
  });
  if (resolve === null && policy === undefined) return connect;

  return (target, callback) => {
    const port = target.port || defaultPort(target.protocol);
    const address = resolve?.(target.hostname, port);
    const dialled = address ?? target.hostname;
    // node does not call the lookup for an IP literal, so the vetted lookup never sees these: check here.
    if (policy !== undefined && isIP(dialled) !== 0 && !policy(dialled, target.hostname)) {
      // Asynchronously, as a socket error would be: undici is inside its connect() here.
      const refusal = privateAddressError(dialled, target.hostname);
      process.nextTick(() => callback(refusal, null));
      return;
    }
    if (address === undefined) {
      connect(target, callback);
      return;
    }
    const servername = target.servername || (isIP(target.hostname) === 0 ? target.hostname : undefined);
    connect({ ...target, hostname: address, servername }, callback);
  };
}
