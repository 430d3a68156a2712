import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector, Dispatcher, Pool as UndiciPool } from 'undici';
import { defaultPort } from './connector.js';
import { buildConnector } from './undici-parts.js';

/** How a tunnel reaches its site through one proxy. */
export interface TunnelSettings {
  /** The pool of connections to the proxy; each CONNECT takes one and keeps it as the tunnel. */
  proxy: Pick<UndiciPool, 'connect'>;
  /** Headers of every CONNECT (the proxy's login). */
  headers: Readonly<Record<string, string>>;
  /**
   * The proxy's URL. Its host name is the TLS server name of a connection to an https://
   * proxy: undici would otherwise take the CONNECT's Host, the site's name, and check the
   * proxy's certificate against it.
   */
  proxyUrl: URL;
  /** TLS options for the site inside the tunnel (the CAs trusted for it). */
  siteTls: { ca?: string[] };
}

/**
 * A connector that dials a site through a proxy's CONNECT tunnel, TLS to the site inside
 * it for https://, so the site's certificate is checked here. It is what undici's
 * ProxyAgent does in its own Agent, whose pools keep every site's tunnel for as long as
 * the site's Keep-Alive allows: one socket per site seen, unbounded over a crawl of many
 * hosts. As a connector, it goes under the fetcher's OriginPools, which bound the open
 * connections across all sites, tunnels included.
 */
export function tunnelConnector(settings: TunnelSettings): BuildConnector.connector {
  const toSite = buildConnector({ ...settings.siteTls });
  return (options, callback) => {
    const authority =
      options.port === '' || options.port === undefined
        ? `${options.hostname}:${defaultPort(options.protocol)}`
        : `${options.hostname}:${options.port}`;
    // servername is read by undici's requests but missing from the type of connect()'s options.
    const request: Dispatcher.ConnectOptions & { servername: string } = {
      origin: settings.proxyUrl.origin,
      path: authority,
      servername: settings.proxyUrl.hostname,
      headers: { ...settings.headers, host: authority, 'proxy-connection': 'keep-alive' },
    };
    settings.proxy.connect(request).then(
      ({ socket: duplex, statusCode }) => {
        // Typed as a Duplex; undici hands over the connection's own socket (TCP, or TLS to an https:// proxy).
        const socket = duplex as Socket;
        if (statusCode !== 200) {
          socket.on('error', () => {}).destroy();
          callback(new Error(`the proxy answered ${statusCode} to CONNECT ${authority}`), null);
          return;
        }
        if (options.protocol !== 'https:') {
          callback(null, socket);
          return;
        }
        toSite({ ...options, httpSocket: socket }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}
