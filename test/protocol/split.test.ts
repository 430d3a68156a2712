import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Bodies,
  encode,
  encodeMessage,
  type Message,
  MessageJoiner,
  type OurPacket,
  type Packet,
  PacketDecoder,
  ProtocolError,
  type WireCompletion,
  type WireLease,
} from '../../src/protocol/index.js';

/** Encodes a message, checks every packet's size and flags, and decodes and joins it again. */
function roundTrip(packet: OurPacket, maxPacket = 65_535): { frames: Buffer[]; joined: Message } {
  const frames = encodeMessage(packet, maxPacket);
  const decoder = new PacketDecoder({ maxPacket });
  const joiner = new MessageJoiner({ maxFragments: 100_000 });
  const decoded: Packet[] = [];
  for (const f of frames) {
    expect(f.length).toBeLessThanOrEqual(maxPacket);
    expect(f.readUInt16BE(0)).toBe(f.length);
    const r = decoder.push(f);
    expect(r.error).toBeNull();
    decoded.push(...r.packets);
  }
  decoded.forEach((p, i) => {
    expect(p).toMatchObject({ type: packet.type, requestId: packet.requestId, more: i < decoded.length - 1 });
  });
  const joined = decoded.map((p) => joiner.push(p));
  expect(joined.slice(0, -1).every((m) => m === null)).toBe(true);
  expect(joiner.open).toBe(0);
  return { frames, joined: joined.at(-1) as Message };
}

function lease(i: number): WireLease {
  return {
    id: `L${i}`,
    url: `http://[2001:db8::${(i % 9) + 1}]:8080/section/${i}/page.html?q=${'x'.repeat(i % 50)}`,
    host: `[2001:db8::${(i % 9) + 1}]:8080`,
    depth: i % 7,
    via: i % 3 === 0 ? null : `http://[2001:db8::1]:8080/${i - 1}`,
    redirects: i % 2,
    kind: i % 5 === 0 ? 'sitemap' : 'page',
    attempt: 1 + (i % 3),
    expiresAt: 1_767_225_600_000 + i,
  };
}

function completion(i: number, outlinks: number): WireCompletion {
  return {
    lease: `L${i}`,
    outcome: i % 4 === 0 ? { kind: 'retry', error: 'timeout', afterMs: 10_000 } : { kind: 'done' },
    report: { fetchMs: 12.5, address: '93.184.216.34' },
    page: { url: `http://a.test/${i}`, status: 200, title: `Page ${i} — ünïcödé ${'"quoted"'}` },
    outlinks: Array.from({ length: outlinks }, (_, j) => ({
      url: `http://a.test/${i}/${j}`,
      depth: 2,
      via: `http://a.test/${i}`,
    })),
    rejected: [{ url: `http://b.test/${i}`, depth: 2, via: `http://a.test/${i}`, reason: 'scope' }],
    modules: [{ module: 'meta', record: { i, tags: ['a', 'b'] } }],
  };
}

describe('a message that fits in one packet', () => {
  it('is one packet, byte for byte what encode() makes', () => {
    const p: OurPacket = {
      type: 'COMPLETED',
      requestId: 9,
      more: false,
      body: {
        stale: ['a'],
        records: [{ id: 'r', url: 'http://x.test/', depth: 1, via: null, reason: 'scope' }],
        added: 3,
      },
    };
    const frames = encodeMessage(p);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.equals(encode(p))).toBe(true);
  });
});

