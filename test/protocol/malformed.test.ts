import { describe, expect, it } from 'vitest';
import {
  type DecoderOptions,
  decodeDequeueReply,
  ErrorCode,
  type ErrorCodeName,
  PacketDecoder,
} from '../../src/protocol/index.js';
import { bytes, FIXTURES } from './fixtures.js';

const NUL = [0x00];

/** Our packet header: length, type, request id, flags. */
function ours(length: number, type: number, requestId: number, flags: number): number[] {
  return [
    length >> 8,
    length & 0xff,
    type,
    requestId >>> 24,
    (requestId >> 16) & 0xff,
    (requestId >> 8) & 0xff,
    requestId & 0xff,
    flags,
  ];
}

/** Our packet with a JSON text body; the length is counted here, as the body is what is under test. */
function oursWith(type: number, requestId: number, body: string | Buffer, flags = 0): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([Buffer.from(ours(8 + b.length, type, requestId, flags)), b]);
}

interface Case {
  name: string;
  bytes: Buffer;
  code: ErrorCodeName;
  options?: DecoderOptions;
  dequeueReply?: true;
}

const CASES: Case[] = [
  // --- lengths
  {
    name: 'length 2, below the 3 of length and type',
    bytes: bytes([0x00, 0x02], [0x01]),
    code: 'BAD_LENGTH',
  },
  { name: 'length 0 where a typed packet is due', bytes: bytes([0x00, 0x00], [0x01]), code: 'BAD_LENGTH' },
  { name: 'length 1', bytes: bytes([0x00, 0x01]), code: 'BAD_LENGTH' },
  {
    name: 'length over the limit (1,025 against 1,024)',
    bytes: bytes([0x04, 0x01], [0x13]),
    code: 'TOO_LARGE',
    options: { maxPacket: 1024 },
  },
  { name: 'DEQUEUE with a byte too many', bytes: bytes([0x00, 0x04], [0x01], [0x00]), code: 'BAD_LENGTH' },
  {
    name: 'ENQUEUE shorter than its fixed 11 bytes',
    bytes: bytes([0x00, 0x0a], [0x02], [1, 2, 3, 4, 0, 80, 0]),
    code: 'BAD_LENGTH',
  },
  {
    name: 'LOGDATA of 3 bytes (no room for the NUL)',
    bytes: bytes([0x00, 0x03], [0x07]),
    code: 'BAD_LENGTH',
  },
  {
    name: 'our packet shorter than its 8-byte header',
    bytes: bytes([0x00, 0x07], [0x10], [0, 0, 0, 0]),
    code: 'BAD_LENGTH',
  },
  {
    name: 'ERROR longer than 2,048 bytes',
    bytes: oursWith(36, 0, `{"code":1,"message":"${'x'.repeat(2100)}"}`),
    code: 'BAD_LENGTH',
  },
  // --- strings
  {
    name: 'ENQUEUE whose path has no NUL',
    bytes: bytes([0x00, 0x12], [0x02], [127, 0, 0, 1], [0x00, 0x50], 'a.test', NUL, '/x'),
    code: 'MISSING_NUL',
  },
  {
    name: 'ENQUEUE with no NUL at all',
    bytes: bytes([0x00, 0x11], [0x02], [127, 0, 0, 1], [0x00, 0x50], 'a.test/xx'),
    code: 'MISSING_NUL',
  },
  {
    name: 'LOGDATA whose name has no NUL',
    bytes: bytes([0x00, 0x0c], [0x07], 'crawl.log'),
    code: 'MISSING_NUL',
  },
  {
    name: 'ENQUEUE with a byte after the path NUL',
    bytes: bytes([0x00, 0x14], [0x02], [127, 0, 0, 1], [0x00, 0x50], 'a.test', NUL, '/x', NUL, [0x41]),
    code: 'TRAILING_BYTES',
  },
  {
    name: 'NEWMOD with two strings',
    bytes: bytes([0x00, 0x07], [0x09], 'a', NUL, 'b', NUL),
    code: 'TRAILING_BYTES',
  },
  {
    name: 'ENQUEUE whose host is not UTF-8',
    bytes: bytes([0x00, 0x0f], [0x02], [127, 0, 0, 1], [0x00, 0x50], [0xff, 0xfe, 0x41], NUL, '/', NUL),
    code: 'BAD_TEXT',
  },
  // --- types and direction
  {
    name: 'type 11 (between the original and our codes)',
    bytes: bytes([0x00, 0x03], [0x0b]),
    code: 'UNKNOWN_TYPE',
  },
  { name: 'type 0', bytes: bytes([0x00, 0x03], [0x00]), code: 'UNKNOWN_TYPE' },
  { name: 'type 48 (after ours)', bytes: oursWith(48, 1, '{}'), code: 'UNKNOWN_TYPE' },
  { name: 'type 255', bytes: bytes([0x00, 0x03], [0xff]), code: 'UNKNOWN_TYPE' },
  {
    name: 'a reply (LEASES) sent to the server',
    bytes: oursWith(20, 1, '{"leases":[],"ended":null,"nextReadyAt":null}'),
    code: 'WRONG_DIRECTION',
    options: { from: 'client' },
  },
  {
    name: 'a request (DEQUEUE) sent to a client',
    bytes: bytes([0x00, 0x03], [0x01]),
    code: 'WRONG_DIRECTION',
    options: { from: 'server' },
  },
  // --- header fields
  { name: 'a reserved flag bit', bytes: oursWith(19, 1, '{"n":1,"waitMs":0}', 0x02), code: 'BAD_FLAGS' },
  {
    name: 'MORE on HELLO, which cannot be split',
    bytes: oursWith(17, 1, '{"name":"a","protocol":1}', 0x01),
    code: 'BAD_FLAGS',
  },
  {
    name: 'HELLO with request id 0',
    bytes: oursWith(17, 0, '{"name":"a","protocol":1}'),
    code: 'BAD_REQUEST_ID',
  },
  {
    name: 'MODULE (a push) with a request id',
    bytes: oursWith(34, 9, `{"name":"m","sha256":"${'0'.repeat(64)}","source":""}`),
    code: 'BAD_REQUEST_ID',
  },
  // --- JSON
  { name: 'a body cut off mid-JSON', bytes: oursWith(16, 0, '{"token":'), code: 'BAD_JSON' },
  { name: 'an empty body', bytes: oursWith(32, 1, ''), code: 'BAD_JSON' },
  { name: 'a body that is an array', bytes: oursWith(32, 1, '[]'), code: 'BAD_JSON' },
  { name: 'a body that is null', bytes: oursWith(32, 1, 'null'), code: 'BAD_JSON' },
  {
    name: 'a body that is not UTF-8',
    bytes: oursWith(16, 0, Buffer.from([0x7b, 0xc3, 0x28, 0x7d])),
    code: 'BAD_JSON',
  },
  { name: 'two JSON objects', bytes: oursWith(32, 1, '{}{}'), code: 'BAD_JSON' },
  { name: 'a name twice in the body', bytes: oursWith(19, 1, '{"n":1,"waitMs":0,"n":9}'), code: 'BAD_JSON' },
  {
    name: 'a name twice in a nested object, one of them escaped',
    bytes: oursWith(32, 1, '{"x":[{"a":1,"\\u0061":2}]}'),
    code: 'BAD_JSON',
  },
  // --- fields
  { name: 'LEASE n as a string', bytes: oursWith(19, 1, '{"n":"8","waitMs":0}'), code: 'BAD_FIELD' },
  { name: 'LEASE n of 0', bytes: oursWith(19, 1, '{"n":0,"waitMs":0}'), code: 'BAD_FIELD' },
  { name: 'LEASE without waitMs', bytes: oursWith(19, 1, '{"n":1}'), code: 'BAD_FIELD' },
  { name: 'LEASE n over 4096', bytes: oursWith(19, 1, '{"n":4097,"waitMs":0}'), code: 'BAD_FIELD' },
  { name: 'LEASE waitMs over a minute', bytes: oursWith(19, 1, '{"n":1,"waitMs":60001}'), code: 'BAD_FIELD' },
  { name: 'AUTH token as a number', bytes: oursWith(16, 0, '{"token":1234}'), code: 'BAD_FIELD' },
  { name: 'AUTH empty token', bytes: oursWith(16, 0, '{"token":""}'), code: 'BAD_FIELD' },
  {
    name: 'CRAWL named with a slash (a crawl is a folder name)',
    bytes: oursWith(38, 0, '{"crawl":"../etc"}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'HELLO with an empty crawl',
    bytes: oursWith(17, 1, '{"name":"a","protocol":1,"crawl":""}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'a lease of kind "image"',
    bytes: oursWith(
      20,
      1,
      '{"leases":[{"id":"a","url":"http://a.test/","host":"a.test","depth":0,"via":null,"redirects":0,"kind":"image","attempt":1,"expiresAt":0}],"ended":null,"nextReadyAt":null}',
    ),
    code: 'BAD_FIELD',
    options: { from: 'server' },
  },
  {
    name: 'a link with depth -1',
    bytes: oursWith(26, 1, '{"links":[{"url":"http://a.test/","depth":-1,"via":null}]}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'a link with a fractional depth',
    bytes: oursWith(26, 1, '{"links":[{"url":"http://a.test/","depth":1.5,"via":null}]}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'a completion whose page is an array',
    bytes: oursWith(
      21,
      1,
      '{"completions":[{"lease":"a","outcome":{"kind":"done"},"report":{"fetchMs":1},"page":[]}]}',
    ),
    code: 'BAD_FIELD',
  },
  {
    name: 'a retry without afterMs',
    bytes: oursWith(
      21,
      1,
      '{"completions":[{"lease":"a","outcome":{"kind":"retry","error":"timeout"},"report":{"fetchMs":1},"page":null}]}',
    ),
    code: 'BAD_FIELD',
  },
  {
    name: 'an unknown outcome',
    bytes: oursWith(
      21,
      1,
      '{"completions":[{"lease":"a","outcome":{"kind":"maybe"},"report":{"fetchMs":1},"page":null}]}',
    ),
    code: 'BAD_FIELD',
  },
  {
    name: 'a report with a negative fetchMs',
    bytes: oursWith(23, 0, '{"releases":[{"lease":"a","report":{"fetchMs":-1}}]}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'a page record nested 40 deep',
    bytes: oursWith(
      21,
      1,
      `{"completions":[{"lease":"a","outcome":{"kind":"done"},"report":{"fetchMs":1},"page":{"x":${'['.repeat(40)}${']'.repeat(40)}}}]}`,
    ),
    code: 'BAD_FIELD',
  },
  {
    name: 'MODULE with a sha256 that is not hex',
    bytes: oursWith(34, 0, `{"name":"m","sha256":"${'Z'.repeat(64)}","source":""}`),
    code: 'BAD_FIELD',
    options: { from: 'server' },
  },
  { name: 'ACK with an empty id', bytes: oursWith(28, 0, '{"ids":[""]}'), code: 'BAD_FIELD' },
  {
    name: 'ACK with lines not a list',
    bytes: oursWith(28, 0, '{"ids":["r1"],"lines":{}}'),
    code: 'BAD_FIELD',
  },
  {
    name: 'ACK with a line not an object',
    bytes: oursWith(28, 0, '{"ids":["r1"],"lines":["x"]}'),
    code: 'BAD_FIELD',
  },
  { name: 'EXTEND whose leases is an object', bytes: oursWith(24, 1, '{"leases":{}}'), code: 'BAD_FIELD' },
  // --- the typeless DEQUEUE reply
  {
    name: 'DEQUEUE reply of length 5',
    bytes: bytes([0x00, 0x05], [1, 2, 3]),
    code: 'BAD_LENGTH',
    dequeueReply: true,
  },
  {
    name: 'DEQUEUE reply without its path NUL',
    bytes: bytes([0x00, 0x0b], [1, 2, 3, 4], [0, 80], 'a', NUL, '/'),
    code: 'MISSING_NUL',
    dequeueReply: true,
  },
];

function decoder(c: Case): PacketDecoder {
  const d = new PacketDecoder(c.options);
  if (c.dequeueReply) d.expectDequeueReply();
  return d;
}

describe.each(CASES.map((c) => [c.name, c] as const))('malformed: %s', (_name, c) => {
  it(`yields ${c.code} and no packet`, () => {
    const d = decoder(c);
    const r = d.push(c.bytes);
    expect(r.packets).toEqual([]);
    expect(r.error?.codeName).toBe(c.code);
    expect(r.error?.wireCode).toBe(ErrorCode[c.code]);
    expect(d.state).toBe('failed');
  });

  it('yields the same code fed one byte at a time', () => {
    const d = decoder(c);
    let error = null;
    for (let i = 0; i < c.bytes.length && error === null; i++) {
      const r = d.push(c.bytes.subarray(i, i + 1));
      expect(r.packets).toEqual([]);
      error = r.error;
    }
    expect((error ?? d.end())?.codeName).toBe(c.code);
  });

  it('ends the stream: a good packet before it comes out, none after it', () => {
    const good = FIXTURES.find(
      (f) => f.name === (c.options?.from === 'server' || c.dequeueReply ? 'OK' : 'STATS'),
    );
    if (good === undefined) throw new Error('fixture missing');
    const d = new PacketDecoder(c.options);
    const first = d.push(good.bytes);
    if (c.dequeueReply) d.expectDequeueReply();
    const r = d.push(Buffer.concat([c.bytes, good.bytes]));
    expect(first.packets).toEqual([good.packet]);
    expect(r.packets).toEqual([]);
    expect(r.error?.codeName).toBe(c.code);
    expect(d.push(good.bytes)).toEqual({ packets: [], sizes: [], error: r.error });
  });
});

describe('limits are checked before anything is buffered', () => {
  it('refuses an over-limit length from its first two bytes, holding nothing more', () => {
    const d = new PacketDecoder({ maxPacket: 100 });
    expect(d.push(Buffer.from([0xff])).error).toBeNull();
    expect(d.push(Buffer.from([0xff])).error?.codeName).toBe('TOO_LARGE');
    expect(d.peakHeld).toBeLessThanOrEqual(2);
  });

  it('refuses an unknown type from its third byte, before its 60,000-byte body', () => {
    const d = new PacketDecoder();
    const r = d.push(Buffer.from([0xea, 0x60, 0x0c]));
    expect(r.error?.codeName).toBe('UNKNOWN_TYPE');
    expect(d.peakHeld).toBeLessThanOrEqual(3);
  });

  it('refuses a 60,000-byte QUIT from its head', () => {
    const d = new PacketDecoder();
    expect(d.push(Buffer.from([0xea, 0x60, 0x05])).error?.codeName).toBe('BAD_LENGTH');
    expect(d.peakHeld).toBeLessThanOrEqual(3);
  });

  it('accepts a packet of exactly 65,535 bytes and holds no more than it', () => {
    const token = 'x'.repeat(65_535 - 8 - '{"token":""}'.length);
    const frame = oursWith(16, 0, `{"token":"${token}"}`);
    expect(frame.length).toBe(65_535);
    const d = new PacketDecoder();
    const a = d.push(frame.subarray(0, 1000));
    const b = d.push(frame.subarray(1000));
    expect(a.error ?? b.error).toBeNull();
    expect(b.packets).toMatchObject([{ type: 'AUTH', body: { token } }]);
    expect(d.peakHeld).toBe(65_535);
  });

  it('refuses a decoder limit outside 3..65,535 at construction', () => {
    expect(() => new PacketDecoder({ maxPacket: 70_000 })).toThrow(RangeError);
    expect(() => new PacketDecoder({ maxPacket: 2 })).toThrow(RangeError);
  });
});

describe('decodeDequeueReply (one-shot, for a client reading its reply)', () => {
  it('waits for the whole reply, then returns it and the rest', () => {
    const reply = FIXTURES.find((f) => f.name === 'DEQUEUE reply');
    if (reply === undefined) throw new Error('fixture missing');
    expect(decodeDequeueReply(reply.bytes.subarray(0, 5))).toEqual({
      reply: null,
      rest: reply.bytes.subarray(0, 5),
      error: null,
    });
    const r = decodeDequeueReply(Buffer.concat([reply.bytes, Buffer.from([0, 0])]));
    expect(r.reply).toEqual(reply.packet);
    expect([...r.rest]).toEqual([0, 0]);
    expect(decodeDequeueReply(r.rest).reply).toEqual({ type: 'DEQUEUE_REPLY', target: null });
  });

  it('reports a malformed reply by code', () => {
    expect(decodeDequeueReply(Buffer.from([0, 4, 1, 2])).error?.codeName).toBe('BAD_LENGTH');
  });
});
