import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { assetAt } from './assets.js';
import {
  pageIndexOfPath,
  type ResolvedWebOptions,
  resolveOptions,
  type SyntheticWebOptions,
} from './options.js';
import { allPageUrls, computeReachable } from './reach.js';
import { renderResolvedPage } from './render.js';

export type { SyntheticWebOptions } from './options.js';
export { pagePath, pageTitle, pageUrl } from './options.js';
export { renderPage } from './render.js';

export interface SyntheticSite {
  /** e.g. 'http://127.0.0.2:41234' */
  origin: string;
  /** The loopback address the site listens on, e.g. '127.0.0.2' (no port). */
  host: string;
}

export interface RequestLogEntry {
  /** Hostname from the Host header, port dropped, so it compares equal to SyntheticSite.host. */
  host: string;
  /** The request target as received, query included. */
  path: string;
  /** performance.timeOrigin + performance.now(): epoch milliseconds with sub-millisecond precision. */
  at: number;
}

export interface RunningWeb {
  sites: SyntheticSite[];
  /** Every request any site received, in arrival order. */
  requestLog: RequestLogEntry[];
  /** Every page URL of the web, canonical form (origin + path). */
  urlsOf(): string[];
  /** The page URLs reachable by following links from every site's '/', in BFS order, canonical form. */
  reachable(): string[];
  /**
   * Requests past the first `count` (over the web's whole life) get no answer until
   * release(): a test can stop a crawl part-way, however fast the machine is.
   */
  holdAfter(count: number): void;
  /** Answers the held requests and holds no more. */
  release(): void;
  close(): Promise<void>;
}

// Longer than undici's default so a benchmark never pays for reconnects between bursts.
const KEEP_ALIVE_MS = 30_000;

export async function startSyntheticWeb(options: SyntheticWebOptions): Promise<RunningWeb> {
  const opts = resolveOptions(options);
  const servers: Server[] = [];
  const sites: SyntheticSite[] = [];
  try {
    for (const host of opts.hosts) {
      const server = createServer();
      // HTTP persistent connections are on by default; this only keeps idle ones open longer.
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      servers.push(server);
      const port = await listen(server, host);
      sites.push({ origin: `http://${host}:${port}`, host });
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }

  const origins = sites.map((site) => site.origin);
  const requestLog: RequestLogEntry[] = [];
  let holdFrom = Number.POSITIVE_INFINITY;
  let held: (() => void)[] = [];
  // Handlers are attached only once every origin is known, because pages link across sites.
  servers.forEach((server, hostIndex) => {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      requestLog.push({
        host: hostnameOf(req.headers.host) ?? opts.hosts[hostIndex] ?? '',
        path: req.url ?? '',
        at: performance.timeOrigin + performance.now(),
      });
      const answer = () => respond(opts, origins, hostIndex, req, res);
      if (requestLog.length > holdFrom) held.push(answer);
      else answer();
    });
  });

  return {
    sites,
    requestLog,
    urlsOf: () => allPageUrls(opts, origins),
    reachable: () => computeReachable(opts, origins),
    holdAfter: (count) => {
      holdFrom = count;
    },
    release: () => {
      holdFrom = Number.POSITIVE_INFINITY;
      const answers = held;
      held = [];
      for (const answer of answers) answer();
    },
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

function respond(
  opts: ResolvedWebOptions,
  origins: readonly string[],
  hostIndex: number,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': '0' }).end();
    return;
  }
  const asset = assetAt(req.url ?? '');
  if (asset !== undefined) {
    res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length }).end(asset.body);
    return;
  }
  const pageIndex = pageIndexOfPath(req.url ?? '', opts.pagesPerHost);
  if (pageIndex === undefined) {
    const body = 'not found\n';
    res
      .writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length })
      .end(body);
    return;
  }
  const html = renderResolvedPage(opts, origins, hostIndex, pageIndex);
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(html),
    })
    .end(html);
}

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    // URL parsing handles IPv6 brackets and ports the same way a client builds the header.
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return hostHeader;
  }
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    // Idle keep-alive sockets would hold close() open for KEEP_ALIVE_MS.
    server.closeAllConnections();
  });
}
