import type { Socket } from 'node:net';
import { tokenMatches } from '../console/token.js';
import type { BunnyView } from '../console/types.js';
import { CobwebError } from '../errors.js';
import { leaseFromWire } from '../frontier/remote/wire.js';
import type { CrawlerId, Lease } from '../frontier/types.js';
import {
  type Bodies,
  ErrorCode,
  encode,
  encodeMessage,
  errorCodeName,
  type Message,
  MessageJoiner,
  type OriginalTarget,
  type OurPacket,
  type OurPacketName,
  originalFromUrl,
  PacketDecoder,
  PROTOCOL_VERSION,
  ProtocolError,
  textAnswerBytes,
  urlFromOriginal,
} from '../protocol/index.js';
import { canonicalize } from '../url/canonicalize.js';
import type { CrawlService } from './crawl-service.js';
import type { HeldCrawl, ServerCrawls } from './crawls.js';
import { missingModules } from './module-reach.js';

export interface SessionLimits {
  /** A connection with half a packet, or with nothing sent and no request waiting, for this long is closed. */
  idleMs: number;
  /** Bytes waiting to be written to a client that does not read: past this, BUSY. */
  maxBufferedBytes: number;
  /** Requests of one connection being answered at once: past this, BUSY. */
  maxOutstanding: number;
  /** Bytes of split messages a connection has half sent: past this, BAD_FRAGMENTS and a close. */
  maxSplitBytes: number;
}

import type { Traffic } from './traffic.js';
/** What every session of one server shares. */
export interface SessionContext {
  /** The crawls of the server; a session works on one (CRAWL or HELLO names it, else the server's own). */
  crawls: ServerCrawls;
  token: string;
  /** The server listens on an address that is not loopback: every packet needs the token. */
  tokenEverywhere: boolean;
  limits: SessionLimits;
  /** Connections that said HELLO: they get MODULE pushes. */
  bunnies: Set<Session>;
  /** Packets and bytes, counted for /metrics and /status. */
  traffic: Traffic;
  /** The modules loadmod loaded, as MODULE packets send them. */
  moduleSources(): Bodies['MODULE'][];
  /** The control commands that touch files and modules (control.ts). */
  control: {
    show(crawl: HeldCrawl): Promise<string>;
    modstat(): string;
    logTo(crawl: HeldCrawl, name: string): Promise<void>;
    readFrom(crawl: HeldCrawl, name: string): Promise<void>;
    loadModule(name: string): Promise<string>;
    quit(): Promise<void>;
  };
}

/** The most ENQUEUEs in a row stored in one add(). */
const MAX_ENQUEUE_RUN = 1000;

/** Packets that always need the token, on loopback too. */
const TOKEN_ALWAYS = new Set(['QUIT', 'NEWMOD', 'LOGDATA', 'READDATA']);
/** Packets that need HELLO first. */
const BUNNY_ONLY = new Set([
  'LEASE',
  'COMPLETE',
  'RELEASE',
  'EXTEND',
  'ADD',
  'ACK',
  'CLAIMSITE',
  'RECORDSITE',
  'LEAVE',
  'COOKIES',
  'SAVECOOKIES',
  'ROBOTS',
  'SAVEROBOTS',
  'SEEDS',
  'MODCOUNTS',
]);

/** Connections that said HELLO for this crawl. */
export function bunniesOf(bunnies: ReadonlySet<Session>, crawl: string): number {
  let n = 0;
  for (const b of bunnies) if (b.crawlName === crawl) n++;
  return n;
}

