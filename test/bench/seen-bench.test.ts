import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSeenBench } from '../../bench/seen/run-seen.js';
import { CrawlStream } from '../../bench/seen/stream.js';
import { Tally } from '../../bench/seen/tally.js';
import { fingerprints } from '../../src/seen/fingerprint.js';
import { openSeenSet } from '../../src/seen/open.js';

/** bench:seen on small sizes: the stream is shaped as its docs say, and wrong answers are counted. */

/** The whole stream of `distinct` URLs, a page at a time, with its truth. */
function drain(distinct: number, seed = 1): { urls: string[]; truth: number[]; pageSizes: number[] } {
  const stream = new CrawlStream({ distinct, seed });
  const urls: string[] = [];
  const truth: number[] = [];
  const pageSizes: number[] = [];
  const t = new Uint8Array(64);
  while (!stream.done) {
    const page: string[] = [];
    const n = stream.nextPages(1, page, t);
    pageSizes.push(n);
    urls.push(...page);
    truth.push(...t.subarray(0, n));
  }
  expect(stream.links).toBe(urls.length);
  expect(stream.discovered).toBe(distinct);
  return { urls, truth, pageSizes };
}

describe('the seen benchmark stream', () => {
  const { urls, truth, pageSizes } = drain(20_000);

  it('says new exactly at each URL first sight, until the asked number of distinct URLs', () => {
    const met = new Set<string>();
    urls.forEach((url, i) => {
      expect(truth[i], url).toBe(met.has(url) ? 0 : 1);
      met.add(url);
    });
    expect(met.size).toBe(20_000);
  });

  it('is shaped like a crawl: 15 to 45 links a page, about 80% of them met before', () => {
    for (const n of pageSizes.slice(0, -1)) {
      expect(n).toBeGreaterThanOrEqual(15);
      expect(n).toBeLessThan(45);
    }
    const mean = urls.length / pageSizes.length;
    expect(mean).toBeGreaterThan(27);
    expect(mean).toBeLessThan(33);
    const seenShare = truth.filter((t) => t === 0).length / truth.length;
    expect(seenShare).toBeGreaterThan(0.77);
    expect(seenShare).toBeLessThan(0.83);
  });

  it('draws hosts by a Zipf law: a few large hosts, a long tail of small ones', () => {
    const byHost = new Map<string, number>();
    for (const url of new Set(urls)) {
      const host = new URL(url).host;
      byHost.set(host, (byHost.get(host) ?? 0) + 1);
    }
    const sizes = [...byHost.values()].sort((a, b) => b - a);
    // Rank 1 of 1,000 hosts by 1/r: ln 2 / ln 1000, about 10% of the URLs; the tail is long.
    expect((sizes[0] as number) / 20_000).toBeGreaterThan(0.05);
    expect((sizes[0] as number) / 20_000).toBeLessThan(0.2);
    expect(byHost.size).toBeGreaterThan(300);
    expect(sizes.filter((s) => s <= 5).length).toBeGreaterThan(byHost.size / 4);
  });

  it('gives the same URLs for the same seed, others for another', () => {
    expect(drain(2_000).urls).toEqual(drain(2_000).urls);
    expect(drain(2_000, 2).urls).not.toEqual(drain(2_000).urls);
  });
});

describe('the tally of wrong answers', () => {
  const { urls, truth } = drain(5_000);
  const t = Uint8Array.from(truth);

  it('counts a URL met before but answered new as a false negative, and a new one answered seen as a false positive', () => {
    const allNew = new Tally();
    allNew.add(
      urls.map(() => true),
      t,
      urls.length,
    );
    expect(allNew.falseNegatives).toBe(truth.filter((x) => x === 0).length);
    expect(allNew.falsePositives).toBe(0);
    const allSeen = new Tally();
    allSeen.add(
      urls.map(() => false),
      t,
      urls.length,
    );
    expect(allSeen.falsePositives).toBe(5_000);
    expect(allSeen.falseNegatives).toBe(0);
  });

  it('finds nothing wrong with an exact set, and only false positives with a crowded bloom filter', async () => {
    const exact = await openSeenSet('memory');
    const crowded = await openSeenSet('bloom', { capacity: 500, fpRate: 0.01 });
    const tallies = [new Tally(), new Tally()];
    for (const [k, set] of [exact, crowded].entries()) {
      tallies[k]?.add(await set.insertNew(fingerprints(urls)), t, urls.length);
      await set.close();
    }
    expect(tallies[0]).toMatchObject({ falsePositives: 0, falseNegatives: 0, checked: urls.length });
    expect(tallies[1]?.falsePositives).toBeGreaterThan(100); // 5,000 URLs in a filter for 500
    expect(tallies[1]?.falseNegatives).toBe(0);
  });
});

describe('npm run bench:seen, at 20,000 URLs', { timeout: 120_000 }, () => {
  it('runs each contender in its own process and prints the table, answer wait included, with no false negative', async () => {
    const report = await runSeenBench({
      repoDir: join(import.meta.dirname, '../..'),
      sizes: [20_000],
      contenders: ['memory', 'drum', 'harness'],
    });
    expect(report.failed).toBe(false);
    const checks = drain(20_000).urls.length;
    for (const row of report.rows) {
      expect(row.error).toBeUndefined();
      expect(row.result).toMatchObject({ distinct: 20_000, checks, falseNegatives: 0, falsePositives: 0 });
      expect(row.result?.peakRssBytes).toBeGreaterThan(0);
    }
    // drum keeps its set on disk at 8 bytes a fingerprint (and a 24-byte header), plus its journal.
    const drum = report.rows.find((r) => r.contender === 'drum')?.result;
    expect(drum?.diskBytes).toBeGreaterThanOrEqual(20_000 * 8);
    const [head] = report.markdown.split('\n');
    expect(head).toContain('| false negatives | answer wait (ms, median / max) |');
    expect(report.markdown).toMatch(/\| drum \| 20,000 \| [\d,]+ \| [\d,]+ \|/);
  });
});
