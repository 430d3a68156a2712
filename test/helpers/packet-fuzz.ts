/**
 * A seeded generator of Cobweb packets, valid and mutated, for fuzzing the codec here and a
 * real server over TCP. Same seed, same bytes: a failure found once can be replayed.
 * No test framework imports, so benchmarks and scripts can use it too.
 */
import {
  encodeMessage,
  MAX_PACKET,
  type OurPacket,
  type OurPacketName,
  type Packet,
  PacketCode,
  type WireCompletion,
  type WireLink,
  type WireRejected,
  type WireReport,
} from '../../src/protocol/index.js';

/** mulberry32: small, fast, and good enough to spread mutations. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const MUTATIONS = [
  'flip-bit',
  'set-byte',
  'set-length',
  'set-type',
  'set-flags',
  'set-request-id',
  'truncate',
  'append',
  'insert',
  'delete',
  'tamper-json',
  'splice',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface GeneratedPacket {
  packet: Packet;
  bytes: Buffer;
}

export interface PacketFuzzer {
  readonly seed: number;
  /** A float in [0, 1). */
  random(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** A valid packet that `from` sends (default: a client, as a server receives). Never a DEQUEUE reply. */
  validPacket(from?: 'client' | 'server'): GeneratedPacket;
  /** A valid packet (see FuzzerOptions.pool) with one to three mutations, and the mutations applied. */
  mutated(from?: 'client' | 'server'): { bytes: Buffer; mutations: Mutation[] };
  /** Random bytes, sometimes behind a plausible length and type. */
  garbage(): Buffer;
  /** `bytes` cut into random chunks, as a socket might deliver them. */
  chunks(bytes: Buffer): Buffer[];
}

const TEXT = [
  'a',
  'b',
  'z',
  '0',
  '/',
  '.',
  '-',
  '"',
  '\\',
  ' ',
  '\t',
  'é',
  '€',
  '😀',
  '\u2028',
  '?',
  '=',
  '&',
];
const OUR_CLIENT: OurPacketName[] = [
  'AUTH',
  'HELLO',
  'LEASE',
  'COMPLETE',
  'RELEASE',
  'EXTEND',
  'ADD',
  'ACK',
  'CLAIMSITE',
  'RECORDSITE',
  'STATS',
  'COOKIES',
  'SAVECOOKIES',
  'ROBOTS',
  'SAVEROBOTS',
  'SEEDS',
  'MODCOUNTS',
];
const OUR_SERVER: OurPacketName[] = [
  'WELCOME',
  'LEASES',
  'COMPLETED',
  'EXTENDED',
  'ADDED',
  'CLAIMED',
  'STATSREPLY',
  'MODULE',
  'OK',
  'COOKIEJAR',
  'ROBOTSREPLY',
  'SEEDLIST',
  'ERROR',
];
const ORIGINAL = [
  'DEQUEUE',
  'ENQUEUE',
  'STOREURL',
  'SHOWDATA',
  'QUIT',
  'MODSTAT',
  'LOGDATA',
  'READDATA',
  'NEWMOD',
  'MODINFO',
];

export interface FuzzerOptions {
  /**
   * mutated() starts from one of this many valid packets per direction, made once, rather
   * than a new one each time: making packets costs more than mutating and decoding them.
   * 0 makes a new one every time. Default 2,000.
   */
  pool?: number;
}

