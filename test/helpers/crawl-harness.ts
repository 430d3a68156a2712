import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../../src/assembly/crawl.js';
import type { CrawlOptions } from '../../src/options/options.js';
import type { PageRecord } from '../../src/output/pages-log.js';
import type { routes, TestServer } from './http.js';
import { readPages } from './pages.js';
import { folderAndSites } from './test-folder.js';

export interface CrawlHarness {
  /** This test's --data folder (a new one for every test). */
  readonly dir: string;
  /** A routes() site on a loopback address, closed after the test. */
  site(address: string, table: Parameters<typeof routes>[0]): Promise<TestServer>;
  /** crawl() into this test's folder with the file's defaults, then `extra`. */
  run(seeds: string[], extra?: Partial<CrawlOptions>): ReturnType<typeof crawl>;
  /** pages.jsonl: what was fetched or failed. */
  pages(): PageRecord[];
  /** refused.jsonl: the URLs refused without a request. */
  refused(): PageRecord[];
  /** A URL's line, in pages.jsonl or refused.jsonl. */
  recordOf(url: string): PageRecord | undefined;
}

/**
 * The setup every crawl test file shares: a fresh data folder per test, sites that are
 * closed after it, and crawl() with the file's own defaults. Call once at the top level
 * of a test file (it registers beforeEach/afterEach).
 */
export function crawlHarness(name: string, defaults: Partial<CrawlOptions>): CrawlHarness {
  const folder = folderAndSites(name);
  const pages = () => readPages(join(folder.dir, 'pages.jsonl'));
  // A crawl that refused nothing has no refused.jsonl.
  const refused = () => {
    const file = join(folder.dir, 'refused.jsonl');
    return existsSync(file) ? readPages(file) : [];
  };
  return {
    get dir() {
      return folder.dir;
    },
    site: (address, table) => folder.site(address, table),
    run: (seeds, extra = {}) => crawl({ seeds, data: folder.dir, ...defaults, ...extra }),
    pages,
    refused,
    recordOf: (url) => [...pages(), ...refused()].find((r) => r.url === url),
  };
}