describe('splitting batches', () => {
  it('LEASES: 3,000 leases go in as many packets as needed and come back in order', () => {
    const body: Bodies['LEASES'] = {
      leases: Array.from({ length: 3000 }, (_, i) => lease(i)),
      ended: null,
      nextReadyAt: 1_767_225_600_500,
    };
    const { frames, joined } = roundTrip({ type: 'LEASES', requestId: 77, more: false, body });
    expect(frames.length).toBeGreaterThan(5);
    expect(joined).toEqual({ type: 'LEASES', requestId: 77, more: false, body });
  });

  it('fills each packet close to the limit', () => {
    const body: Bodies['EXTEND'] = { leases: Array.from({ length: 20_000 }, (_, i) => `lease-${i}`) };
    const { frames } = roundTrip({ type: 'EXTEND', requestId: 1, more: false, body });
    for (const f of frames.slice(0, -1)) expect(f.length).toBeGreaterThan(65_535 - 20);
  });

  it('works at any packet limit, down to a few hundred bytes', () => {
    const body: Bodies['ADD'] = {
      links: Array.from({ length: 200 }, (_, i) => ({
        url: `http://a.test/${i}`,
        depth: 1,
        via: null,
        kind: 'page' as const,
      })),
      rejected: Array.from({ length: 50 }, (_, i) => ({
        url: `http://b.test/${i}`,
        depth: 1,
        via: null,
        reason: 'exclude',
      })),
    };
    for (const limit of [200, 333, 1000, 4096]) {
      const { frames, joined } = roundTrip({ type: 'ADD', requestId: 3, more: false, body }, limit);
      expect(frames.length).toBeGreaterThan(1);
      expect(joined).toMatchObject({ body });
    }
  });

  it('COMPLETED and ADDED: counts are carried once and summed back', () => {
    const records = Array.from({ length: 2000 }, (_, i) => ({
      id: `r${i}`,
      url: `http://b.test/${i}`,
      depth: 3,
      via: 'http://a.test/',
      reason: 'scope',
    }));
    const completed = roundTrip(
      { type: 'COMPLETED', requestId: 4, more: false, body: { stale: ['x', 'y'], records, added: 1234 } },
      4096,
    );
    expect(completed.joined).toMatchObject({ body: { stale: ['x', 'y'], records, added: 1234 } });
    const added = roundTrip({ type: 'ADDED', requestId: 5, more: false, body: { added: 99, records } }, 4096);
    expect(added.joined).toMatchObject({ body: { added: 99, records } });
  });

  it('RELEASE, EXTENDED and ACK split and join too', () => {
    const releases = Array.from({ length: 3000 }, (_, i) => ({
      lease: `L${i}`,
      report: { fetchMs: i, crawlDelayMs: 1000 },
    }));
    expect(
      roundTrip({ type: 'RELEASE', requestId: 0, more: false, body: { releases } }).joined,
    ).toMatchObject({
      body: { releases },
    });
    const leases = Array.from({ length: 3000 }, (_, i) => ({ id: `L${i}`, expiresAt: i }));
    expect(
      roundTrip({ type: 'EXTENDED', requestId: 2, more: false, body: { leases, stale: ['s'] } }).joined,
    ).toMatchObject({ body: { leases, stale: ['s'] } });
    const ids = Array.from({ length: 9000 }, (_, i) => `record-${i}`);
    expect(roundTrip({ type: 'ACK', requestId: 0, more: false, body: { ids } }).joined).toMatchObject({
      body: { ids },
    });
  });

  it("ACK's lines split with its ids, a line too large for a packet cut to fit, and an ACK without lines joins without them", () => {
    const ids = Array.from({ length: 600 }, (_, i) => `record-${i}`);
    const lines = ids.map((_, i) => ({
      url: `http://a.test/asset-${i}.css`,
      status: 200,
      contentType: 'text/css',
      bytes: i,
      requisite: true,
      captured: true,
    }));
    const { frames, joined } = roundTrip(
      { type: 'ACK', requestId: 3, more: false, body: { ids, lines } },
      4096,
    );
    expect(frames.length).toBeGreaterThan(2);
    expect(joined).toEqual({ type: 'ACK', requestId: 3, more: false, body: { ids, lines } });
    const huge = { url: 'http://a.test/x.css', title: 'y'.repeat(100_000), captured: true };
    const cut = roundTrip({ type: 'ACK', requestId: 4, more: false, body: { ids: ['r1'], lines: [huge] } });
    expect(cut.joined).toMatchObject({
      body: { ids: ['r1'], lines: [{ url: 'http://a.test/x.css', captured: true, truncated: true }] },
    });
    const plain = roundTrip({ type: 'ACK', requestId: 0, more: false, body: { ids } }, 1024).joined;
    expect(plain).toEqual({ type: 'ACK', requestId: 0, more: false, body: { ids } });
  });

  it('COMPLETE: many completions, and one with 6,000 outlinks, continue across packets and fold back whole', () => {
    const completions = [completion(1, 3), completion(2, 6000), completion(3, 0), completion(4, 10)];
    const body = { completions };
    const { frames, joined } = roundTrip({ type: 'COMPLETE', requestId: 11, more: false, body });
    expect(frames.length).toBeGreaterThan(3);
    expect(joined).toEqual({ type: 'COMPLETE', requestId: 11, more: false, body });
  });

  it('COMPLETE: at a 300-byte limit every item still goes, one or two per packet', () => {
    const completions = [completion(1, 20), completion(8, 5)];
    const { frames, joined } = roundTrip(
      { type: 'COMPLETE', requestId: 1, more: false, body: { completions } },
      300,
    );
    expect(frames.length).toBeGreaterThan(10);
    expect(joined).toMatchObject({ body: { completions } });
  });

  it('MODULE: a 300 KB source with escapes and characters of every width is cut and joined exactly', () => {
    const source = `// "quotes" \\ back\tslash\n${'const s = "ä€😀";\n'.repeat(15_000)}export default { name: 'big' };\n`;
    const sha256 = createHash('sha256').update(source).digest('hex');
    const { frames, joined } = roundTrip({
      type: 'MODULE',
      requestId: 0,
      more: false,
      body: { name: 'big', sha256, source },
    });
    expect(frames.length).toBeGreaterThan(4);
    expect(joined).toMatchObject({ body: { name: 'big', sha256, source } });
    if (joined.type === 'MODULE')
      expect(createHash('sha256').update(joined.body.source).digest('hex')).toBe(sha256);
  });
});

