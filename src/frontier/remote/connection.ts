import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { CobwebError } from '../../errors.js';
import {
  type Bodies,
  encodeMessage,
  type Message,
  MessageJoiner,
  type OurPacket,
  type OurPacketName,
  PacketDecoder,
  PROTOCOL_VERSION,
} from '../../protocol/index.js';
import { VERSION } from '../../version.js';
import { type Clock, Outage, RECONNECT, type ReconnectSettings, SYSTEM_CLOCK } from './reconnect.js';

export interface ConnectionOptions {
  host: string;
  port: number;
  /** Sent as AUTH, first, when given. */
  token?: string | undefined;
  /** The bunny's name in HELLO. */
  name: string;
  /** The crawl it works for, in HELLO (--crawl); the server's own crawl when absent. */
  crawl?: string | undefined;
  /** In HELLO: the modules whose page hooks this process runs of its own (its built-ins); none by default. */
  modules?: readonly string[] | undefined;
  /** In HELLO: this process loads the modules the server pushes (MODULE); true by default. */
  loadsModules?: boolean | undefined;
  /** How attempts to reach the server are spaced, and when one never reached is given up. */
  reconnect?: ReconnectSettings;
  /** Time for the reconnect loop (a test's own; the system's by default). */
  clock?: Clock;
  /** Where to say that the server went away, that it is still away, and that it is back. */
  log?: (line: string) => void;
  /** Aborted (Ctrl-C): no more attempts; what waits for the server fails. */
  signal?: AbortSignal;
}

/** What the server said in WELCOME. */
export type Welcome = Bodies['WELCOME'];

/** The server could not be reached, or refused us for good (a wrong token). */
export class ServerUnreachableError extends CobwebError {
  override name = 'ServerUnreachableError';
  readonly code = 'COBWEB_SERVER_UNREACHABLE';
}

/** Requests with a reply of their own, and the type of that reply. */
/** The requests whose reply is a packet of its own (REPLY_OF); the others are answered OK. */
interface ReplyNames {
  LEASE: 'LEASES';
  COMPLETE: 'COMPLETED';
  EXTEND: 'EXTENDED';
  ADD: 'ADDED';
  CLAIMSITE: 'CLAIMED';
  STATS: 'STATSREPLY';
  COOKIES: 'COOKIEJAR';
  ROBOTS: 'ROBOTSREPLY';
  SAVEROBOTS: 'ROBOTSREPLY';
  SEEDS: 'SEEDLIST';
}

type Reply<T extends OurPacketName> = T extends keyof ReplyNames ? Bodies[ReplyNames[T]] : Bodies['OK'];

