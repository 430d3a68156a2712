import { afterEach, describe, expect, it } from 'vitest';
import { encode } from '../../src/protocol/index.js';
import { ProbabilityBackoff, parseBackoff } from '../../src/server/backoff.js';
import { cobweb } from '../helpers/cli-process.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * The original server's "probability" back-off (--backoff AFTER:EVERY,...): after AFTER
 * URLs of one web server were handed out, only every EVERY-th offer of it is; a URL held
 * back is deferred, never dropped.
 */

const pattern = (b: ProbabilityBackoff, server: string, offers: number) =>
  Array.from({ length: offers }, () => (b.handOut(server) ? '1' : '0')).join('');

describe('ProbabilityBackoff', () => {
  it('hands out every URL until AFTER, then every EVERY-th, step by step', () => {
    const b = new ProbabilityBackoff(parseBackoff('2:2,4:3'));
    // 2 handed out; then every 2nd offer (handed 3, 4); then every 3rd
    expect(pattern(b, 'a.test:80', 14)).toBe('11010100100100');
  });

  it('counts each web server apart, and hands out everything with no steps', () => {
    const b = new ProbabilityBackoff([{ after: 1, every: 2 }]);
    expect(pattern(b, 'a.test:80', 5)).toBe('10101');
    expect(pattern(b, 'b.test:80', 3)).toBe('101');
    expect(pattern(new ProbabilityBackoff([]), 'a.test:80', 5)).toBe('11111');
  });

  it('takes its steps in any order', () => {
    const sorted = new ProbabilityBackoff(parseBackoff('2:2,4:3'));
    const unsorted = new ProbabilityBackoff(parseBackoff('4:3, 2:2'));
    expect(pattern(unsorted, 's', 20)).toBe(pattern(sorted, 's', 20));
  });
});

describe('parseBackoff', () => {
  it('reads AFTER:EVERY steps, and nothing from an empty text', () => {
    expect(parseBackoff('100:2,1000:3,10000:4')).toEqual([
      { after: 100, every: 2 },
      { after: 1000, every: 3 },
      { after: 10000, every: 4 },
    ]);
    expect(parseBackoff('')).toEqual([]);
  });

  it('refuses what is not AFTER:EVERY, and EVERY 0', () => {
    for (const text of ['100', '100:0', 'a:2', '100:2,', '-1:2'])
      expect(() => parseBackoff(text), text).toThrow();
  });

  it('is what `cobweb server --backoff` refuses with a usage error', async () => {
    const p = cobweb(['server', '--backoff', '100', '--listen', '127.0.0.1:0']);
    expect(await p.exit()).toBe(2);
    expect(p.stderr()).toMatch(/--backoff: "100" is not AFTER:EVERY/);
  });
});

describe('DEQUEUE with --backoff', () => {
  let server: InProcessServer;
  afterEach(async () => {
    await server?.dispose();
  });

  it('after 2 hits only every 2nd URL of a web server is handed out; the others are deferred, all fetched in the end', async () => {
    server = await startTestServer({ backoff: [{ after: 2, every: 2 }] });
    const me = await server.store.registerCrawler('seeds');
    const urls = Array.from({ length: 6 }, (_, i) => `http://a.test/${i}`);
    await server.store.add(
      urls.map((url) => ({ url, depth: 0, via: null })),
      [],
      me,
    );
    const c = await RawClient.connect(server.port);
    const replies: string[] = [];
    const handed: string[] = [];
    // bounded: 6 URLs, each held back at most once in a row
    for (let i = 0; i < 30 && handed.length < urls.length; i++) {
      const target = await c.dequeue();
      replies.push(target === null ? '-' : 'a');
      if (target === null) continue;
      handed.push(`http://${target.host}${target.path}`);
      c.send(encode({ type: 'STOREURL', target }));
    }
    // one more DEQUEUE: the packets before it are done when it is answered
    expect(await c.dequeue()).toBeNull();
    c.close();
    expect(replies.join('')).toBe('aa-a-a-a-a');
    // deferred, never dropped: every URL was handed out, once
    expect([...handed].sort()).toEqual([...urls].sort());
    expect(await server.store.stats()).toMatchObject({ done: 6, queued: 0, leased: 0 });
  });
});