/** A control command's refusal: an ERROR packet with a code, then the connection closes. */
export class ControlError extends CobwebError {
  override name = 'ControlError';
  readonly code = 'COBWEB_CONTROL';
  constructor(
    /** The ErrorCode the ERROR packet carries. */
    readonly wireCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One client connection: its bytes become packets (PacketDecoder, MessageJoiner), its
 * packets calls on the crawl (CrawlService), and the answers packets again. A malformed
 * packet costs the sender its connection, never the server. Requests of ours run side by
 * side (a LEASE may wait while COMPLETEs are answered); the original packets run one
 * after the other, as their clients expect.
 */
export class Session {
  private readonly decoder = new PacketDecoder({ from: 'client' });
  private readonly joiner: MessageJoiner;
  private packets = 0;
  /** Writes are held until the end of the tick (see write). */
  private corked = false;
  private authed = false;
  private outstanding = 0;
  private closed = false;
  private idle: NodeJS.Timeout | null = null;
  /** Set at HELLO: the crawler id the store gave this bunny. */
  private hello: Promise<CrawlerId> | null = null;
  /** The crawl this connection works on: set by CRAWL or HELLO, else the server's own one at first use. */
  private crawl: Promise<HeldCrawl> | null = null;
  /** The crawl's name once chosen (bunnies are counted per crawl). */
  crawlName: string;
  /** A bunny's counts since its HELLO, for the console. */
  private counts: BunnyView | null = null;
  /** The bunny loads the modules the server pushes (HELLO's `loadsModules`). */
  private loadsModules = false;
  /** An original client's crawler, registered at its first DEQUEUE or ENQUEUE. */
  private original: Promise<CrawlerId> | null = null;
  /** Leases an original client took with DEQUEUE, by URL; the latest last. */
  private readonly dequeued = new Map<string, Lease>();
  private chain: Promise<void> = Promise.resolve();
  /** ENQUEUE targets waiting for their turn in the chain, stored together; null when none wait. */
  private enqueueRun: OriginalTarget[] | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: SessionContext,
  ) {
    this.crawlName = ctx.crawls.own;
    this.joiner = new MessageJoiner({ maxBytes: ctx.limits.maxSplitBytes });
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => void this.onClose());
    this.armIdle();
  }

  /** The bunny on this connection, as the console shows it; null before HELLO. */
  get bunny(): BunnyView | null {
    return this.counts === null ? null : { ...this.counts };
  }

  /**
   * Sends a MODULE push (loadmod) to this bunny, if it loads modules; one that loads none
   * is said to go without it. True when sent.
   */
  pushModule(module: Bodies['MODULE']): boolean {
    if (this.loadsModules) {
      this.writeMessage('MODULE', 0, module);
      return true;
    }
    const counts = this.counts;
    if (counts !== null) {
      this.service().then(
        (s) => s.lacking(counts.crawler, counts.name, [module.name]),
        () => {},
      );
    }
    return false;
  }

  /** Ends the connection, with an ERROR first when a code is given. */
  close(code?: number, message?: string, requestId = 0): void {
    if (this.closed) return;
    if (code !== undefined) this.writeMessage('ERROR', requestId, { code, message: message ?? '' });
    this.closed = true;
    if (this.idle !== null) clearTimeout(this.idle);
    this.socket.end();
    // A client that never reads would keep end() waiting: it has a moment, then it goes.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.armIdle();
    this.ctx.traffic.bytesIn += chunk.length;
    const { packets, sizes, error } = this.decoder.push(chunk);
    for (const [i, p] of packets.entries()) {
      this.ctx.traffic.packet(p.type);
      let m: Message | null;
      try {
        m = this.joiner.push(p, sizes[i]);
      } catch (err) {
        this.refuse(err);
        return;
      }
      if (m !== null) this.handle(m);
      if (this.closed) return;
    }
    if (error !== null) this.close(error.wireCode, error.message);
  }

