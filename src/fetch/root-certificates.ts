import { createRequire } from 'node:module';
import type { rootCertificates as RootCertificates } from 'node:tls';

/**
 * Node's root certificates followed by a --ca file's: `ca` replaces the roots in a TLS
 * handshake, so they are kept and the file's added. node:tls is loaded here, when a
 * --ca file asks for it, not at every start: loading it took 3.6 ms, and a crawl of
 * http:// pages never needs it (undici loads it at its first https:// connection).
 */
export function withNodeRoots(ca: readonly string[]): string[] {
  const { rootCertificates } = createRequire(import.meta.url)('node:tls') as {
    rootCertificates: typeof RootCertificates;
  };
  return [...rootCertificates, ...ca];
}
