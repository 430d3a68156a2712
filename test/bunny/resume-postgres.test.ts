import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { flaky, page } from '../helpers/http.js';
import { postgresPerTest } from '../helpers/postgres-per-test.js';

/**
 * What a resumed crawl does with its seeds (resume-rules.test.ts), on the PostgreSQL
 * store: the same seeds' step, and lines that say how to start over where --fresh is
 * refused. Fetches are counted at the test web servers.
 */

const postgres = postgresPerTest('resumed crawls on PostgreSQL');
const h = crawlHarness('resume-postgres', { delayMs: 0, delayFactor: 0, perHost: 2, retries: 0 });
const { site } = h;
const run = (seeds: string[], lines: string[] = [], extra: { retryFailed?: boolean } = {}) =>
  h.run(seeds, { store: postgres.db, onLog: (line) => lines.push(line), ...extra });

describe('a resumed crawl on PostgreSQL', { timeout: 60_000 }, () => {
  it('fetches, as a seed at depth 0, a seed the crawl only refused, and says how to start over', async () => {
    const b = await site('127.0.0.3', { '/': page('b', ['/b1']), '/b1': page('b1') });
    const a = await site('127.0.0.2', { '/': page('a', [`${b.origin}/`]) });
    await run([`${a.origin}/`]);
    expect(h.recordOf(`${b.origin}/`)).toMatchObject({ error: 'filtered', detail: 'scope' });
    const lines: string[] = [];
    const again = await run([`${a.origin}/`, `${b.origin}/`], lines);
    expect(lines).toContain(
      '1 seed refused by an earlier run in the crawl "default" (scope) is queued again as a seed',
    );
    expect(lines).toContain(
      '1 seed was fetched by an earlier run in the crawl "default" and is not fetched again (another --crawl name starts over)',
    );
    expect(again.fetchedThisRun).toBe(2);
    expect(a.log.filter((r) => r.path === '/')).toHaveLength(1);
    expect(b.log.filter((r) => r.path === '/')).toHaveLength(1);
    expect(b.log.filter((r) => r.path === '/b1')).toHaveLength(1);
    expect(h.pages().find((r) => r.url === `${b.origin}/` && r.status === 200)?.depth).toBe(0);
  });

  it('says how to fetch again a seed that failed before, and --retry-failed does', async () => {
    const root = flaky();
    const a = await site('127.0.0.2', { '/': root.route });
    await run([`${a.origin}/`]);
    root.mend();
    const lines: string[] = [];
    await run([`${a.origin}/`], lines);
    expect(lines).toContain(
      '1 seed failed in an earlier run in the crawl "default" and is not fetched again (--retry-failed tries it again)',
    );
    expect(a.log.filter((r) => r.path === '/')).toHaveLength(1);
    const retried = await run([`${a.origin}/`], [], { retryFailed: true });
    expect(retried.fetchedThisRun).toBe(1);
    expect(a.log.filter((r) => r.path === '/')).toHaveLength(2);
  });
});