  private handle(m: Message): void {
    const first = this.packets++ === 0;
    if (m.type === 'AUTH') {
      if (!first) {
        this.close(ErrorCode.AUTH_NOT_FIRST, 'AUTH must be the first packet on a connection');
        return;
      }
      if (!tokenMatches(this.ctx.token, m.body.token)) {
        this.close(ErrorCode.AUTH_FAILED, 'the token is wrong: use the one in DATA/token or --token');
        return;
      }
      this.authed = true;
      if (m.requestId !== 0) this.writeMessage('OK', m.requestId, {});
      return;
    }
    if (!this.authed && (this.ctx.tokenEverywhere || TOKEN_ALWAYS.has(m.type))) {
      this.close(
        ErrorCode.AUTH_REQUIRED,
        `${m.type} needs the token: send AUTH first (the server printed it, and keeps it in DATA/token)`,
      );
      return;
    }
    if (m.type === 'CRAWL') {
      this.chooseCrawl(m.body.crawl, m.requestId);
      return;
    }
    if ('requestId' in m) {
      this.ours(m);
      return;
    }
    if (m.type === 'DEQUEUE_REPLY') return;
    // The original packets, one after the other. ENQUEUEs in a row are stored in one
    // add(): a client that sends ten links after each DEQUEUE would otherwise pay ten
    // commits. Nothing changes order: a run of ENQUEUEs ends at the next other packet.
    if (m.type === 'ENQUEUE') {
      this.enqueueLater(m.target);
      return;
    }
    this.enqueueRun = null;
    this.chain = this.chain.then(() => this.originalPacket(m)).catch((err) => this.refuse(err));
  }

  private ours(m: Extract<Message, { requestId: number }>): void {
    const { type, requestId } = m;
    if (BUNNY_ONLY.has(type) && this.hello === null) {
      this.writeMessage('ERROR', requestId, {
        code: ErrorCode.HELLO_REQUIRED,
        message: `${type} needs HELLO first`,
      });
      return;
    }
    if (++this.outstanding > this.ctx.limits.maxOutstanding) {
      this.close(ErrorCode.BUSY, `more than ${this.ctx.limits.maxOutstanding} requests at once`);
      return;
    }
    // A reply that cannot be encoded is an error of ours: the client gets an ERROR for
    // its request, and the server goes on (catch(), not then()'s second argument, so it
    // also sees what writing the reply threw).
    void this.answer(m)
      .then((reply) => {
        if (reply !== null) this.writeMessage(reply.type, requestId, reply.body as Bodies[OurPacketName]);
      })
      .catch((err: unknown) => {
        if (err instanceof ControlError) {
          this.close(err.wireCode, err.message, requestId);
          return;
        }
        const message = err instanceof Error ? err.message : String(err);
        this.writeMessage('ERROR', requestId, { code: ErrorCode.INTERNAL, message: message.slice(0, 500) });
      })
      .finally(() => {
        this.outstanding--;
        this.armIdle();
      });
  }

  /** One request of ours and its reply (null: none wanted). */
  private async answer(
    m: Extract<Message, { requestId: number }>,
  ): Promise<{ type: OurPacketName; body: object } | null> {
    if (m.type === 'HELLO') {
      this.sayHello(m.body, m.requestId);
      return null;
    }
    const s = await this.service();
    const ok = m.requestId === 0 ? null : { type: 'OK' as const, body: {} };
    switch (m.type) {
      case 'LEASE': {
        const body = await s.lease(await this.crawler(), m.body.n, m.body.waitMs);
        if (this.counts !== null) this.counts.leased += body.leases.length;
        return { type: 'LEASES', body };
      }
      case 'COMPLETE': {
        const body = await s.complete(await this.crawler(), m.body);
        if (this.counts !== null) this.counts.completed += m.body.completions.length - body.stale.length;
        return { type: 'COMPLETED', body };
      }
      case 'RELEASE':
        await s.release(m.body);
        return ok;
      case 'EXTEND':
        return { type: 'EXTENDED', body: await s.extend(m.body) };
      case 'ADD':
        return { type: 'ADDED', body: await s.add(await this.crawler(), m.body) };
      case 'ACK':
        // Only captured requisites' records are handed out: their lines come with the ACK.
        await s.acknowledge(m.body);
        return ok;
      case 'CLAIMSITE':
        return { type: 'CLAIMED', body: { claimed: await s.claimSite(await this.crawler(), m.body) } };
      case 'RECORDSITE':
        await s.recordSite(m.body);
        return ok;
      case 'STATS':
        return { type: 'STATSREPLY', body: await s.stats(bunniesOf(this.ctx.bunnies, this.crawlName)) };
      case 'LEAVE':
        await s.leave(await this.crawler());
        return { type: 'OK', body: {} };
      case 'ROBOTS':
        return { type: 'ROBOTSREPLY', body: await s.robots(await this.crawler(), m.body.origin) };
      case 'SAVEROBOTS':
        return { type: 'ROBOTSREPLY', body: await s.saveRobots(await this.crawler(), m.body) };
      case 'SEEDS':
        return { type: 'SEEDLIST', body: await s.crawlSeeds(m.body) };
      case 'COOKIES':
        return { type: 'COOKIEJAR', body: { cookies: await s.cookies() } };
      case 'SAVECOOKIES':
        await s.saveCookies(m.body.cookies);
        return ok;
      case 'MODCOUNTS':
        s.modules.addReported(m.body.modules);
        return ok;
      default:
        throw new ControlError(ErrorCode.WRONG_DIRECTION, `${m.type} is not a request`);
    }
  }

