import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { PageRecord } from '../../src/output/pages-log.js';
import type { Handler, TestServer } from './http.js';
import { page } from './http.js';

/**
 * Makes every fetch a SQLite store remembers `ms` older, as if that long had passed
 * since (between runs: no crawl has the store open). A run asked to recrawl what is an
 * hour old then finds the earlier run's pages due, and none of its own.
 */
export function ageFetches(store: string, ms: number): void {
  const db = new Database(store);
  try {
    db.prepare('UPDATE urls SET fetched_at = fetched_at - ? WHERE fetched_at IS NOT NULL').run(ms);
  } finally {
    db.close();
  }
}

/** The ETag of the page that is asked for again. */
export const HOME_ETAG = '"home-1"';

/** The longest /hold waits for the revisit before it answers anyway (and the test fails). */
const HOLD_BOUND_MS = 60_000;

export interface RevisitWeb {
  /** The page fetched, then due again within the run (127.0.0.2). */
  home: TestServer;
  /** A page that keeps the run going until the home page was asked for again (127.0.0.3). */
  hold: TestServer;
  seeds: string[];
  /** The request headers of each request for the home page, in order. */
  homeAsked(): IncomingHttpHeaders[];
}

/**
 * Two sites for a run that must recrawl while it runs. The home page (with an ETag,
 * answered 304 to a request that names it) is fetched at once; /hold on another host
 * answers only once the home page has been asked for again with If-None-Match, so the
 * run is still going when the home page comes due, however long that takes, and it
 * ends once /hold is answered (or after a generous bound, when nothing came).
 */
export async function revisitWeb(
  site: (address: string, table: Record<string, Handler | string>) => Promise<TestServer>,
): Promise<RevisitWeb> {
  const waiting: ServerResponse[] = [];
  let revisited = false;
  const answer = (res: ServerResponse) => {
    if (!res.writableEnded) res.writeHead(200, { 'content-type': 'text/html' }).end(page('held'));
  };
  const home = await site('127.0.0.2', {
    '/': (req, res) => {
      if (req.headers['if-none-match'] === HOME_ETAG) {
        revisited = true;
        for (const held of waiting.splice(0)) answer(held);
        res.writeHead(304, { etag: HOME_ETAG }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', etag: HOME_ETAG }).end(page('home'));
    },
  });
  const hold = await site('127.0.0.3', {
    '/hold': (_req, res) => {
      if (revisited) return answer(res);
      waiting.push(res);
      setTimeout(() => answer(res), HOLD_BOUND_MS).unref();
    },
  });
  return {
    home,
    hold,
    seeds: [`${home.origin}/`, `${hold.origin}/hold`],
    homeAsked: () => home.log.filter((r) => r.path === '/').map((r) => r.headers),
  };
}

/**
 * What a run that recrawled while it ran must show, whatever the store: the home page
 * fetched, then asked for again with its ETag (answered 304, recorded as not modified)
 * while /hold kept the run going, and every line written; the run ended by itself.
 */
export function expectRevisitedInRun(
  web: RevisitWeb,
  summary: { stoppedBy: string; fetchedThisRun: number; queued: number },
  pages: readonly PageRecord[],
): void {
  expect(summary.stoppedBy).toBe('finished');
  const asked = web.homeAsked();
  expect(asked.length).toBeGreaterThanOrEqual(2);
  expect(asked.map((headers) => headers['if-none-match'])).toEqual([
    undefined,
    ...asked.slice(1).map(() => HOME_ETAG),
  ]);
  const home = pages.filter((r) => r.url === web.seeds[0]);
  expect(home.map((r) => [r.status, r.notModified])).toEqual([
    [200, undefined],
    ...home.slice(1).map(() => [304, true]),
  ]);
  expect(home).toHaveLength(asked.length);
  expect(pages.find((r) => r.url === web.seeds[1])?.status).toBe(200);
  expect(summary.fetchedThisRun).toBe(asked.length + 1);
  expect(summary.queued).toBe(0);
}
