import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { crawl } from '../../src/assembly/crawl.js';
import type { CrawlOptions } from '../../src/options/options.js';
import { readPages } from '../helpers/pages.js';

/** The same synthetic web, crawled with each seen set: the same pages, each fetched once (counted at its server). */

let dir: string;
let web: RunningWeb | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-seen-web-'));
});

afterEach(async () => {
  await web?.close();
  web = null;
  rmSync(dir, { recursive: true, force: true });
});

const FAST = { delayMs: 0, delayFactor: 0, perHost: 4, concurrency: 16 } as const;

function fetchedUrls(): string[] {
  return readPages(join(dir, 'pages.jsonl'))
    .filter((r) => r.fetchedAt !== null)
    .map((r) => r.url)
    .sort();
}

function pageRequests(w: RunningWeb): string[] {
  return w.requestLog.filter((r) => r.path !== '/robots.txt').map((r) => `${r.host}${r.path}`);
}

describe.each(['memory', 'lmdb', 'drum'] as const)('crawling the synthetic web with --seen %s', (seen) => {
  it('fetches every reachable page, each once', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'], pagesPerHost: 80 });
    const summary = await crawl({ seeds: web.sites.map((s) => `${s.origin}/`), data: dir, seen, ...FAST });
    expect(summary.stoppedBy).toBe('finished');
    // The store answered with the set asked for, not its own table.
    expect(summary.seen).toMatchObject({ kind: seen, size: web.reachable().length });
    const urls = fetchedUrls();
    expect(urls).toEqual([...web.reachable()].sort());
    const requests = pageRequests(web);
    expect(requests).toHaveLength(urls.length);
    expect(new Set(requests).size).toBe(requests.length);
  });
});

describe('crawling the synthetic web with --seen bloom', () => {
  it('fetches the reachable pages but at most its false-positive rate of them, each once', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'], pagesPerHost: 80 });
    const fpRate = 0.01;
    const said: string[] = [];
    await crawl({
      onLog: (line) => said.push(line),
      seeds: web.sites.map((s) => `${s.origin}/`),
      data: dir,
      seen: 'bloom',
      seenCapacity: 1000,
      seenFpRate: fpRate,
      ...FAST,
    });
    const reachable = [...web.reachable()];
    const urls = fetchedUrls();
    const missing = reachable.filter((u) => !urls.includes(u));
    expect(urls.every((u) => reachable.includes(u))).toBe(true);
    expect(missing.length).toBeLessThanOrEqual(Math.ceil(fpRate * reachable.length));
    const requests = pageRequests(web);
    expect(new Set(requests).size).toBe(requests.length);
    // what the filter now loses is said at the end
    expect(
      said.some((l) => /^bloom seen set: \d+ URLs of its capacity 1000; .* probability \d/.test(l)),
    ).toBe(true);
  });
});

describe('resuming a crawl with another seen set', () => {
  it('fills the new set from the store, says so, and fetches no page twice', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2', '127.0.0.3'], pagesPerHost: 60 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const first = await crawl({ seeds, data: dir, seen: 'memory', maxPages: 40, ...FAST, onLog: () => {} });
    expect(first.stoppedBy).toBe('max-pages');
    const said: string[] = [];
    const options: CrawlOptions = {
      seeds,
      data: dir,
      seen: 'drum',
      ...FAST,
      onLog: (line) => said.push(line),
    };
    const second = await crawl(options);
    expect(second.stoppedBy).toBe('finished');
    expect(said.some((l) => /seen set was memory; this run uses drum/.test(l))).toBe(true);
    expect(fetchedUrls()).toEqual([...web.reachable()].sort());
    const requests = pageRequests(web);
    expect(new Set(requests).size).toBe(requests.length);
    // and back again: a third run with nothing left to do finds every URL seen
    const third = await crawl({ ...options, seen: 'lmdb' });
    expect(third.fetchedThisRun).toBe(0);
  });
});