  /**
   * HELLO: the bunny works for the crawl it names (or the one CRAWL chose, or the
   * default), which the server opens, and starts if it is new. Everything here up to
   * the first wait runs at once, so the bunny packets that follow find `hello` set.
   */
  private sayHello(body: Bodies['HELLO'], requestId: number): void {
    if (body.protocol !== PROTOCOL_VERSION) {
      throw new ControlError(
        ErrorCode.UNSUPPORTED_VERSION,
        `this server speaks protocol ${PROTOCOL_VERSION}, not ${body.protocol}`,
      );
    }
    if (this.hello !== null) throw new ControlError(ErrorCode.BAD_FIELD, 'HELLO came twice');
    const name = body.crawl ?? (this.crawl === null ? this.ctx.crawls.own : this.crawlName);
    if (this.crawl !== null && name !== this.crawlName) {
      throw new ControlError(
        ErrorCode.CRAWL_NOT_FIRST,
        `HELLO names crawl ${name}, but CRAWL chose ${this.crawlName} for this connection`,
      );
    }
    this.crawlName = name;
    this.crawl ??= this.ctx.crawls.get(name, true) as Promise<HeldCrawl>;
    const crawl = this.crawl;
    this.loadsModules = body.loadsModules === true;
    this.hello = crawl.then((c) => c.service.register(body.name, this.from));
    void this.hello.then(
      async (crawler) => {
        const s = (await crawl).service;
        this.counts = {
          crawler,
          name: body.name,
          address: this.from,
          since: Date.now(),
          leased: 0,
          completed: 0,
        };
        this.ctx.bunnies.add(this);
        const pushed = this.ctx.moduleSources();
        const missing = missingModules(
          s.modules.withPageHooks,
          pushed.map((m) => m.name),
          body,
        );
        const welcome: Bodies['WELCOME'] = {
          crawlerId: String(crawler),
          protocol: PROTOCOL_VERSION,
          leaseMs: s.leaseMs,
          settings: s.settings,
          missingModules: missing,
        };
        this.writeMessage('WELCOME', requestId, welcome);
        s.lacking(crawler, body.name, missing);
        if (this.loadsModules) for (const module of pushed) this.pushModule(module);
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.writeMessage('ERROR', requestId, { code: ErrorCode.INTERNAL, message: message.slice(0, 500) });
      },
    );
  }

