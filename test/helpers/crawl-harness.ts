import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { crawl } from '../../src/bunny/crawl.js';
import type { CrawlOptions } from '../../src/bunny/options.js';
import type { PageRecord } from '../../src/output/pages-log.js';
import { routes, serve, type TestServer } from './http.js';
import { readPages } from './pages.js';

export interface CrawlHarness {
  /** This test's --data folder (a new one for every test). */
  readonly dir: string;
  /** A routes() site on a loopback address, closed after the test. */
  site(address: string, table: Parameters<typeof routes>[0]): Promise<TestServer>;
  /** crawl() into this test's folder with the file's defaults, then `extra`. */
  run(seeds: string[], extra?: Partial<CrawlOptions>): ReturnType<typeof crawl>;
  pages(): PageRecord[];
  recordOf(url: string): PageRecord | undefined;
}

/**
 * The setup every crawl test file shares: a fresh data folder per test, sites that are
 * closed after it, and crawl() with the file's own defaults. Call once at the top level
 * of a test file (it registers beforeEach/afterEach).
 */
export function crawlHarness(name: string, defaults: Partial<CrawlOptions>): CrawlHarness {
  let dir = '';
  const servers: TestServer[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `cobweb-${name}-`));
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const pages = () => readPages(join(dir, 'pages.jsonl'));
  return {
    get dir() {
      return dir;
    },
    async site(address, table) {
      const s = await serve(address, routes(table));
      servers.push(s);
      return s;
    },
    run: (seeds, extra = {}) => crawl({ seeds, data: dir, ...defaults, ...extra }),
    pages,
    recordOf: (url) => pages().find((r) => r.url === url),
  };
}
