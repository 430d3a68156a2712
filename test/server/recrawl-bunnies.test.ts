import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPages } from '../helpers/pages.js';
import { HOME_ETAG, revisitWeb } from '../helpers/revisit-web.js';
import { serverProcesses } from '../helpers/server-process.js';

/** --recrawl-after while a crawl runs (recrawl.test.ts), on a server's store, for its bunnies. */

const t = serverProcesses('recrawl-bunnies');

// Two processes start (each loads its module threads): slow on a busy machine.
describe('cobweb server --recrawl-after', { timeout: 180_000 }, () => {
  it('hands its bunny a page again within the same run once it is due; the bunny ends when nothing is left', async () => {
    const web = await revisitWeb((address, table) => t.site(address, table));
    const s = await t.server([...web.seeds, '--recrawl-after', '2s', '--delay', '0', '--delay-factor', '0']);
    const b = t.bunny('b1', s.port, ['--json', '--quiet']);
    expect(await b.exit()).toBe(0);
    expect(t.summaryOf(b)).toMatchObject({ stoppedBy: 'finished', queued: 0 });
    const asked = web.homeAsked();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(asked.map((headers) => headers['if-none-match'])).toEqual([
      undefined,
      ...asked.slice(1).map(() => HOME_ETAG),
    ]);
    // The server writes the lines: the home page's first fetch, then its 304s.
    const home = readPages(join(t.dir, 'server', 'pages.jsonl')).filter((r) => r.url === web.seeds[0]);
    expect(home.map((r) => [r.status, r.notModified])).toEqual([
      [200, undefined],
      ...home.slice(1).map(() => [304, true]),
    ]);
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
  });
});
