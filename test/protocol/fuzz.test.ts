import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  decodeFrame,
  encode,
  errorCodeName,
  type Message,
  MessageJoiner,
  type Packet,
  PacketDecoder,
  ProtocolError,
} from '../../src/protocol/index.js';
import { createPacketFuzzer } from '../helpers/packet-fuzz.js';

const SEED = 0x5eed_c0b;
const MUTATED = 100_000;
// A bound for a loaded machine, not a speed target: the loop takes a few seconds alone.
const FUZZ_TIMEOUT_MS = 240_000;

/** Feeds `chunks` to `decoder`; any exception escaping push() fails the test. */
function run(decoder: PacketDecoder, chunks: Buffer[]) {
  const packets: Packet[] = [];
  let error: ProtocolError | null = null;
  for (const c of chunks) {
    const r = decoder.push(c);
    packets.push(...r.packets);
    if (r.error) {
      error = r.error;
      break;
    }
  }
  return { packets, error: error ?? decoder.end() };
}

describe('fuzzing the decoder (seeded)', { timeout: FUZZ_TIMEOUT_MS }, () => {
  it(`decodes ${MUTATED.toLocaleString('en')} mutated packets with nothing but coded errors, within its limit`, () => {
    const fuzz = createPacketFuzzer(SEED);
    const codes = new Map<string, number>();
    // expect() is slow in a loop of 100,000: failures are collected and checked once.
    const failures: string[] = [];
    let decodedPackets = 0;
    for (let i = 0; i < MUTATED && failures.length < 10; i++) {
      const { bytes, mutations } = fuzz.mutated(fuzz.random() < 0.8 ? 'client' : 'server');
      const where = () => `packet ${i} (${mutations.join(', ')}): ${bytes.subarray(0, 40).toString('hex')}`;
      const maxPacket = fuzz.random() < 0.2 ? 64 + fuzz.int(4000) : 65_535;
      const decoder = new PacketDecoder({ from: fuzz.random() < 0.5 ? 'client' : 'any', maxPacket });
      let result: ReturnType<typeof run>;
      try {
        result = run(decoder, fuzz.chunks(bytes));
      } catch (e) {
        failures.push(`${where()}: push() threw ${String(e)}`);
        continue;
      }
      const { packets, error } = result;
      if (decoder.peakHeld > maxPacket) failures.push(`${where()}: held ${decoder.peakHeld} > ${maxPacket}`);
      if (error !== null) {
        if (
          !(error instanceof ProtocolError) ||
          errorCodeName(error.wireCode) !== error.codeName ||
          error.codeName === 'INTERNAL' ||
          error.message === ''
        ) {
          failures.push(`${where()}: uncoded error ${String(error)}`);
        }
        codes.set(error.codeName, (codes.get(error.codeName) ?? 0) + 1);
        // nothing more comes out of a failed stream, not even a good packet
        if (decoder.push(Buffer.from([0, 3, 1])).packets.length > 0)
          failures.push(`${where()}: a packet after the error`);
      }
      // Whatever decoded is a packet the codec can write again, to the same packet.
      for (const p of packets) {
        if (p.type === 'DEQUEUE_REPLY') continue;
        try {
          if (!isDeepStrictEqual(decodeFrame(encode(p)), p))
            failures.push(`${where()}: ${p.type} changed on re-encoding`);
        } catch (e) {
          failures.push(`${where()}: ${p.type} could not be re-encoded: ${String(e)}`);
        }
        decodedPackets++;
      }
      // and the joiner takes it or refuses it by code
      const joiner = new MessageJoiner();
      for (const p of packets) {
        try {
          joiner.push(p);
        } catch (e) {
          if ((e as ProtocolError).codeName !== 'BAD_FRAGMENTS')
            failures.push(`${where()}: joiner threw ${String(e)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The mutations reached every check: each of these codes was met.
    for (const code of [
      'BAD_LENGTH',
      'TOO_LARGE',
      'UNKNOWN_TYPE',
      'MISSING_NUL',
      'BAD_JSON',
      'BAD_FIELD',
      'BAD_FLAGS',
      'BAD_REQUEST_ID',
      'TRUNCATED',
      'TRAILING_BYTES',
      'WRONG_DIRECTION',
    ]) {
      expect(codes.get(code) ?? 0, code).toBeGreaterThan(0);
    }
    expect(decodedPackets).toBeGreaterThan(1000);
  });

  it('decodes streams of valid packets up to a mutated one: every packet before it is exact', () => {
    const fuzz = createPacketFuzzer(SEED + 1);
    for (let s = 0; s < 2000; s++) {
      const valid = Array.from({ length: 1 + fuzz.int(8) }, () => fuzz.validPacket('client'));
      const bad = fuzz.int(valid.length + 1);
      const parts = valid.map((v) => v.bytes);
      if (bad < valid.length) parts.splice(bad, 0, fuzz.mutated('client').bytes);
      const decoder = new PacketDecoder({ from: 'client' });
      const { packets, error } = run(decoder, fuzz.chunks(Buffer.concat(parts)));
      expect(packets.slice(0, bad)).toEqual(valid.slice(0, bad).map((v) => v.packet));
      if (bad === valid.length) {
        expect(error).toBeNull();
        expect(packets).toHaveLength(valid.length);
      }
      if (error !== null) expect(error).toBeInstanceOf(ProtocolError);
    }
  });

  it('decodes random garbage with coded errors only', () => {
    const fuzz = createPacketFuzzer(SEED + 2);
    const failures: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const decoder = new PacketDecoder();
      if (fuzz.random() < 0.3) decoder.expectDequeueReply();
      const bytes = fuzz.garbage();
      const { error } = run(decoder, fuzz.chunks(bytes));
      if (error !== null && (errorCodeName(error.wireCode) === undefined || error.codeName === 'INTERNAL'))
        failures.push(`${bytes.toString('hex')}: ${error}`);
      if (decoder.peakHeld > 65_535) failures.push(`${bytes.toString('hex')}: held ${decoder.peakHeld}`);
    }
    expect(failures).toEqual([]);
  });

  it('is the same run for the same seed', () => {
    const a = createPacketFuzzer(42);
    const b = createPacketFuzzer(42);
    for (let i = 0; i < 100; i++) expect(a.mutated().bytes.equals(b.mutated().bytes)).toBe(true);
  });

  it('generates valid packets of every kind that decode to themselves', () => {
    const fuzz = createPacketFuzzer(SEED + 3);
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      for (const from of ['client', 'server'] as const) {
        const { packet, bytes } = fuzz.validPacket(from);
        const d = new PacketDecoder({ from });
        const r = d.push(bytes);
        expect(r.error).toBeNull();
        expect(r.packets).toEqual([packet]);
        seen.add(packet.type);
      }
    }
    expect(seen.size).toBe(40);
    const joined: Message | null = new MessageJoiner().push({
      type: 'STATS',
      requestId: 1,
      more: false,
      body: {},
    });
    expect(joined).not.toBeNull();
  });
});