interface Outstanding {
  type: OurPacketName;
  body: unknown;
  resolve: (body: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * A bunny's connection to a cobweb server: AUTH and HELLO, requests paired with their
 * replies by request id (a LEASE that waits at the server holds nothing else up), and
 * pushes (MODULE). When the server goes away it reconnects with capped back-off for as
 * long as it takes (reconnect.ts), says HELLO again, and sends every request still
 * unanswered once more: the server refuses, as stale, completions of leases it gave
 * back meanwhile, so nothing is stored twice.
 */
export class ServerConnection extends EventEmitter {
  private socket: Socket | null = null;
  /** The socket whose writes are held until the end of the tick (see send). */
  private corked: Socket | null = null;
  private decoder = new PacketDecoder({ from: 'server' });
  private joiner = new MessageJoiner();
  private readonly outstanding = new Map<number, Outstanding>();
  private nextId = 1;
  private welcome: Welcome | null = null;
  private ready: Promise<Welcome> | null = null;
  private closed = false;
  private fatal: Error | null = null;

  constructor(private readonly options: ConnectionOptions) {
    super();
  }

  /** Connects (or waits for the connection under way) and answers WELCOME. */
  open(): Promise<Welcome> {
    if (this.fatal !== null) return Promise.reject(this.fatal);
    this.ready ??= this.establish(false);
    return this.ready;
  }

  get crawlerId(): string | null {
    return this.welcome?.crawlerId ?? null;
  }

  async request<T extends OurPacketName>(type: T, body: Bodies[T]): Promise<Reply<T>> {
    await this.open();
    return new Promise((resolve, reject) => {
      const id = this.takeId();
      this.outstanding.set(id, { type, body, resolve: resolve as (b: unknown) => void, reject });
      this.send(type, id, body);
    });
  }

  /** A request whose reply nobody waits for (request id 0); lost if the connection is down. */
  tell<T extends OurPacketName>(type: T, body: Bodies[T]): void {
    if (this.socket !== null && this.welcome !== null) this.send(type, 0, body);
  }

  /** Says LEAVE (the server gives this crawler's leases back and answers), then closes. */
  async leave(): Promise<void> {
    if (this.socket !== null && this.welcome !== null) {
      await this.request('LEAVE', {}).catch(() => {});
    }
    this.close();
  }

  close(): void {
    this.closed = true;
    this.socket?.end();
    this.socket?.destroy();
    this.socket = null;
    const err = new ServerUnreachableError('the connection to the server was closed');
    for (const o of this.outstanding.values()) o.reject(err);
    this.outstanding.clear();
  }

  /** Connects, trying again until WELCOME; `welcomedBefore`: the server went away and is waited for. */
  private async establish(welcomedBefore: boolean): Promise<Welcome> {
    const { host, port, signal } = this.options;
    const clock = this.options.clock ?? SYSTEM_CLOCK;
    const outage = new Outage(this.options.reconnect ?? RECONNECT, welcomedBefore, `${host}:${port}`, clock);
    for (;;) {
      if (this.closed) throw new ServerUnreachableError('the connection to the server was closed');
      if (signal?.aborted === true) {
        throw new ServerUnreachableError(
          `stopped while trying to reach the cobweb server at ${host}:${port}`,
        );
      }
      try {
        const welcome = await this.connectOnce();
        const back = outage.back();
        if (back !== null) this.options.log?.(back);
        return welcome;
      } catch (err) {
        if (this.fatal !== null) throw this.fatal;
        const why = err instanceof Error ? err.message : String(err);
        const next = outage.failed(why);
        if (next.say !== null) this.options.log?.(next.say);
        if (next.waitMs === null) {
          this.fatal = new ServerUnreachableError(
            `cannot reach the cobweb server at ${host}:${port} (${why}); is it running?`,
          );
          throw this.fatal;
        }
        await clock.sleep(next.waitMs, signal);
      }
    }
  }

  private connectOnce(): Promise<Welcome> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.options.host, port: this.options.port });
      socket.setNoDelay(true);
      this.decoder = new PacketDecoder({ from: 'server' });
      this.joiner = new MessageJoiner();
      // settled: this attempt's promise is decided; welcomed: it got as far as WELCOME.
      // Only a connection that was welcomed reconnects when it closes: a failed attempt
      // belongs to the establish() loop that made it, which tries again by itself.
      let settled = false;
      let welcomed = false;
      const helloId = this.takeId();
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        reject(err);
      };
      socket.once('connect', () => {
        this.socket = socket;
        if (this.options.token !== undefined && this.options.token !== '')
          this.send('AUTH', 0, { token: this.options.token });
        this.send('HELLO', helloId, {
          name: this.options.name,
          protocol: PROTOCOL_VERSION,
          version: VERSION,
          ...(this.options.crawl === undefined ? {} : { crawl: this.options.crawl }),
          modules: [...(this.options.modules ?? [])],
          loadsModules: this.options.loadsModules ?? true,
        });
      });
      socket.on('data', (chunk) => {
        const { packets, sizes, error } = this.decoder.push(chunk);
        for (const [i, p] of packets.entries()) {
          let m: Message | null;
          try {
            m = this.joiner.push(p, sizes[i]);
          } catch (err) {
            fail(err as Error);
            return;
          }
          if (m === null) continue;
          if (!settled && m.type === 'WELCOME' && m.requestId === helloId) {
            settled = true;
            welcomed = true;
            this.welcome = m.body;
            resolve(m.body);
            this.resendOutstanding();
            continue;
          }
          if (!settled && m.type === 'ERROR') {
            const body = m.body as Bodies['ERROR'];
            // A wrong token or protocol will not get better by trying again.
            if (body.code === 201 || body.code === 200 || body.code === 205) {
              this.fatal = new ServerUnreachableError(`the cobweb server refused us: ${body.message}`);
            }
            fail(new Error(body.message));
            return;
          }
          this.deliver(m);
        }
        if (error !== null) socket.destroy(error);
      });
      socket.once('error', (err) => fail(err));
      socket.once('close', () => {
        if (!welcomed) {
          fail(new Error('the server closed the connection'));
          return;
        }
        if (this.socket === socket) this.socket = null;
        this.welcome = null;
        if (this.closed) return;
        // Gone: reconnect, and everything unanswered is sent again once HELLO is done.
        this.ready = this.establish(true);
        this.ready.then(
          (w) => this.emit('reconnected', w),
          (err: Error) => {
            for (const o of this.outstanding.values()) o.reject(err);
            this.outstanding.clear();
          },
        );
      });
    });
  }

  private deliver(m: Message): void {
    if (m.type === 'MODULE') {
      this.emit('module', m.body);
      return;
    }
    if (!('requestId' in m)) return;
    const o = this.outstanding.get(m.requestId);
    if (o === undefined) return;
    this.outstanding.delete(m.requestId);
    if (m.type === 'ERROR') {
      const body = m.body as Bodies['ERROR'];
      o.reject(new Error(`the server refused ${o.type}: ${body.message} (${body.code})`));
    } else {
      o.resolve(m.body);
    }
  }

  private resendOutstanding(): void {
    for (const [id, o] of this.outstanding) this.send(o.type, id, o.body as Bodies[typeof o.type]);
  }

  private send<T extends OurPacketName>(type: T, requestId: number, body: Bodies[T]): void {
    const socket = this.socket;
    if (socket === null) return; // resent after the reconnect
    // The type and its body match by construction (Bodies[T]); the union cannot see it.
    const packet = { type, requestId, more: false, body } as unknown as OurPacket;
    // The requests of one tick leave in one write (a RELEASE and the LEASE after it, a
    // COMPLETE and its ACK): one system call, one wake-up of the server.
    if (this.corked !== socket) {
      this.corked = socket;
      socket.cork();
      process.nextTick(() => {
        this.corked = null;
        socket.uncork();
      });
    }
    for (const frame of encodeMessage(packet)) socket.write(frame);
  }

  private takeId(): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xffff_fffe ? 1 : this.nextId + 1;
    return id;
  }
}
