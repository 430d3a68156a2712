import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { crawl } from '../../src/assembly/crawl.js';
import { fetchCounts, readPages } from '../helpers/pages.js';

/** --crawl NAME on the embedded store: the crawl's own folder, crawls/NAME under --data. */

let dir: string;
let web: RunningWeb | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-crawl-name-'));
});

afterEach(async () => {
  await web?.close();
  web = null;
  rmSync(dir, { recursive: true, force: true });
});

const FAST = { delayMs: 0, delayFactor: 0, perHost: 2, concurrency: 8 } as const;
const pageRequests = (w: RunningWeb) => w.requestLog.filter((r) => r.path !== '/robots.txt').length;

describe('crawl({ crawl: NAME }) on the embedded store', () => {
  it('keeps each named crawl in crawls/NAME with its own store and seen set, and --data for the default one', async () => {
    web = await startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 12, minLinks: 2, maxLinks: 4 });
    const seeds = web.sites.map((s) => `${s.origin}/`);
    const reachable = web.reachable().length;

    const first = await crawl({ seeds, data: dir, crawl: 'first', seen: 'drum', ...FAST });
    expect(first.stoppedBy).toBe('finished');
    const folder = join(dir, 'crawls', 'first');
    expect(fetchCounts(readPages(join(folder, 'pages.jsonl'))).size).toBe(reachable);
    expect(existsSync(join(folder, 'frontier.db-seen', 'seen.drum'))).toBe(true);
    expect(existsSync(join(dir, 'pages.jsonl'))).toBe(false);
    expect(pageRequests(web)).toBe(reachable);

    // Another name is another crawl: nothing of the first is seen there.
    await crawl({ seeds, data: dir, crawl: 'second', ...FAST });
    expect(fetchCounts(readPages(join(dir, 'crawls', 'second', 'pages.jsonl'))).size).toBe(reachable);
    expect(pageRequests(web)).toBe(2 * reachable);

    // The same name again resumes it: its seed is seen, nothing is fetched.
    const again = await crawl({ seeds, data: dir, crawl: 'first', seen: 'drum', onLog: () => {}, ...FAST });
    expect(again.fetchedThisRun).toBe(0);
    expect(pageRequests(web)).toBe(2 * reachable);

    // The default crawl is --data itself, which holds only crawls/ so far.
    await crawl({ seeds, data: dir, ...FAST });
    expect(fetchCounts(readPages(join(dir, 'pages.jsonl'))).size).toBe(reachable);
    expect(pageRequests(web)).toBe(3 * reachable);
  });
});
