import { afterEach, describe, expect, it } from 'vitest';
import { encode, type OurPacket, PacketDecoder } from '../../src/protocol/index.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/** CRAWL (38) on a real server's socket: which crawl a connection's packets are about. */

let server: InProcessServer;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.dispose();
});

async function client(): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  clients.push(c);
  return c;
}

const crawlPacket = (crawl: string, requestId = 0) =>
  encode({ type: 'CRAWL', requestId, more: false, body: { crawl } });
const DEQUEUE = Buffer.from([0x00, 0x03, 0x01]);

/** The packets of ours the server wrote before it closed the connection. */
async function repliesToClose(c: RawClient): Promise<OurPacket[]> {
  const { packets, error } = new PacketDecoder({ from: 'server' }).push(await c.readToClose());
  expect(error).toBeNull();
  return packets as OurPacket[];
}

async function queue(crawl: string, url: string): Promise<void> {
  const { store } = (await server.crawls.get(crawl, true))?.service ?? {};
  if (store === undefined) throw new Error(`no crawl ${crawl}`);
  await store.add([{ url, depth: 0, via: null }], [], await store.registerCrawler('test'));
}

describe('CRAWL (38)', () => {
  it("sends the connection's packets to that crawl: DEQUEUE takes its URLs, not the default crawl's", async () => {
    server = await startTestServer();
    await queue('shop', 'http://shop.test/cart');
    const shop = await client();
    shop.send(crawlPacket('shop'), DEQUEUE);
    const reply = await shop.read(10 + 'shop.test'.length + '/cart'.length); // the length counts itself
    expect(reply.includes(Buffer.from('shop.test\0/cart\0'))).toBe(true);
    const plain = await client();
    plain.send(DEQUEUE);
    expect([...(await plain.read(2))]).toEqual([0x00, 0x00]); // the default crawl has nothing queued
  });

  it('answers OK with a request id, after AUTH too', async () => {
    server = await startTestServer();
    await server.crawls.get('shop', true);
    const c = await client();
    c.send(
      encode({ type: 'AUTH', requestId: 0, more: false, body: { token: 'test-token' } }),
      crawlPacket('shop', 5),
    );
    const { packets } = new PacketDecoder({ from: 'server' }).push(await c.read(10));
    expect(packets).toEqual([{ type: 'OK', requestId: 5, more: false, body: {} }]);
  });

  it('refuses a crawl the server does not hold with UNKNOWN_CRAWL (207), and starts none', async () => {
    server = await startTestServer();
    const c = await client();
    c.send(crawlPacket('nope'));
    const [error] = await repliesToClose(c);
    expect(error).toMatchObject({ type: 'ERROR', body: { code: 207 } });
    expect(server.crawls.exists('nope')).toBe(false);
  });

  it('refuses CRAWL after another packet, or twice, with CRAWL_NOT_FIRST (208)', async () => {
    server = await startTestServer();
    await server.crawls.get('shop', true);
    const late = await client();
    late.send(encode({ type: 'STATS', requestId: 1, more: false, body: {} }), crawlPacket('shop'));
    const replies = await repliesToClose(late);
    expect(replies.at(-1)).toMatchObject({ type: 'ERROR', body: { code: 208 } });
    const twice = await client();
    twice.send(crawlPacket('shop'), crawlPacket('shop'));
    expect((await repliesToClose(twice)).at(-1)).toMatchObject({ type: 'ERROR', body: { code: 208 } });
  });

  it('refuses a HELLO naming another crawl than CRAWL chose', async () => {
    server = await startTestServer();
    await server.crawls.get('shop', true);
    const c = await client();
    c.send(
      crawlPacket('shop'),
      encode({ type: 'HELLO', requestId: 2, more: false, body: { name: 'b', protocol: 1, crawl: 'news' } }),
    );
    expect((await repliesToClose(c)).at(-1)).toMatchObject({ type: 'ERROR', body: { code: 208 } });
    expect(server.crawls.exists('news')).toBe(false);
  });
});
