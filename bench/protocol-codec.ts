// What the protocol codec alone costs per URL, with no sockets and no store: the ceiling the
// codec puts on `cobweb server`. Each URL makes the round trip a bunny and the server make for
// it: a lease handed out, its completion with 10 outlinks and a pages.jsonl record sent back.
// Every packet is encoded, decoded and joined, on both sides.
// Run: node --import tsx bench/protocol-codec.ts   (BENCH_CODEC_URLS=50000 to change the count)
import {
  decode,
  decodeDequeueReply,
  encodeDequeueReply,
  encodeMessage,
  type Message,
  MessageJoiner,
  originalFromUrl,
  type Packet,
  PacketDecoder,
  type WireCompletion,
  type WireLease,
} from '../src/protocol/index.js';

const URLS = Number(process.env.BENCH_CODEC_URLS ?? 50_000);

function lease(i: number): WireLease {
  return {
    id: `L${i}`,
    url: `http://host${i % 100}.test/section/${i}/page.html`,
    host: `host${i % 100}.test`,
    depth: 3,
    via: `http://host${i % 100}.test/section/${i - 1}/`,
    redirects: 0,
    kind: 'page',
    attempt: 1,
    expiresAt: 1_767_225_600_000 + i,
  };
}

function completion(l: WireLease): WireCompletion {
  return {
    lease: l.id,
    outcome: { kind: 'done' },
    report: { fetchMs: 120, address: '93.184.216.34' },
    page: {
      url: l.url,
      status: 200,
      contentType: 'text/html',
      bytes: 18_000,
      depth: l.depth,
      title: 'A page of the synthetic web',
      outlinks: 10,
      hasForm: false,
      fetchedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 120,
      via: l.via,
    },
    outlinks: Array.from({ length: 10 }, (_, j) => ({
      url: `${l.url}?link=${j}`,
      depth: l.depth + 1,
      via: l.url,
    })),
    rejected: [],
    modules: [],
  };
}

/** Decodes and joins what `frames` carries, as the other side would. */
function receive(frames: Buffer[], decoder: PacketDecoder, joiner: MessageJoiner): Message[] {
  const out: Message[] = [];
  for (const f of frames) {
    const r = decoder.push(f);
    if (r.error) throw r.error;
    for (const p of r.packets) {
      const m = joiner.push(p as Packet);
      if (m) out.push(m);
    }
  }
  return out;
}

function batched(batch: number): number {
  const toServer = new PacketDecoder({ from: 'client' });
  const toClient = new PacketDecoder({ from: 'server' });
  const joinServer = new MessageJoiner();
  const joinClient = new MessageJoiner();
  const start = performance.now();
  let requestId = 1;
  for (let i = 0; i < URLS; i += batch) {
    const leases = Array.from({ length: Math.min(batch, URLS - i) }, (_, k) => lease(i + k));
    const id = requestId++;
    receive(
      encodeMessage({ type: 'LEASE', requestId: id, more: false, body: { n: batch, waitMs: 1000 } }),
      toServer,
      joinServer,
    );
    const got = receive(
      encodeMessage({
        type: 'LEASES',
        requestId: id,
        more: false,
        body: { leases, ended: null, nextReadyAt: null },
      }),
      toClient,
      joinClient,
    );
    const handed = got[0]?.type === 'LEASES' ? got[0].body.leases : [];
    const cid = requestId++;
    receive(
      encodeMessage({
        type: 'COMPLETE',
        requestId: cid,
        more: false,
        body: { completions: handed.map(completion) },
      }),
      toServer,
      joinServer,
    );
    receive(
      encodeMessage({
        type: 'COMPLETED',
        requestId: cid,
        more: false,
        body: { stale: [], records: [], added: 10 * handed.length },
      }),
      toClient,
      joinClient,
    );
  }
  return URLS / ((performance.now() - start) / 1000);
}

/** The original packets: DEQUEUE, its reply, 10 ENQUEUE, STOREURL per URL. */
function original(): number {
  const toServer = new PacketDecoder({ from: 'client' });
  const start = performance.now();
  for (let i = 0; i < URLS; i++) {
    const l = lease(i);
    toServer.push(encodeMessage({ type: 'DEQUEUE' })[0] as Buffer);
    const reply = decodeDequeueReply(encodeDequeueReply(originalFromUrl(l.url, '93.184.216.34')));
    if (reply.reply?.target == null) throw new Error('empty reply');
    const frames: Buffer[] = [];
    for (const link of completion(l).outlinks)
      frames.push(...encodeMessage({ type: 'ENQUEUE', target: originalFromUrl(link.url) }));
    frames.push(...encodeMessage({ type: 'STOREURL', target: reply.reply.target }));
    const r = decode(Buffer.concat(frames), { from: 'client' });
    if (r.error || r.packets.length !== 11) throw new Error('original packets did not decode');
  }
  return URLS / ((performance.now() - start) / 1000);
}

const rows: [string, number][] = [
  ['our packets, one URL per message', batched(1)],
  ['our packets, 16 URLs per message', batched(16)],
  ['our packets, 64 URLs per message', batched(64)],
  ['original packets (DEQUEUE, reply, 10 ENQUEUE, STOREURL)', original()],
];
console.log(`protocol codec, ${URLS} URLs, 10 outlinks each, Node ${process.version}`);
console.log('| messages | URLs per second (codec only, both sides) |');
console.log('|---|---|');
for (const [label, rate] of rows) console.log(`| ${label} | ${Math.round(rate).toLocaleString('en')} |`);
