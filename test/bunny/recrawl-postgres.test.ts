import { describe, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';
import { expectRevisitedInRun, revisitWeb } from '../helpers/revisit-web.js';

/** --recrawl-after while a crawl runs (recrawl.test.ts), on the PostgreSQL store. */

const postgres = postgresPerTest('recrawling on PostgreSQL');
const h = crawlHarness('recrawl-postgres', { builtinModules: false, delayMs: 0, delayFactor: 0 });

describe('--recrawl-after on PostgreSQL', () => {
  it('fetches a page again within the same run once it is due, and the run still ends by itself', async () => {
    const web = await revisitWeb((address, table) => h.site(address, table));
    const summary = await h.run(web.seeds, { store: postgres.db, recrawlAfterMs: 2000 });
    expectRevisitedInRun(web, summary, h.pages());
  });
});