  /**
   * CRAWL: the connection's packets are about crawl `name` from now on. It comes before
   * any packet but AUTH, once, and names a crawl the server holds (only a bunny's HELLO
   * starts one, so a mistyped name in a control command creates nothing).
   */
  private chooseCrawl(name: string, requestId: number): void {
    const before = this.packets - 1 - (this.authed ? 1 : 0);
    if (before > 0 || this.crawl !== null) {
      this.close(
        ErrorCode.CRAWL_NOT_FIRST,
        'CRAWL must come first on a connection (after AUTH only), once',
        requestId,
      );
      return;
    }
    if (!this.ctx.crawls.exists(name)) {
      this.close(
        ErrorCode.UNKNOWN_CRAWL,
        `this server holds no crawl ${name}: a bunny with --crawl ${name} starts it`,
        requestId,
      );
      return;
    }
    this.crawlName = name;
    this.crawl = this.ctx.crawls.get(name, false) as Promise<HeldCrawl>;
    if (requestId !== 0) {
      void this.crawl.then(
        () => this.writeMessage('OK', requestId, {}),
        (err: unknown) => this.close(ErrorCode.INTERNAL, err instanceof Error ? err.message : String(err)),
      );
    }
  }

  /** The crawl this connection works on (the default one unless CRAWL or HELLO named another). */
  private held(): Promise<HeldCrawl> {
    this.crawl ??= this.ctx.crawls.get(this.ctx.crawls.own, true) as Promise<HeldCrawl>;
    return this.crawl;
  }

  private async service(): Promise<CrawlService> {
    return (await this.held()).service;
  }

  private async originalPacket(m: Exclude<Message, { requestId: number }>): Promise<void> {
    const { control } = this.ctx;
    const held = await this.held();
    const { service } = held;
    switch (m.type) {
      case 'DEQUEUE':
        await this.dequeue();
        return;
      case 'STOREURL': {
        const url = this.urlOf(m.target);
        const lease = url === null ? undefined : this.dequeued.get(url);
        if (lease === undefined) return; // not a URL this connection holds: nothing changes
        this.dequeued.delete(lease.url);
        await service.storeUrl(
          await this.originalCrawler(),
          lease,
          m.target.addr === '0.0.0.0' ? null : m.target.addr,
        );
        return;
      }
      case 'SHOWDATA':
        this.text(await control.show(held));
        return;
      case 'MODSTAT':
        this.text(control.modstat());
        return;
      case 'LOGDATA':
        await control.logTo(held, m.file);
        this.close();
        return;
      case 'READDATA':
        await control.readFrom(held, m.file);
        this.close();
        return;
      case 'NEWMOD':
        this.text(await control.loadModule(m.name));
        return;
      case 'QUIT':
        this.close();
        await control.quit();
        return;
      case 'MODINFO': {
        let info: unknown = m.info;
        try {
          info = JSON.parse(m.info);
        } catch {
          // kept as text
        }
        service.sites.addInfoAt(m.addr, m.port, m.module, info);
        return;
      }
    }
  }

  /** DEQUEUE: one URL the original packets can carry, or the two bytes 00 00. */
  private async dequeue(): Promise<void> {
    if (this.hello !== null || this.outstanding > 0) {
      this.close(ErrorCode.DEQUEUE_NOT_ALLOWED, 'DEQUEUE after HELLO, or while a reply is due');
      return;
    }
    const crawler = await this.originalCrawler();
    const service = await this.service();
    const batch = await service.lease(crawler, 1, 0);
    let target: OriginalTarget | null = null;
    const wire = batch.leases[0];
    if (wire !== undefined) {
      const lease = leaseFromWire(wire);
      try {
        target = originalFromUrl(lease.url);
        this.dequeued.set(lease.url, lease);
      } catch {
        // A URL the original packets cannot say waits for a client that speaks LEASE.
        await service.store.complete(
          [
            {
              leaseId: lease.id,
              outcome: { kind: 'deferred' },
              report: { fetchMs: 0, noRequest: true },
              outlinks: [],
              rejected: [],
            },
          ],
          crawler,
        );
      }
    }
    this.write(encode({ type: 'DEQUEUE_REPLY', target }));
  }

