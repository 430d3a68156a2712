import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decode,
  decodeDequeueReply,
  decodeFrame,
  encode,
  encodeMessage,
  type Packet,
  PacketCode,
  PacketDecoder,
} from '../../src/protocol/index.js';
import { FIXTURES, type Fixture, MODULE_SOURCE } from './fixtures.js';

function decoderFor(f: Fixture): PacketDecoder {
  const d = new PacketDecoder({ from: f.from });
  if (f.dequeueReply) d.expectDequeueReply();
  return d;
}

/** Feeds `chunks` to a fresh decoder; returns every packet and the error, if any. */
function feed(f: Fixture, chunks: Buffer[]) {
  const d = decoderFor(f);
  const packets: Packet[] = [];
  for (const c of chunks) {
    const r = d.push(c);
    packets.push(...r.packets);
    if (r.error) return { packets, error: r.error, decoder: d };
  }
  return { packets, error: d.end(), decoder: d };
}

describe('the byte fixtures', () => {
  it('cover every type code', () => {
    const named = new Set(FIXTURES.map((f) => f.packet.type));
    for (const name of Object.keys(PacketCode)) expect(named, name).toContain(name);
    expect(named).toContain('DEQUEUE_REPLY');
  });

  it('count their whole length in the length field', () => {
    for (const f of FIXTURES) {
      if (f.bytes.length === 2) continue; // the empty DEQUEUE reply 00 00 is the one exception
      expect(f.bytes.readUInt16BE(0), f.name).toBe(f.bytes.length);
    }
  });

  it('carry a MODULE source whose sha256 is the one in the packet', () => {
    const f = FIXTURES.find((x) => x.name === 'MODULE');
    expect(f?.packet).toMatchObject({
      body: { sha256: createHash('sha256').update(MODULE_SOURCE).digest('hex') },
    });
  });
});

describe.each(FIXTURES.map((f) => [f.name, f] as const))('%s', (_name, f) => {
  it('decodes to its packet', () => {
    const r = feed(f, [f.bytes]);
    expect(r.error).toBeNull();
    expect(r.packets).toEqual([f.packet]);
    expect(r.decoder.state).toBe('awaiting-head');
  });

  it('encodes to its bytes, alone and as a message', () => {
    expect(encode(f.packet).equals(f.bytes)).toBe(true);
    const frames = encodeMessage(f.packet);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.equals(f.bytes)).toBe(true);
  });

  it('round-trips: decode(encode(packet)) is the packet', () => {
    const again = f.dequeueReply ? decodeDequeueReply(encode(f.packet)).reply : decodeFrame(encode(f.packet));
    expect(again).toEqual(f.packet);
  });

  it('decodes split at every offset', () => {
    for (let i = 1; i < f.bytes.length; i++) {
      const r = feed(f, [f.bytes.subarray(0, i), f.bytes.subarray(i)]);
      expect(r.error, `split at ${i}`).toBeNull();
      expect(r.packets, `split at ${i}`).toEqual([f.packet]);
    }
  });

  it('decodes one byte at a time, yielding nothing before its last byte', () => {
    const d = decoderFor(f);
    for (let i = 0; i < f.bytes.length - 1; i++) {
      expect(d.push(f.bytes.subarray(i, i + 1))).toEqual({ packets: [], sizes: [], error: null });
    }
    expect(d.push(f.bytes.subarray(f.bytes.length - 1))).toEqual({
      packets: [f.packet],
      sizes: [f.bytes.length],
      error: null,
    });
    expect(d.end()).toBeNull();
  });

  it('stops short of its last byte with TRUNCATED at the end of the stream', () => {
    const r = feed(f, [f.bytes.subarray(0, f.bytes.length - 1)]);
    expect(r.packets).toEqual([]);
    expect(r.error?.codeName).toBe('TRUNCATED');
  });
});

describe('a stream of packets', () => {
  const clientStream = FIXTURES.filter((f) => f.from === 'client');
  const all = Buffer.concat(clientStream.map((f) => f.bytes));

  it('decodes every packet in order, whole or cut anywhere', () => {
    const expected = clientStream.map((f) => f.packet);
    for (let i = 0; i <= all.length; i += 7) {
      const d = new PacketDecoder({ from: 'client' });
      const a = d.push(all.subarray(0, i));
      const b = d.push(all.subarray(i));
      expect(a.error ?? b.error, `cut at ${i}`).toBeNull();
      expect([...a.packets, ...b.packets], `cut at ${i}`).toEqual(expected);
    }
  });

  it('leaves a partial packet as the rest of a one-shot decode', () => {
    const cut = all.length - 5;
    const r = decode(all.subarray(0, cut), { from: 'client' });
    expect(r.error).toBeNull();
    expect(r.packets).toEqual(clientStream.slice(0, -1).map((f) => f.packet));
    expect(r.rest.equals(all.subarray(cut - (clientStream.at(-1)?.bytes.length ?? 0) + 5, cut))).toBe(true);
  });

  it('reads typeless DEQUEUE replies between typed packets when told to expect them', () => {
    const reply = FIXTURES.find((f) => f.name === 'DEQUEUE reply') as Fixture;
    const empty = FIXTURES.find((f) => f.name === 'DEQUEUE reply, empty') as Fixture;
    const welcome = FIXTURES.find((f) => f.name === 'WELCOME') as Fixture;
    const stream = Buffer.concat([welcome.bytes, reply.bytes, empty.bytes, welcome.bytes]);
    const d = new PacketDecoder({ from: 'server' });
    const first = d.push(stream.subarray(0, welcome.bytes.length));
    d.expectDequeueReply();
    d.expectDequeueReply();
    const rest = d.push(stream.subarray(welcome.bytes.length));
    expect(first.error ?? rest.error).toBeNull();
    expect([...first.packets, ...rest.packets]).toEqual([
      welcome.packet,
      reply.packet,
      empty.packet,
      welcome.packet,
    ]);
  });
});
