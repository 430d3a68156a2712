import { once } from 'node:events';
import { BlockList, createServer, isIP, type Server, type Socket } from 'node:net';
import type { BunnyView } from '../console/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { EventLog } from '../output/crawl-log.js';
import { ErrorCode, MAX_SPLIT_BYTES } from '../protocol/index.js';
import { Control } from './control.js';
import type { ServerCrawls } from './crawls.js';
import { peerOf, Session, type SessionLimits } from './session.js';
import { Traffic } from './traffic.js';

export interface ServerOptions {
  host: string;
  port: number;
  crawls: ServerCrawls;
  modules: ModuleHost;
  modulesDir: string | null;
  token: string;
  /**
   * Every packet needs the token, also on loopback. It always does on any other address
   * (isLoopback): this can only ask for more.
   */
  tokenOnEveryPacket?: boolean;
  limits: SessionLimits;
  maxConnections: number;
  /** Called once the server stopped on QUIT. */
  onQuit?: () => void;
  /** Hears each connection opened and closed. */
  log?: EventLog;
}

export const DEFAULT_LIMITS: SessionLimits = {
  idleMs: 5 * 60_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  maxOutstanding: 256,
  // One message of the most packets a connection may send (256 x 64 KiB), half received:
  // what any bunny needs, and all one connection can make the server hold.
  maxSplitBytes: MAX_SPLIT_BYTES,
};

/**
 * `cobweb server`: the crawl's store behind the packet protocol. Bunnies lease, fetch
 * and complete over it; the control commands steer it. It listens on loopback unless
 * told otherwise, and then every packet needs the token.
 */
export class CobwebServer {
  private readonly sessions = new Set<Session>();
  private readonly bunnies = new Set<Session>();
  /** What passed over the connections: packets by type, bytes, errors sent. */
  readonly traffic = new Traffic();
  private readonly control: Control;
  private stopping: Promise<void> | null = null;

  private constructor(
    private readonly server: Server,
    private readonly options: ServerOptions,
  ) {
    this.control = new Control({
      crawls: options.crawls,
      modules: options.modules,
      modulesDir: options.modulesDir,
      bunnies: this.bunnies,
      stop: async () => {
        await this.stop();
        options.onQuit?.();
      },
    });
    server.on('connection', (socket: Socket) => this.accept(socket));
  }

  static async start(options: ServerOptions): Promise<CobwebServer> {
    const server = createServer();
    const s = new CobwebServer(server, options);
    server.listen(options.port, options.host);
    await once(server, 'listening');
    return s;
  }

  /** Where it listens (the port is known once listening, also for port 0). */
  get address(): { host: string; port: number } {
    const a = this.server.address();
    if (a === null || typeof a === 'string') return { host: this.options.host, port: this.options.port };
    return { host: a.address, port: a.port };
  }

  get connections(): number {
    return this.sessions.size;
  }

  /** Connections that said HELLO: the bunnies crawling now. */
  get bunniesConnected(): number {
    return this.bunnies.size;
  }

  /** The bunnies connected, with their counts (for the console). */
  bunnyViews(): BunnyView[] {
    const views: BunnyView[] = [];
    for (const s of this.bunnies) {
      const v = s.bunny;
      if (v !== null) views.push(v);
    }
    return views;
  }

  /** cobweb.log of every crawl, as QUIT writes them. */
  writeLog(): Promise<void> {
    return this.control.writeLog();
  }

  /** Stops: every connection gets SHUTTING_DOWN, and no new one is taken. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.server.close();
      for (const s of this.sessions) s.close(ErrorCode.SHUTTING_DOWN, 'the server is stopping');
      await once(this.server, 'close').catch(() => {});
    })();
    return this.stopping;
  }

  private accept(socket: Socket): void {
    if (this.stopping !== null) {
      socket.destroy();
      return;
    }
    const session = new Session(socket, {
      crawls: this.options.crawls,
      token: this.options.token,
      tokenEverywhere: this.options.tokenOnEveryPacket === true || !isLoopback(this.options.host),
      limits: this.options.limits,
      bunnies: this.bunnies,
      traffic: this.traffic,
      moduleSources: () => this.control.loaded,
      control: this.control,
    });
    this.sessions.add(session);
    this.traffic.connections++;
    const from = peerOf(socket);
    // Debug: every show and modstat is a connection, and a bunny says itself when it joins.
    this.options.log?.(`connection from ${from}`, 'debug', { event: 'connection', from, state: 'open' });
    socket.on('close', () => {
      this.sessions.delete(session);
      this.options.log?.(`connection from ${from} closed`, 'debug', {
        event: 'connection',
        from,
        state: 'closed',
      });
    });
    if (this.sessions.size > this.options.maxConnections) {
      session.close(
        ErrorCode.TOO_MANY_CONNECTIONS,
        `the server takes at most ${this.options.maxConnections} connections`,
      );
    }
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * 127.0.0.0/8 (also as ::ffff:127.x.x.x), ::1 however it is spelled, and localhost: only
 * this machine can connect. Anything else (0.0.0.0, ::, a host name) is not.
 */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}