describe('a single item larger than a packet', () => {
  it('a huge page record is cut to fit and marked truncated, keeping its other fields', () => {
    const page = {
      url: 'http://a.test/',
      status: 200,
      title: 't'.repeat(200_000),
      extra: { list: Array(50_000).fill(7) },
    };
    const c: WireCompletion = { ...completion(1, 2), page };
    const { joined } = roundTrip({ type: 'COMPLETE', requestId: 2, more: false, body: { completions: [c] } });
    const got = (joined as Extract<Message, { type: 'COMPLETE' }>).body.completions[0];
    expect(got?.page).toMatchObject({ url: 'http://a.test/', status: 200, truncated: true });
    expect(String(got?.page?.title).startsWith('tttt')).toBe(true);
    expect(String(got?.page?.title).endsWith('…')).toBe(true);
    expect(got?.outlinks).toEqual(c.outlinks);
  });

  it('a page record with a cycle, a BigInt or 100 levels of nesting is made JSON and cut', () => {
    const cyclic: Record<string, unknown> = { url: 'http://a.test/', status: 200 };
    cyclic.self = cyclic;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = [deep];
    const odd = { url: 'http://a.test/', big: 12345678901234567890n, deep };
    for (const page of [cyclic, odd]) {
      const c: WireCompletion = { ...completion(1, 0), page };
      const { joined } = roundTrip({
        type: 'COMPLETE',
        requestId: 2,
        more: false,
        body: { completions: [c] },
      });
      const got = (joined as Extract<Message, { type: 'COMPLETE' }>).body.completions[0];
      expect(got?.page).toMatchObject({ url: 'http://a.test/', truncated: true });
    }
  });

  it('a record with 100,000 keys keeps what fits', () => {
    const page: Record<string, unknown> = { url: 'http://a.test/', status: 404 };
    for (let i = 0; i < 100_000; i++) page[`k${i}`] = i;
    const c: WireCompletion = { ...completion(1, 0), page };
    const { joined } = roundTrip({ type: 'COMPLETE', requestId: 2, more: false, body: { completions: [c] } });
    const got = (joined as Extract<Message, { type: 'COMPLETE' }>).body.completions[0];
    expect(got?.page).toMatchObject({ url: 'http://a.test/', status: 404, truncated: true });
  });

  it('a huge module record and a huge site info are cut the same way', () => {
    const c: WireCompletion = {
      ...completion(1, 0),
      modules: [{ module: 'emails', record: { all: 'e'.repeat(100_000) } }],
    };
    const complete = roundTrip({ type: 'COMPLETE', requestId: 2, more: false, body: { completions: [c] } });
    const got = (complete.joined as Extract<Message, { type: 'COMPLETE' }>).body.completions[0];
    expect(got?.modules[0]).toMatchObject({ module: 'emails', record: { truncated: true } });
    const site = roundTrip({
      type: 'RECORDSITE',
      requestId: 3,
      more: false,
      body: { origin: 'http://a.test', address: null, firstSeen: 1, info: { server: 's'.repeat(100_000) } },
    });
    expect(site.frames).toHaveLength(1);
    expect(site.joined).toMatchObject({ body: { origin: 'http://a.test', info: { truncated: true } } });
  });

  it('a URL too long for any packet is refused with ITEM_TOO_LARGE, naming the item', () => {
    const url = `http://a.test/${'a'.repeat(70_000)}`;
    const attempt = () =>
      encodeMessage({
        type: 'ADD',
        requestId: 1,
        more: false,
        body: { links: [{ url, depth: 0, via: null }], rejected: [] },
      });
    expect(attempt).toThrow(ProtocolError);
    expect(attempt).toThrow(/ADD\.links\[0\]/);
    const outlink = () =>
      encodeMessage({
        type: 'COMPLETE',
        requestId: 1,
        more: false,
        body: { completions: [{ ...completion(1, 0), outlinks: [{ url, depth: 1, via: null }] }] },
      });
    expect(outlink).toThrow(/COMPLETE\.completions\[0\]\.outlinks\[0\]/);
    try {
      outlink();
    } catch (e) {
      expect((e as ProtocolError).codeName).toBe('ITEM_TOO_LARGE');
    }
  });

  it('a packet type that cannot be split is refused whole when too large', () => {
    expect(() =>
      encodeMessage({ type: 'AUTH', requestId: 0, more: false, body: { token: 'x'.repeat(70_000) } }),
    ).toThrow(/over the 65535-byte packet limit/);
  });
});

