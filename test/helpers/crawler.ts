import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkRulesOf, startModules } from '../../src/assembly/parts.js';
import { Crawler } from '../../src/bunny/crawler.js';
import type { CrawlerId, Frontier } from '../../src/frontier/types.js';
import { type CrawlOptions, withDefaults } from '../../src/options/options.js';
import { requestSetupOf } from '../../src/options/request-setup.js';
import type { PageRecord } from '../../src/output/pages-log.js';

export interface InProcessCrawler {
  crawler: Crawler;
  /** The pages.jsonl lines the loop wrote, in order. */
  lines: PageRecord[];
  /** Adds the seeds, runs the loop until the store says the crawl is over. */
  crawl(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The crawling machinery `cobweb crawl` and `cobweb bunny` run (Crawler: fetcher, robots,
 * WARC thread, modules, the crawl loop), in this process, around a frontier the test
 * opened: for what needs a store setting the command line does not have.
 * `modulesDataDir` null: modules hand their records back with completions, as a bunny's do.
 */
export async function startCrawler(
  frontier: Frontier,
  seeds: string[],
  options: Partial<CrawlOptions> = {},
  modulesDataDir: string | null = null,
): Promise<InProcessCrawler> {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-crawler-'));
  const o = withDefaults({ seeds, allowPrivate: true, ...options });
  const modules = await startModules(o, modulesDataDir, () => {});
  const lines: PageRecord[] = [];
  const crawler = await Crawler.start({
    frontier,
    name: 'test',
    settings: o,
    rules: linkRulesOf(o, seeds),
    seeds,
    modules,
    warc: { dir: join(dir, 'warc') },
    write: (l) => lines.push(...l),
    // The test's own environment's proxies are not the test's to use.
    requests: requestSetupOf(o, {}),
  });
  const id: CrawlerId = crawler.crawler;
  return {
    crawler,
    lines,
    async crawl() {
      const added = await frontier.add(
        seeds.map((url) => ({ url, depth: 0, via: null })),
        [],
        id,
      );
      await crawler.loop.record(added.records);
      return crawler.loop.run();
    },
    async close() {
      await crawler.close();
      await modules.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
