import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { HOME_ETAG, revisitWeb } from '../helpers/revisit-web.js';

/** --recrawl-after while a crawl runs (recrawl.test.ts), on the PostgreSQL store. */

const postgres = postgresPerTest('recrawling on PostgreSQL');
const h = crawlHarness('recrawl-postgres', { builtinModules: false, delayMs: 0, delayFactor: 0 });

describe('--recrawl-after on PostgreSQL', () => {
  it('fetches a page again within the same run once it is due, and the run still ends by itself', async () => {
    const web = await revisitWeb((address, table) => h.site(address, table));
    const summary = await h.run(web.seeds, { store: postgres.db, recrawlAfterMs: 2000 });
    expect(summary.stoppedBy).toBe('finished');
    const asked = web.homeAsked();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(asked.map((headers) => headers['if-none-match'])).toEqual([
      undefined,
      ...asked.slice(1).map(() => HOME_ETAG),
    ]);
    const home = h.pages().filter((r) => r.url === web.seeds[0]);
    expect(home.map((r) => [r.status, r.notModified])).toEqual([
      [200, undefined],
      ...home.slice(1).map(() => [304, true]),
    ]);
    expect(summary).toMatchObject({ fetchedThisRun: asked.length + 1, queued: 0 });
  });
});
