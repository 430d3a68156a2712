import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkRulesOf } from '../../src/assembly/parts.js';
import { ParsePool } from '../../src/bunny/parse-pool.js';
import { type VisitParts, visit } from '../../src/bunny/visit.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { RobotsCache } from '../../src/fetch/robots/robots-cache.js';
import type { Lease } from '../../src/frontier/types.js';
import { withDefaults } from '../../src/options/options.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';

/** One visit (robots gate -> fetch -> parse) against a real web server, with a real fetcher. */

let web: TestServer;
let fetcher: Fetcher;

beforeEach(async () => {
  web = await serve(
    '127.0.0.2',
    routes({ '/robots.txt': 'User-agent: *\nAllow: /\n', '/': page('root'), '/2': page('two') }),
  );
});

afterEach(async () => {
  await fetcher.close();
  await web.close();
});

function parts(resolve?: ReadonlyMap<string, string>): VisitParts {
  fetcher = new Fetcher({ userAgent: 'cobweb-test', ...(resolve === undefined ? {} : { resolve }) });
  const robots = new RobotsCache({ fetch: (url) => fetcher.fetch(url), userAgent: 'cobweb-test' });
  const rules = linkRulesOf(withDefaults({ seeds: [web.origin] }), [`${web.origin}/`]);
  return {
    fetcher,
    robots,
    gate: { maxDelayMs: 30_000, retryDelayMs: 10_000 },
    sitemaps: null,
    // No parse workers: the pages are parsed on this thread.
    parser: new ParsePool({ threads: 0, rules, followNofollow: false }),
    options: { rules, retry: { retries: 0, retryDelayMs: 10_000 }, crawler: 1 },
  };
}

function lease(url: string, extra: Partial<Lease> = {}): Lease {
  const host = new URL(url).host;
  return {
    id: 1,
    url,
    host,
    depth: 0,
    via: null,
    redirects: 0,
    kind: 'page',
    attempt: 1,
    expiresAt: Date.now() + 60_000,
    ...extra,
  };
}

describe('a visit and its start deadline', () => {
  it('gives a lease whose startBy has passed back deferred, and makes no request', async () => {
    const p = parts();
    const late = await visit(lease(`${web.origin}/`), p, Date.now() - 1);
    expect(late.page.completion.outcome).toEqual({ kind: 'deferred' });
    expect(late.page.report).toMatchObject({ noRequest: true });
    expect(late.page.record).toBeNull();
    expect(web.log).toEqual([]);
    // robots.txt known, the page's own request is held to the deadline too
    await visit(lease(`${web.origin}/`), p, Date.now() + 60_000);
    expect(web.log.map((r) => r.path)).toEqual(['/robots.txt']);
    const lateAgain = await visit(lease(`${web.origin}/2`), p, Date.now() - 1);
    expect(lateAgain.page.completion.outcome).toEqual({ kind: 'deferred' });
    expect(web.log.map((r) => r.path)).toEqual(['/robots.txt']);
    // in time: fetched
    const inTime = await visit(lease(`${web.origin}/2`), p, Date.now() + 60_000);
    expect(inTime.page.record).toMatchObject({ status: 200, title: 'two' });
    expect(web.log.map((r) => r.path)).toEqual(['/robots.txt', '/2']);
  });

  it('gives a lease that needs its address back with the address it would dial, making no request', async () => {
    const url = `http://named.test:${web.port}/`;
    const p = parts(new Map([[`named.test:${web.port}`, '127.0.0.2']]));
    const placed = await visit(lease(url, { needsAddress: true }), p);
    expect(placed.page.completion.outcome).toEqual({ kind: 'deferred' });
    expect(placed.page.report).toEqual({ fetchMs: 0, noRequest: true, address: '127.0.0.2' });
    expect(web.log).toEqual([]);
    // once the host is placed, its requests (robots.txt first) go to that address
    const robots = await visit(lease(url), p);
    expect(robots.page.report.address).toBe('127.0.0.2');
    const fetched = await visit(lease(url), p);
    expect(fetched.page.record).toMatchObject({ status: 200 });
    expect(web.log.map((r) => [r.host, r.path])).toEqual([
      [`named.test:${web.port}`, '/robots.txt'],
      [`named.test:${web.port}`, '/'],
    ]);
  });
});