export function createPacketFuzzer(seed: number, options: FuzzerOptions = {}): PacketFuzzer {
  const poolSize = options.pool ?? 2000;
  const pools = { client: [] as Buffer[], server: [] as Buffer[] };
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const chance = (p: number) => random() < p;

  const text = (max = 12) => {
    let s = '';
    for (let i = int(max + 1); i > 0; i--) s += pick(TEXT);
    return s;
  };
  const word = () => `${pick(['a', 'b', 'c', 'x'])}${int(1000)}`;
  const url = () =>
    `${pick(['http', 'https'])}://${pick(['a.test', 'b.test:8080', '[2001:db8::1]', '127.0.0.2'])}/${text(20)}`;
  const addr = () => (chance(0.3) ? '0.0.0.0' : `${int(256)}.${int(256)}.${int(256)}.${int(256)}`);
  const via = () => (chance(0.3) ? null : url());
  const report = (): WireReport => {
    const r: WireReport = { fetchMs: int(5000) };
    if (chance(0.3)) r.crawlDelayMs = int(10_000);
    if (chance(0.2)) r.retryAfterMs = int(60_000);
    if (chance(0.2)) r.connectFailed = chance(0.5);
    if (chance(0.5)) r.address = chance(0.2) ? null : addr();
    return r;
  };
  const link = (): WireLink => {
    const l: WireLink = { url: url(), depth: int(10), via: via() };
    if (chance(0.3)) l.redirects = int(5);
    if (chance(0.3)) l.kind = pick(['page', 'sitemap'] as const);
    return l;
  };
  const rejected = (): WireRejected => ({
    url: url(),
    depth: int(10),
    via: via(),
    reason: pick(['scope', 'exclude', 'depth']),
  });
  const many = <T>(f: () => T, max: number) => Array.from({ length: int(max + 1) }, f);
  const json = (depth = 0): unknown => {
    const k = int(depth > 3 ? 4 : 6);
    if (k === 0) return text();
    if (k === 1) return int(1e6) - 5e5;
    if (k === 2) return chance(0.5);
    if (k === 3) return null;
    if (k === 4) return many(() => json(depth + 1), 3);
    return Object.fromEntries(many(() => [word(), json(depth + 1)], 3));
  };
  const record = () => ({ url: url(), status: 200 + int(300), extra: json() });
  const completion = (): WireCompletion => ({
    lease: word(),
    outcome: pick([
      { kind: 'done' as const },
      { kind: 'failed' as const, error: 'timeout' },
      { kind: 'retry' as const, error: 'reset', afterMs: int(10_000) },
      { kind: 'deferred' as const },
    ]),
    report: report(),
    page: chance(0.2) ? null : record(),
    outlinks: many(link, 4),
    rejected: many(rejected, 2),
    modules: many(() => ({ module: word(), record: { value: json() } }), 2),
  });
  const robotsEntry = () =>
    chance(0.5)
      ? {
          state: 'parsed' as const,
          status: 200,
          text: many(() => `User-agent: *\nDisallow: /${word()}\n`, 3),
        }
      : {
          state: 'unavailable' as const,
          status: null,
          failure: { error: 'refused', message: text(40), connectFailed: true },
          text: [],
        };
  const reqId = (name: OurPacketName) =>
    name === 'MODULE'
      ? 0
      : name === 'AUTH' || name === 'RELEASE' || name === 'ACK' || name === 'RECORDSITE' || name === 'CRAWL'
        ? int(3)
        : 1 + int(0xfffffffe);

  const bodies: { [T in OurPacketName]: () => unknown } = {
    AUTH: () => ({ token: `t${text(30)}` }),
    HELLO: () =>
      chance(0.5) ? { name: word(), protocol: 1 } : { name: word(), protocol: 1, version: '0.1.0' },
    WELCOME: () => ({ crawlerId: word(), protocol: 1, leaseMs: int(120_000), settings: { x: json() } }),
    LEASE: () => ({ n: 1 + int(64), waitMs: int(30_000) }),
    LEASES: () => ({
      leases: many(
        () => ({
          id: word(),
          url: url(),
          host: 'a.test',
          depth: int(9),
          via: via(),
          redirects: int(3),
          kind: pick(['page', 'sitemap']),
          attempt: 1 + int(3),
          expiresAt: int(2 ** 42),
        }),
        4,
      ),
      ended: pick([null, 'finished', 'max-pages']),
      nextReadyAt: chance(0.5) ? null : int(2 ** 42),
    }),
    COMPLETE: () => ({ completions: many(completion, 3) }),
    COMPLETED: () => ({
      stale: many(word, 3),
      records: many(() => ({ id: word(), ...rejected() }), 3),
      added: int(100),
    }),
    RELEASE: () => ({ releases: many(() => ({ lease: word(), report: report() }), 3) }),
    EXTEND: () => ({ leases: many(word, 5) }),
    EXTENDED: () => ({
      leases: many(() => ({ id: word(), expiresAt: int(2 ** 42) }), 3),
      stale: many(word, 2),
    }),
    ADD: () => ({ links: many(link, 5), rejected: many(rejected, 3) }),
    ADDED: () => ({ added: int(100), records: many(() => ({ id: word(), ...rejected() }), 3) }),
    ACK: () => ({ ids: many(word, 6) }),
    CLAIMSITE: () => ({ origin: 'http://a.test', address: chance(0.5) ? null : addr() }),
    CLAIMED: () => ({ claimed: chance(0.5) }),
    RECORDSITE: () => ({
      origin: 'http://a.test',
      address: addr(),
      firstSeen: int(2 ** 42),
      info: { m: json() },
    }),
    STATS: () => ({}),
    CRAWL: () => ({ crawl: pick(['default', 'shop', 'news-2024', 'a_b']) }),
    STATSREPLY: () => ({
      queued: int(9),
      inFlight: int(9),
      done: int(9),
      failed: int(9),
      rejected: int(9),
      hosts: int(9),
      bunnies: int(9),
    }),
    MODULE: () => ({ name: word(), sha256: 'ab'.repeat(32), source: text(200) }),
    OK: () => ({}),
    LEAVE: () => ({}),
    COOKIES: () => ({}),
    COOKIEJAR: () => ({ cookies: many(() => ({ key: word(), value: chance(0.2) ? null : text(80) }), 4) }),
    SAVECOOKIES: () => ({ cookies: many(() => ({ key: word(), value: chance(0.2) ? null : text(80) }), 4) }),
    ROBOTS: () => ({ origin: `http://${word()}.test` }),
    ROBOTSREPLY: () =>
      chance(0.5)
        ? { answer: pick(['read', 'busy', 'none'] as const), text: [] }
        : { answer: 'known', validForMs: 1 + int(86_400_000), ...robotsEntry() },
    SAVEROBOTS: () =>
      chance(0.3)
        ? { origin: `http://${word()}.test`, read: false, text: [] }
        : { origin: `http://${word()}.test`, read: true, ...robotsEntry() },
    SEEDS: () => ({
      origins: many(() => `http://${word()}.test`, 3),
      addresses: many(() => `127.0.0.${1 + int(250)}`, 3),
    }),
    SEEDLIST: () => ({
      origins: many(() => `http://${word()}.test`, 3),
      addresses: many(() => `127.0.0.${1 + int(250)}`, 3),
    }),
    MODCOUNTS: () => ({
      modules: many(
        () => ({
          name: word(),
          calls: int(1000),
          errors: int(10),
          timeouts: int(10),
          skipped: int(10),
          ms: int(100_000) / 8,
        }),
        3,
      ),
    }),
    ERROR: () => ({ code: pick([100, 106, 200, 304]), message: text(60) }),
  };

  const original = (): Packet => {
    const type = pick(ORIGINAL);
    const target = () => ({ addr: addr(), port: int(65_536), host: word(), path: `/${text(20)}` });
    switch (type) {
      case 'ENQUEUE':
      case 'STOREURL':
        return { type, target: target() };
      case 'LOGDATA':
      case 'READDATA':
        return { type, file: `${word()}.log` };
      case 'NEWMOD':
        return { type, name: word() };
      case 'MODINFO':
        return { type, addr: addr(), port: int(65_536), module: word(), info: JSON.stringify(json()) };
      default:
        return { type } as Packet;
    }
  };

  const validPacket = (from: 'client' | 'server' = 'client'): GeneratedPacket => {
    let packet: Packet;
    if (from === 'client' && chance(0.4)) {
      packet = original();
    } else {
      const type = pick(from === 'client' ? OUR_CLIENT : OUR_SERVER);
      packet = { type, requestId: reqId(type), more: false, body: bodies[type]() } as OurPacket;
    }
    // A split-able packet sometimes comes as a middle fragment (MORE set).
    const bytes = encodeMessage(packet)[0] as Buffer;
    if ('more' in packet && chance(0.1) && (packet.type === 'ACK' || packet.type === 'LEASES')) {
      bytes[7] = 1;
      return { packet: { ...packet, more: true } as Packet, bytes };
    }
    return { packet, bytes };
  };

  const setLength = (b: Buffer, n: number) => {
    if (b.length >= 2) b.writeUInt16BE(Math.max(0, Math.min(0xffff, n)), 0);
  };
  const fixLength = (b: Buffer) => {
    if (chance(0.6)) setLength(b, b.length);
    return b;
  };
  const randomBytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));

  const tamperJson = (b: Buffer): Buffer => {
    if (b.length < 8 || (b[2] as number) < 16) return b;
    let body: unknown;
    try {
      body = JSON.parse(b.subarray(8).toString('utf8'));
    } catch {
      return b;
    }
    // Walk to a random spot and put something of a random kind there.
    let node = body as Record<string, unknown>;
    for (let d = 0; d < 4; d++) {
      const keys = Object.keys(node ?? {});
      if (keys.length === 0 || typeof node !== 'object' || node === null) break;
      const k = pick(keys);
      const child = node[k];
      if (typeof child !== 'object' || child === null || chance(0.4)) {
        const replacement = pick<() => unknown>([
          () => undefined,
          () => null,
          () => -1,
          () => 1.5,
          () => '',
          () => text(),
          () => [],
          () => ({}),
          () => true,
          () => 2 ** 60,
          () => JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`),
        ])();
        if (replacement === undefined) delete node[k];
        else node[k] = replacement;
        break;
      }
      node = child as Record<string, unknown>;
    }
    const text2 = chance(0.1) ? JSON.stringify(body).slice(0, -1) : JSON.stringify(body);
    const out = Buffer.concat([b.subarray(0, 8), Buffer.from(text2 ?? '')]);
    setLength(out, out.length);
    return out;
  };

  const mutate = (b: Buffer, m: Mutation): Buffer => {
    switch (m) {
      case 'flip-bit': {
        const i = int(b.length);
        b[i] = (b[i] as number) ^ (1 << int(8));
        return b;
      }
      case 'set-byte':
        b[int(b.length)] = int(256);
        return b;
      case 'set-length':
        setLength(
          b,
          pick([0, 1, 2, 3, 4, 7, 8, 9, 10, 11, b.length - 1, b.length + 1, 0xffff, int(0x10000)]),
        );
        return b;
      case 'set-type':
        if (b.length >= 3) b[2] = chance(0.5) ? int(256) : pick(Object.values(PacketCode));
        return b;
      case 'set-flags':
        if (b.length >= 8) b[7] = int(256);
        return b;
      case 'set-request-id':
        if (b.length >= 8) b.writeUInt32BE(chance(0.5) ? 0 : int(2 ** 32), 3);
        return b;
      case 'truncate':
        return b.subarray(0, int(b.length));
      case 'append':
        return fixLength(Buffer.concat([b, randomBytes(1 + int(16))]));
      case 'insert': {
        const at = int(b.length + 1);
        return fixLength(Buffer.concat([b.subarray(0, at), randomBytes(1 + int(8)), b.subarray(at)]));
      }
      case 'delete': {
        const at = int(b.length);
        return fixLength(Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + int(8))]));
      }
      case 'tamper-json':
        return tamperJson(b);
      case 'splice': {
        const other =
          pools.client.length > 0 ? (pools.client[int(pools.client.length)] as Buffer) : validPacket().bytes;
        return fixLength(Buffer.concat([b.subarray(0, int(b.length)), other.subarray(int(other.length))]));
      }
    }
  };

  return {
    seed,
    random,
    int,
    validPacket,
    mutated(from = 'client') {
      const pool = pools[from];
      let base: Buffer;
      if (pool.length < poolSize) {
        base = validPacket(from).bytes;
        pool.push(base);
      } else {
        base = pool[int(pool.length)] as Buffer;
      }
      let bytes = Buffer.from(base);
      const mutations: Mutation[] = [];
      for (let n = 1 + int(3); n > 0; n--) {
        const m = pick(MUTATIONS);
        mutations.push(m);
        bytes = Buffer.from(mutate(bytes, m));
      }
      return { bytes, mutations };
    },
    garbage() {
      const body = randomBytes(int(64));
      if (chance(0.5)) return body;
      const length = chance(0.5) ? 3 + body.length : int(MAX_PACKET + 1);
      return Buffer.concat([Buffer.from([length >> 8, length & 0xff, int(40)]), body]);
    },
    chunks(bytes) {
      const out: Buffer[] = [];
      let at = 0;
      while (at < bytes.length) {
        const n = chance(0.5) ? bytes.length - at : 1 + int(Math.max(1, bytes.length - at));
        out.push(bytes.subarray(at, at + n));
        at += n;
      }
      return out;
    },
  };
}
