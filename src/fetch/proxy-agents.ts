import { isIP } from 'node:net';
import type { buildConnector as BuildConnector, Dispatcher, Agent as UndiciAgent } from 'undici';
import { OriginPools } from './origin-pools.js';
import { tunnelConnector } from './proxy-tunnels.js';
import { withNodeRoots } from './root-certificates.js';
import { Agent, buildConnector, Pool, withConnectApi } from './undici-parts.js';

/** How the fetcher's requests reach their proxies. */
export interface ProxyAgentsOptions {
  /** The fetcher's agent options (pool sizes, timeouts); HTTP/2 is never offered to a proxy. */
  agent: UndiciAgent.Options;
  connectTimeoutMs: number;
  /** The CAs trusted for the sites behind the proxy (Node's own and --ca-file's), when --ca-file is given. */
  targetCa: readonly string[] | undefined;
  /** PEM CA certificates trusted for an https:// proxy besides Node's own (--proxy-ca-file). */
  proxyCa: readonly string[] | undefined;
  /** Tunnels kept open at once across all sites of one proxy, as the direct connections are bounded. */
  maxOpenConnections: number;
}

/** Where undici is to send one request: the dispatcher, the origin and path it is given, extra headers. */
export interface ProxyRoute {
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  origin: string;
  path: string;
  /** Name/value pairs added to the request's own. */
  headers: readonly string[];
}

/**
 * The dispatchers of the fetcher's proxies, made at each proxy's first request. An
 * http:// URL goes to its proxy as an absolute-form request (`GET http://site/path`),
 * over TLS when the proxy is an https:// one; an https:// URL goes through a CONNECT
 * tunnel (proxy-tunnels.ts), TLS to the proxy first for an https:// proxy, then TLS to
 * the site inside it, so the site's certificate is checked here. A tunnel is a site's
 * keep-alive connection: the open ones are bounded across sites as direct ones are.
 */
export class ProxyAgents {
  readonly #forwarding = new Map<string, InstanceType<typeof Agent>>();
  readonly #tunnels = new Map<string, OriginPools>();
  /** The pools to the proxies that tunnels are opened through. */
  readonly #closers: Array<() => Promise<void>> = [];

  constructor(private readonly o: ProxyAgentsOptions) {}

  async route(proxy: string, target: URL): Promise<ProxyRoute> {
    const p = new URL(proxy);
    const path = target.pathname + target.search;
    if (target.protocol === 'https:') {
      return { dispatcher: await this.#tunnel(proxy, p), origin: target.origin, path, headers: [] };
    }
    const login = Object.entries(loginOf(p)).flat();
    return {
      dispatcher: this.#forwarder(p),
      origin: p.origin,
      path: target.origin + path,
      // undici would name the proxy in Host: the site's own goes instead.
      headers: ['host', target.host, ...login],
    };
  }

  async close(): Promise<void> {
    // The tunnels first: closing the pools to the proxies does not end tunnels already taken from them.
    await Promise.all([...this.#forwarding.values(), ...this.#tunnels.values()].map((a) => a.close()));
    await Promise.all(this.#closers.map((close) => close()));
  }

  /** TLS options for the connection to an https:// proxy. */
  #proxyTls(p: URL): { ca?: string[]; timeout: number } {
    const ca = p.protocol === 'https:' && this.o.proxyCa !== undefined ? this.o.proxyCa : undefined;
    // `ca` replaces Node's roots in a handshake: they are kept, the file's are added.
    return {
      timeout: this.o.connectTimeoutMs,
      ...(ca === undefined ? {} : { ca: withNodeRoots(ca) }),
    };
  }

  #forwarder(p: URL): InstanceType<typeof Agent> {
    let agent = this.#forwarding.get(p.origin);
    if (agent === undefined) {
      const { allowH2: _, connections: __, ...options } = this.o.agent;
      // Every http:// site shares the proxy's one origin: no per-origin cap here, --concurrency bounds it.
      agent = new Agent({ ...options, connect: proxyConnector(this.#proxyTls(p)) });
      this.#forwarding.set(p.origin, agent);
    }
    return agent;
  }

  async #tunnel(proxy: string, p: URL): Promise<OriginPools> {
    await withConnectApi();
    let tunnels = this.#tunnels.get(proxy);
    if (tunnels === undefined) {
      const { allowH2: _, connections: __, ...options } = this.o.agent;
      // A CONNECT takes a connection to the proxy and keeps it as the tunnel: no cap here,
      // --concurrency bounds the tunnels being opened.
      const toProxy = new Pool(p.origin, { ...options, connect: proxyConnector(this.#proxyTls(p)) });
      const connect = tunnelConnector({
        proxy: toProxy,
        headers: loginOf(p),
        proxyUrl: p,
        siteTls: this.o.targetCa === undefined ? {} : { ca: [...this.o.targetCa] },
      });
      tunnels = new OriginPools({
        pool: { ...this.o.agent, connectTimeout: this.o.connectTimeoutMs, connect },
        maxOpenConnections: this.o.maxOpenConnections,
      });
      this.#closers.push(() => toProxy.close());
      this.#tunnels.set(proxy, tunnels);
    }
    return tunnels;
  }
}

/** The proxy's login, from the user and password of its URL, as a Proxy-Authorization header. */
function loginOf(p: URL): Record<string, string> {
  if (p.username === '' && p.password === '') return {};
  const pair = `${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
}

/**
 * Connections to a proxy. A proxy named by its IP address gets no TLS server name (SNI
 * is for host names; Node warns when given an address), and its certificate is checked
 * against the address.
 */
function proxyConnector(tls: { ca?: string[]; timeout: number }): BuildConnector.connector {
  const connect = buildConnector(tls);
  return (options, callback) => {
    const { servername } = options;
    connect(
      servername !== undefined && isIP(servername) !== 0 ? { ...options, servername: '' } : options,
      callback,
    );
  };
}