describe('MessageJoiner', () => {
  const frag = (requestId: number, ids: string[], more: boolean): Packet => ({
    type: 'ACK',
    requestId,
    more,
    body: { ids },
  });

  it('joins interleaved messages of different request ids separately', () => {
    const j = new MessageJoiner();
    expect(j.push(frag(1, ['a'], true))).toBeNull();
    expect(j.push(frag(2, ['x'], true))).toBeNull();
    expect(j.push(frag(1, ['b'], false))).toMatchObject({
      requestId: 1,
      more: false,
      body: { ids: ['a', 'b'] },
    });
    expect(j.push(frag(2, ['y'], false))).toMatchObject({ requestId: 2, body: { ids: ['x', 'y'] } });
    expect(j.open).toBe(0);
  });

  it('holds at most maxBytes of half-received messages, of all request ids together; a whole one frees its bytes', () => {
    const j = new MessageJoiner({ maxBytes: 1000 });
    expect(j.push(frag(1, ['a'], true), 400)).toBeNull();
    expect(j.push(frag(2, ['b'], true), 400)).toBeNull();
    expect(j.heldBytes).toBe(800);
    // finishing message 1 frees its 400 + 100 bytes
    expect(j.push(frag(1, ['c'], false), 100)).toMatchObject({ body: { ids: ['a', 'c'] } });
    expect(j.heldBytes).toBe(400);
    expect(j.push(frag(3, ['d'], true), 600)).toBeNull();
    // a packet that is not split holds nothing
    expect(j.push(frag(4, ['e'], false), 60_000)).toMatchObject({ body: { ids: ['e'] } });
    expect(() => j.push(frag(2, ['f'], true), 1)).toThrow(
      expect.objectContaining({ codeName: 'BAD_FRAGMENTS', message: expect.stringMatching(/1000 bytes/) }),
    );
  });

  it('passes packets that are not split straight through', () => {
    const j = new MessageJoiner();
    const p: Packet = { type: 'DEQUEUE' };
    expect(j.push(p)).toBe(p);
    expect(j.push(frag(3, ['a'], false))).toMatchObject({ body: { ids: ['a'] } });
  });

  it('refuses too many fragments, too many open messages, and orphan continuations', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as ProtocolError).codeName;
      }
      return 'none';
    };
    const few = new MessageJoiner({ maxFragments: 3 });
    for (let i = 0; i < 3; i++) few.push(frag(1, ['a'], true));
    expect(code(() => few.push(frag(1, ['a'], true)))).toBe('BAD_FRAGMENTS');
    const narrow = new MessageJoiner({ maxOpen: 2 });
    narrow.push(frag(1, ['a'], true));
    narrow.push(frag(2, ['a'], true));
    expect(code(() => narrow.push(frag(3, ['a'], true)))).toBe('BAD_FRAGMENTS');
    const orphan: Packet = {
      type: 'COMPLETE',
      requestId: 1,
      more: false,
      body: { completions: [{ lease: 'L1', outlinks: [], rejected: [], modules: [] }] },
    };
    expect(code(() => new MessageJoiner().push(orphan))).toBe('BAD_FRAGMENTS');
    const twice: Packet = {
      type: 'COMPLETE',
      requestId: 1,
      more: false,
      body: { completions: [completion(1, 0), completion(1, 0)] },
    };
    expect(code(() => new MessageJoiner().push(twice))).toBe('BAD_FRAGMENTS');
  });

  it('refuses MODULE pieces that name different modules', () => {
    const j = new MessageJoiner();
    const sha256 = '0'.repeat(64);
    j.push({ type: 'MODULE', requestId: 0, more: true, body: { name: 'a', sha256, source: 'x' } });
    expect(() =>
      j.push({ type: 'MODULE', requestId: 0, more: false, body: { name: 'b', sha256, source: 'y' } }),
    ).toThrow(/different modules/);
  });
});
