import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bunny } from '../../src/index.js';
import type { TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { startTestWeb } from '../helpers/test-web.js';

// bunny() straight on PostgreSQL, from the library alone: the first bunny starts the
// crawl with its seeds, a second one joins it; fetches counted at the web servers.

const postgres = postgresPerTest('bunny() on PostgreSQL');
const PAGES = 4;
let dir = '';
let sites: TestServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-bunny-pg-'));
  sites = await startTestWeb(['127.0.0.2', '127.0.0.3'], PAGES);
});

afterEach(async () => {
  for (const site of sites.splice(0)) await site.close();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('bunny() on PostgreSQL', { timeout: 120_000 }, () => {
  it('crawls the crawl its seeds start to the end, every page once; a bunny that joins after finds it over', async () => {
    const first = await bunny({
      store: postgres.db,
      seeds: sites.map((s) => `${s.origin}/`),
      data: join(dir, 'b1'),
      delayMs: 0,
      delayFactor: 0,
      onLog: () => {},
    });
    expect(first.stoppedBy).toBe('finished');
    expect(first.store).toBe('postgres');
    expect(first.crawl).toBe('default');
    expect(first.fetchedThisRun).toBe(2 * PAGES);
    expect(first.done).toBe(2 * PAGES);
    expect(first.queued).toBe(0);
    expect(first.pagesFile).toBe(join(dir, 'b1', 'pages.jsonl'));
    expect(readPages(first.pagesFile as string)).toHaveLength(2 * PAGES);
    for (const site of sites) {
      const asked = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
      expect(asked).toHaveLength(PAGES);
      expect(new Set(asked).size).toBe(PAGES);
    }

    const said: string[] = [];
    const second = await bunny({
      store: postgres.db,
      data: join(dir, 'b2'),
      onLog: (line) => said.push(line),
    });
    expect(said[0]).toBe('joining the crawl "default" with the settings it was started with');
    expect(second.stoppedBy).toBe('finished');
    expect(second.fetchedThisRun).toBe(0);
    expect(second.done).toBe(2 * PAGES);
    expect(second.crawler).not.toBe(first.crawler);
  });
});
