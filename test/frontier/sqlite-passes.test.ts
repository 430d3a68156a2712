import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { CrawlerId, Lease, NewLink } from '../../src/frontier/types.js';
import { TEST_SETTINGS } from './stores.js';

/**
 * Crawl passes (--passes) on a queue ranked by kind: a pass leases its depth's page
 * requisites too, after its pages, and a host with only requisites left is waiting at
 * their depth, not past every page.
 */

let dir: string;
let f: SqliteFrontier;
let c: CrawlerId;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-passes-'));
  f = await SqliteFrontier.open(join(dir, 'frontier.db'), { ...TEST_SETTINGS, perHost: 10 });
  c = await f.registerCrawler('a');
});

afterEach(async () => {
  await f.close();
  rmSync(dir, { recursive: true, force: true });
});

const requisite = (url: string, depth: number): NewLink => ({ url, depth, via: null, kind: 'requisite' });

/** Leases and completes until the pass says it is over; the URLs in the order leased. */
async function runPass(depth: number): Promise<string[]> {
  f.setPassDepth(depth + 1);
  const order: string[] = [];
  for (let i = 0; i < 20; i++) {
    const batch = await f.lease(10, c);
    order.push(...batch.leases.map((l) => l.url));
    await f.complete(
      batch.leases.map((l: Lease) => ({
        leaseId: l.id,
        outcome: { kind: 'done' },
        report: { fetchMs: 1 },
        outlinks: [],
        rejected: [],
      })),
      c,
    );
    if (batch.ended !== null) break;
  }
  return order;
}

describe('crawl passes on the SQLite store', () => {
  it("lease a pass's requisites after its pages, and leave deeper pages to the next pass", async () => {
    await f.add(
      [
        { url: 'http://a.test/page', depth: 1, via: null },
        requisite('http://a.test/site.css', 1),
        requisite('http://b.test/logo.png', 1),
        { url: 'http://c.test/deeper', depth: 2, via: null },
        requisite('http://c.test/late.css', 2),
      ],
      [],
      c,
    );
    // b.test has only a requisite at depth 1: the crawl still waits at depth 1.
    expect(await f.shallowestWaiting()).toBe(1);
    const first = await runPass(1);
    expect(first[0]).toBe('http://a.test/page');
    expect(first.slice(1).sort()).toEqual(['http://a.test/site.css', 'http://b.test/logo.png']);
    expect(await f.shallowestWaiting()).toBe(2);
    expect(await runPass(2)).toEqual(['http://c.test/deeper', 'http://c.test/late.css']);
    expect(await f.shallowestWaiting()).toBeNull();
  });
});
