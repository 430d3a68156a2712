import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher } from '../../../src/fetch/fetcher.js';
import {
  LateStartError,
  RobotsCache,
  type RobotsCacheOptions,
} from '../../../src/fetch/robots/robots-cache.js';
import { MAX_ROBOTS_BYTES } from '../../../src/fetch/robots/robots-txt.js';
import { type Handler, serve, type TestServer } from '../../helpers/http.js';

const USER_AGENT = 'cobweb/0.1.0 (+https://github.com/cobweb-crawler/cobweb)';
const HOUR = 60 * 60 * 1000;

let fetcher: Fetcher;
const servers: TestServer[] = [];

beforeAll(() => {
  fetcher = new Fetcher({ userAgent: USER_AGENT, totalTimeoutMs: 20_000 });
});
afterAll(() => fetcher.close());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(address: string, handler: Handler): Promise<TestServer> {
  const server = await serve(address, handler);
  servers.push(server);
  return server;
}

function text(res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain'): void {
  res.writeHead(status, { 'content-type': type }).end(body);
}

/** A test clock: starts at a fixed time and moves only when a test moves it. */
function testClock(): { now: () => number; advance(ms: number): void } {
  let time = 1_700_000_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function cacheWith(options: Partial<RobotsCacheOptions> = {}): RobotsCache {
  return new RobotsCache({
    fetch: (url, startBy) => fetcher.fetch(url, undefined, startBy),
    userAgent: USER_AGENT,
    ...options,
  });
}

function requestedPaths(server: TestServer): string[] {
  return server.log.map((entry) => entry.path);
}

/** `text` followed by comment lines up to exactly `length` bytes (ASCII only). */
function padTo(text: string, length: number): string {
  let padded = text;
  while (length - padded.length > 1000) padded += `#${'.'.repeat(998)}\n`;
  const rest = length - padded.length;
  return padded + (rest === 1 ? '\n' : `#${'.'.repeat(rest - 2)}\n`);
}

describe('RobotsCache', () => {
  it('fetches robots.txt once per origin and applies the group for our product token', async () => {
    const robotstxt = [
      'User-agent: *',
      'Disallow: /private',
      '',
      'User-agent: cobweb',
      'Disallow: /no-cobweb',
      'Crawl-delay: 2',
      '',
      'Sitemap: https://example.com/sitemap.xml',
      'Sitemap: https://example.com/news.xml',
    ].join('\n');
    const server = await start('127.0.0.2', (_req, res) => text(res, 200, robotstxt));
    const clock = testClock();
    const cache = cacheWith({ now: clock.now });

    expect(await cache.check(`${server.origin}/public`)).toEqual({
      allowed: true,
      crawlDelayMs: 2000,
      fetched: true,
    });
    expect(await cache.check(`${server.origin}/no-cobweb/page`)).toEqual({
      allowed: false,
      reason: 'robots',
      crawlDelayMs: 2000,
      fetched: false,
    });
    // The * group is not ours once a group names cobweb.
    expect((await cache.check(`${server.origin}/private`)).allowed).toBe(true);
    expect(requestedPaths(server)).toEqual(['/robots.txt']);

    expect(cache.summaryOf(server.origin)).toEqual({
      origin: server.origin,
      status: 200,
      state: 'parsed',
      crawlDelayMs: 2000,
      sitemaps: ['https://example.com/sitemap.xml', 'https://example.com/news.xml'],
      fetchedAt: clock.now(),
    });
  });

  it('reads nothing and caches nothing when the read could not start by its deadline', async () => {
    const server = await start('127.0.0.2', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /x'));
    const cache = cacheWith();

    await expect(cache.refresh(server.origin, Date.now() - 1)).rejects.toBeInstanceOf(LateStartError);
    // Not taken for an unreachable robots.txt: nothing is known, and the host saw nothing.
    expect(cache.cached(`${server.origin}/x`)).toBeUndefined();
    expect(requestedPaths(server)).toEqual([]);
    // On time, it is read.
    expect((await cache.refresh(server.origin, Date.now() + 60_000)).requests).toHaveLength(1);
    expect(cache.cached(`${server.origin}/x`)?.allowed).toBe(false);
  });

  it('knows nothing of an origin before its first check', () => {
    expect(cacheWith().summaryOf('http://127.0.0.2:1')).toBeUndefined();
  });

  it.each([401, 403, 404, 410])('allows everything when robots.txt answers %i', async (status) => {
    const server = await start('127.0.0.2', (_req, res) => text(res, status, 'User-agent: *\nDisallow: /\n'));
    const cache = cacheWith();
    expect(await cache.check(`${server.origin}/anything`)).toEqual({
      allowed: true,
      crawlDelayMs: null,
      fetched: true,
    });
    expect(cache.summaryOf(server.origin)).toMatchObject({ status, state: 'allow-all', sitemaps: [] });
  });

  it('disallows everything after a 500, and fetches again once the retry time has passed', async () => {
    let status = 500;
    const server = await start('127.0.0.2', (_req, res) =>
      text(res, status, 'User-agent: *\nDisallow: /x\n'),
    );
    const clock = testClock();
    const cache = cacheWith({ now: clock.now, unavailableRetryMs: 10 * 60 * 1000 });
    const url = `${server.origin}/page`;

    expect(await cache.check(url)).toEqual({
      allowed: false,
      reason: 'robots-unavailable',
      crawlDelayMs: null,
      fetched: true,
    });
    expect(cache.summaryOf(server.origin)).toMatchObject({ status: 500, state: 'unavailable' });

    status = 200;
    clock.advance(10 * 60 * 1000 - 1);
    expect(await cache.check(url)).toMatchObject({
      allowed: false,
      reason: 'robots-unavailable',
      fetched: false,
    });
    expect(server.log).toHaveLength(1);

    clock.advance(1);
    expect(await cache.check(url)).toEqual({ allowed: true, crawlDelayMs: null, fetched: true });
    expect(await cache.check(`${server.origin}/x`)).toMatchObject({ allowed: false, reason: 'robots' });
    expect(requestedPaths(server)).toEqual(['/robots.txt', '/robots.txt']);
    expect(cache.summaryOf(server.origin)).toMatchObject({ status: 200, state: 'parsed' });
  });

  it('asks an unreachable robots.txt again after waits that double, up to the TTL', async () => {
    const server = await start('127.0.0.2', (_req, res) => text(res, 503, 'down'));
    const clock = testClock();
    const retry = 60 * 1000;
    const cache = cacheWith({ now: clock.now, ttlMs: 8 * retry, unavailableRetryMs: retry });
    const url = `${server.origin}/page`;
    const waits: number[] = [];
    let since = clock.now();
    expect(await cache.check(url)).toMatchObject({ reason: 'robots-unavailable', fetched: true });
    while (waits.length < 6) {
      // Every check meanwhile is answered from the cache; the first one after the wait asks.
      clock.advance(1000);
      const verdict = await cache.check(url);
      expect(verdict).toMatchObject({ allowed: false, reason: 'robots-unavailable' });
      if (verdict.fetched) {
        waits.push((clock.now() - since) / retry);
        since = clock.now();
      }
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8]);
    expect(server.log).toHaveLength(7);
  });

  it('treats 429 like a server error', async () => {
    const server = await start('127.0.0.2', (_req, res) => text(res, 429, 'slow down'));
    const verdict = await cacheWith().check(`${server.origin}/page`);
    expect(verdict).toMatchObject({ allowed: false, reason: 'robots-unavailable' });
  });

  it('disallows everything when robots.txt never answers', async () => {
    const server = await start('127.0.0.2', () => {
      // Never answers; the server's close() drops the connection after the test.
    });
    const impatient = new Fetcher({ userAgent: USER_AGENT, totalTimeoutMs: 500 });
    try {
      const cache = new RobotsCache({ fetch: (url) => impatient.fetch(url), userAgent: USER_AGENT });
      expect(await cache.check(`${server.origin}/page`)).toMatchObject({
        allowed: false,
        reason: 'robots-unavailable',
        crawlDelayMs: null,
        fetched: true,
        // the cause travels with the verdict, so the page can be recorded with it
        failure: { ok: false, error: 'timeout' },
      });
      expect(cache.summaryOf(server.origin)).toMatchObject({ status: null, state: 'unavailable' });
    } finally {
      // The hanging server goes first, so that no connection is left for the fetcher to wait on.
      await Promise.all(servers.splice(0).map((s) => s.close()));
      await impatient.close();
    }
  });

  it('disallows everything when the connection is refused', async () => {
    const gone = await serve('127.0.0.3', () => {});
    await gone.close();
    const verdict = await cacheWith().check(`${gone.origin}/page`);
    expect(verdict).toMatchObject({ allowed: false, reason: 'robots-unavailable' });
  });

  describe('redirects', () => {
    /** /robots.txt -> /hop-1 -> ... -> /hop-N, which serves `robotstxt`. */
    function redirectChain(hops: number, robotstxt: string): Handler {
      return (req, res) => {
        const at = req.url === '/robots.txt' ? 0 : Number(req.url?.replace('/hop-', ''));
        if (at < hops) res.writeHead(at % 2 === 0 ? 301 : 302, { location: `/hop-${at + 1}` }).end();
        else text(res, 200, robotstxt);
      };
    }

    it('follows five redirects to the robots.txt', async () => {
      const server = await start('127.0.0.2', redirectChain(5, 'User-agent: *\nDisallow: /secret\n'));
      const cache = cacheWith();
      expect(await cache.check(`${server.origin}/secret`)).toMatchObject({
        allowed: false,
        reason: 'robots',
      });
      expect(server.log).toHaveLength(6);
      expect(cache.summaryOf(server.origin)).toMatchObject({ status: 200, state: 'parsed' });
    });

    it('allows everything after a sixth redirect, as RFC 9309 2.3.1.2 lets it', async () => {
      const server = await start('127.0.0.2', redirectChain(6, 'User-agent: *\nDisallow: /\n'));
      const cache = cacheWith();
      expect(await cache.check(`${server.origin}/secret`)).toEqual({
        allowed: true,
        crawlDelayMs: null,
        fetched: true,
      });
      expect(requestedPaths(server)).toEqual([
        '/robots.txt',
        '/hop-1',
        '/hop-2',
        '/hop-3',
        '/hop-4',
        '/hop-5',
      ]);
      expect(cache.summaryOf(server.origin)).toMatchObject({ status: 302, state: 'allow-all' });
    });

    it('applies a robots.txt reached through two redirects to another host to the first origin', async () => {
      const target = await start('127.0.0.3', (req, res) => {
        if (req.url === '/moved') res.writeHead(302, { location: '/robots-real.txt' }).end();
        else text(res, 200, 'User-agent: cobweb\nDisallow: /secret\nCrawl-delay: 1.5\n');
      });
      const first = await start('127.0.0.2', (_req, res) => {
        res.writeHead(301, { location: `${target.origin}/moved` }).end();
      });
      const cache = cacheWith();
      expect(await cache.check(`${first.origin}/secret/x`)).toEqual({
        allowed: false,
        reason: 'robots',
        crawlDelayMs: 1500,
        fetched: true,
      });
      expect(await cache.check(`${first.origin}/open`)).toMatchObject({ allowed: true, fetched: false });
      expect(requestedPaths(target)).toEqual(['/moved', '/robots-real.txt']);
      expect(cache.summaryOf(first.origin)).toMatchObject({
        status: 200,
        state: 'parsed',
        crawlDelayMs: 1500,
      });
      expect(cache.summaryOf(target.origin)).toBeUndefined();
    });
  });

  it('parses only the first 500 KiB of a 2 MB robots.txt', async () => {
    const head = padTo('User-agent: *\nDisallow: /early\n', MAX_ROBOTS_BYTES + 100 * 1024);
    const body = padTo(`${head}Disallow: /late\n`, 2 * 1024 * 1024);
    const server = await start('127.0.0.2', (_req, res) => text(res, 200, body));
    const cache = cacheWith();
    expect(await cache.check(`${server.origin}/early`)).toMatchObject({ allowed: false, reason: 'robots' });
    expect(await cache.check(`${server.origin}/late`)).toMatchObject({ allowed: true });
  });

  it('allows everything when robots.txt is binary garbage', async () => {
    const garbage = Buffer.alloc(64 * 1024);
    let state = 0x9e3779b9;
    for (let i = 0; i < garbage.length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      garbage[i] = state >>> 24;
    }
    const server = await start('127.0.0.2', (_req, res) =>
      text(res, 200, garbage, 'application/octet-stream'),
    );
    const cache = cacheWith();
    expect(await cache.check(`${server.origin}/any/page`)).toEqual({
      allowed: true,
      crawlDelayMs: null,
      fetched: true,
    });
    expect(cache.summaryOf(server.origin)).toMatchObject({ status: 200, state: 'parsed', sitemaps: [] });
  });

  it('sends concurrent checks on one origin through one request', async () => {
    const a = await start('127.0.0.2', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /odd\n'));
    const b = await start('127.0.0.3', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /even\n'));
    const cache = cacheWith();
    const urls = Array.from(
      { length: 20 },
      (_, i) => `${i % 2 === 0 ? a.origin : b.origin}/${i % 4 < 2 ? 'odd' : 'even'}/${i}`,
    );
    const verdicts = await Promise.all(urls.map((url) => cache.check(url)));

    expect(requestedPaths(a)).toEqual(['/robots.txt']);
    expect(requestedPaths(b)).toEqual(['/robots.txt']);
    expect(verdicts.every((v) => v.fetched)).toBe(true);
    const expected = urls.map((url) => !url.includes(url.startsWith(a.origin) ? '/odd/' : '/even/'));
    expect(verdicts.map((v) => v.allowed)).toEqual(expected);
    expect(expected).toContain(true);
    expect(expected).toContain(false);
  });

  it('keeps at most maxOrigins origins, forgetting the one loaded longest ago', async () => {
    const a = await start('127.0.0.2', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /x\n'));
    const b = await start('127.0.0.3', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /x\n'));
    const c = await start('127.0.0.4', (_req, res) => text(res, 200, 'User-agent: *\nDisallow: /x\n'));
    const cache = cacheWith({ maxOrigins: 2 });
    for (const s of [a, b, c]) await cache.check(`${s.origin}/page`);
    expect(cache.summaryOf(a.origin)).toBeUndefined();
    expect(cache.summaryOf(c.origin)).toMatchObject({ state: 'parsed' });
    // a comes back: read again (one more request), still obeyed
    expect(await cache.check(`${a.origin}/x`)).toMatchObject({ allowed: false, fetched: true });
    expect(requestedPaths(a)).toEqual(['/robots.txt', '/robots.txt']);
    expect(requestedPaths(c)).toEqual(['/robots.txt']);
  });

  it('fetches robots.txt again when its time to live is over', async () => {
    let robotstxt = 'User-agent: *\nDisallow: /old\n';
    const server = await start('127.0.0.2', (_req, res) => text(res, 200, robotstxt));
    const clock = testClock();
    const cache = cacheWith({ now: clock.now, ttlMs: 24 * HOUR });

    expect((await cache.check(`${server.origin}/old`)).allowed).toBe(false);
    robotstxt = 'User-agent: *\nDisallow: /new\n';
    clock.advance(24 * HOUR - 1);
    expect((await cache.check(`${server.origin}/old`)).allowed).toBe(false);
    clock.advance(1);
    expect(await cache.check(`${server.origin}/old`)).toMatchObject({ allowed: true, fetched: true });
    expect((await cache.check(`${server.origin}/new`)).allowed).toBe(false);
    expect(server.log).toHaveLength(2);
  });

  it('keeps the rules it has when a refresh finds robots.txt unreachable, and retries', async () => {
    let status = 200;
    let robotstxt = 'User-agent: *\nDisallow: /old\n';
    const server = await start('127.0.0.2', (_req, res) => text(res, status, robotstxt));
    const clock = testClock();
    const cache = cacheWith({ now: clock.now, ttlMs: 24 * HOUR, unavailableRetryMs: HOUR });

    expect((await cache.check(`${server.origin}/old`)).allowed).toBe(false);
    const firstFetchAt = clock.now();
    status = 503;
    clock.advance(24 * HOUR);
    expect(await cache.check(`${server.origin}/old`)).toMatchObject({
      allowed: false,
      reason: 'robots',
      fetched: true,
    });
    expect((await cache.check(`${server.origin}/other`)).allowed).toBe(true);
    expect(cache.summaryOf(server.origin)).toMatchObject({
      status: 200,
      state: 'parsed',
      fetchedAt: firstFetchAt,
    });

    status = 200;
    robotstxt = 'User-agent: *\nDisallow: /new\n';
    clock.advance(HOUR);
    expect(await cache.check(`${server.origin}/old`)).toMatchObject({ allowed: true, fetched: true });
    expect(server.log).toHaveLength(3);
  });

  it('refuses URLs that are not http(s)', async () => {
    await expect(cacheWith().check('ftp://127.0.0.2/file')).rejects.toThrow(TypeError);
    await expect(cacheWith().check('not a url')).rejects.toThrow(TypeError);
  });
});