  /** The canonical URL an original packet names, or null (refused, as the codec says why). */
  private enqueueLater(target: OriginalTarget): void {
    if (this.enqueueRun === null || this.enqueueRun.length >= MAX_ENQUEUE_RUN) {
      const run: OriginalTarget[] = [];
      this.enqueueRun = run;
      this.chain = this.chain
        .then(async () => {
          if (this.enqueueRun === run) this.enqueueRun = null;
          const urls = run.map((t) => this.urlOf(t)).filter((u): u is string => u !== null);
          if (urls.length === 0) return;
          // An original ENQUEUE names no page: the links count as found on the URL this
          // connection was given last.
          const latest = [...this.dequeued.values()].at(-1) ?? null;
          await (await this.service()).enqueue(await this.originalCrawler(), urls, latest);
        })
        .catch((err) => this.refuse(err));
    }
    this.enqueueRun.push(target);
  }

  private urlOf(target: OriginalTarget): string | null {
    try {
      const c = canonicalize(urlFromOriginal(target).url);
      return c.ok ? c.url : null;
    } catch {
      return null;
    }
  }

  private crawler(): Promise<CrawlerId> {
    return this.hello as Promise<CrawlerId>;
  }

  /** Where the connection comes from: ADDRESS:PORT. */
  private get from(): string {
    return peerOf(this.socket);
  }

  private originalCrawler(): Promise<CrawlerId> {
    const who = `original@${this.socket.remoteAddress}:${this.socket.remotePort}`;
    this.original ??= this.service().then((s) => s.register(who, this.from));
    return this.original;
  }

  private text(text: string): void {
    this.write(textAnswerBytes(text));
    this.close();
  }

  private refuse(err: unknown): void {
    if (err instanceof ControlError || err instanceof ProtocolError) {
      this.close(err.wireCode, err.message);
      return;
    }
    this.close(ErrorCode.INTERNAL, err instanceof Error ? err.message : String(err));
  }

  private writeMessage<T extends OurPacketName>(type: T, requestId: number, body: Bodies[T]): void {
    if (type === 'ERROR') this.ctx.traffic.error(errorCodeName((body as Bodies['ERROR']).code) ?? 'UNKNOWN');
    const packet = { type, requestId, more: false, body } as unknown as OurPacket;
    for (const frame of encodeMessage(packet)) this.write(frame);
  }

  private write(bytes: Buffer): void {
    if (this.socket.destroyed) return;
    this.ctx.traffic.bytesOut += bytes.length;
    // The replies of one tick leave in one write: a store's commit answers the LEASEs,
    // RELEASEs and COMPLETEs that waited for it together, and a write each was a system
    // call each (and a wake-up of the bunny each), the most of the server's CPU after
    // its store.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(bytes);
    if (!this.closed && this.socket.writableLength > this.ctx.limits.maxBufferedBytes) {
      this.close(ErrorCode.BUSY, 'the client does not read what it is sent');
      this.socket.destroy();
    }
  }

  private armIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    if (this.closed) return;
    this.idle = setTimeout(() => {
      // A long-polling LEASE is a request waiting, not idleness; half a packet is.
      if (this.outstanding > 0 && this.decoder.partialBytes === 0) {
        this.armIdle();
        return;
      }
      this.close(ErrorCode.IDLE_TIMEOUT, `nothing came for ${this.ctx.limits.idleMs} ms`);
      this.socket.destroy();
    }, this.ctx.limits.idleMs);
    this.idle.unref();
  }

  private async onClose(): Promise<void> {
    this.closed = true;
    if (this.idle !== null) clearTimeout(this.idle);
    this.ctx.bunnies.delete(this);
    // A client that goes away gives its leases back at once.
    for (const who of [this.hello, this.original]) {
      if (who === null) continue;
      try {
        await (await this.service()).leave(await who);
      } catch {
        // the store is closing with the server
      }
    }
  }
}

/** Where a connection comes from, as the log and the console name it: ADDRESS:PORT. */
export function peerOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}
