import { isIP } from 'node:net';
import type {
  buildConnector as BuildConnector,
  Dispatcher,
  Agent as UndiciAgent,
  ProxyAgent as UndiciProxyAgent,
} from 'undici';
import { withNodeRoots } from './root-certificates.js';
import { Agent, buildConnector, Pool, proxyAgentClass } from './undici-parts.js';

/** How the fetcher's requests reach their proxies. */
export interface ProxyAgentsOptions {
  /** The fetcher's agent options (pool sizes, timeouts); HTTP/2 is never offered to a proxy. */
  agent: UndiciAgent.Options;
  connectTimeoutMs: number;
  /** The CAs trusted for the sites behind the proxy (Node's own and --ca-file's), when --ca-file is given. */
  targetCa: readonly string[] | undefined;
  /** PEM CA certificates trusted for an https:// proxy besides Node's own (--proxy-ca-file). */
  proxyCa: readonly string[] | undefined;
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
 * tunnel (undici's ProxyAgent), TLS to the proxy first for an https:// proxy, then TLS
 * to the site inside it, so the site's certificate is checked here.
 */
export class ProxyAgents {
  readonly #forwarding = new Map<string, InstanceType<typeof Agent>>();
  readonly #tunnels = new Map<string, UndiciProxyAgent>();

  constructor(private readonly o: ProxyAgentsOptions) {}

  async route(proxy: string, target: URL): Promise<ProxyRoute> {
    const p = new URL(proxy);
    const path = target.pathname + target.search;
    if (target.protocol === 'https:') {
      return { dispatcher: await this.#tunnel(proxy, p), origin: target.origin, path, headers: [] };
    }
    const login =
      p.username === '' && p.password === ''
        ? []
        : [
            'proxy-authorization',
            `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString('base64')}`,
          ];
    return {
      dispatcher: this.#forwarder(p),
      origin: p.origin,
      path: target.origin + path,
      // undici would name the proxy in Host: the site's own goes instead.
      headers: ['host', target.host, ...login],
    };
  }

  close(): Promise<unknown> {
    return Promise.all([...this.#forwarding.values(), ...this.#tunnels.values()].map((a) => a.close()));
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

  async #tunnel(proxy: string, p: URL): Promise<UndiciProxyAgent> {
    const ProxyAgent = await proxyAgentClass();
    let agent = this.#tunnels.get(proxy);
    if (agent === undefined) {
      agent = new ProxyAgent({
        uri: proxy,
        ...this.o.agent,
        connectTimeout: this.o.connectTimeoutMs,
        proxyTls: this.#proxyTls(p),
        // Its own connection to the proxy, but with ours, which sends no IP address as the TLS server name.
        clientFactory: (origin: URL, options: object) =>
          new Pool(origin, { ...options, connect: proxyConnector(this.#proxyTls(p)) }),
        requestTls: this.o.targetCa === undefined ? {} : { ca: [...this.o.targetCa] },
      } as UndiciProxyAgent.Options);
      this.#tunnels.set(proxy, agent);
    }
    return agent;
  }
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
