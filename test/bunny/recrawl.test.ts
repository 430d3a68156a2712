import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';
import { ageFetches, expectRevisitedInRun, revisitWeb } from '../helpers/revisit-web.js';
import { readWarcDir } from '../helpers/warc.js';

const h = crawlHarness('recrawl', { builtinModules: false, delayMs: 0, delayFactor: 0 });

const HOUR = 3_600_000;

/** Every fetch the store remembers `ms` older (ageFetches). */
const age = (ms: number) => ageFetches(join(h.dir, 'frontier.db'), ms);

const MONDAY = 'Mon, 30 Nov 2026 10:00:00 GMT';
const TUESDAY = 'Tue, 01 Dec 2026 10:00:00 GMT';

describe('--recrawl-after', () => {
  it('asks again with the stored validators: a 304 becomes a revisit record, a changed page is stored and followed', async () => {
    let newsChanged = false;
    const a = await h.site('127.0.0.2', {
      '/': (req, res) => {
        if (req.headers['if-none-match'] === '"home-1"')
          return res.writeHead(304, { etag: '"home-1"' }).end();
        res.writeHead(200, { 'content-type': 'text/html', etag: '"home-1"' }).end(page('home', ['/news']));
      },
      '/news': (req, res) => {
        const modified = newsChanged ? TUESDAY : MONDAY;
        if (req.headers['if-modified-since'] === modified) return res.writeHead(304).end();
        const links = newsChanged ? ['/story'] : [];
        res
          .writeHead(200, { 'content-type': 'text/html', 'last-modified': modified })
          .end(page('news', links));
      },
      '/story': page('story'),
    });
    const seed = `${a.origin}/`;
    expect((await h.run([seed])).fetchedThisRun).toBe(2);

    // Fetched less than an hour ago: nothing is due, nothing is asked, and the run ends.
    const early = await h.run([seed], { recrawlAfterMs: HOUR });
    expect(early).toMatchObject({ fetchedThisRun: 0, stoppedBy: 'finished' });

    newsChanged = true;
    const before = a.log.length;
    age(2 * HOUR);
    const again = await h.run([seed], { recrawlAfterMs: HOUR });
    expect(again).toMatchObject({ fetchedThisRun: 3, stoppedBy: 'finished' });
    const requests = a.log.slice(before).filter((r) => r.path !== '/robots.txt');
    expect(requests.map((r) => r.path).sort()).toEqual(['/', '/news', '/story']);
    const asked = (path: string) => requests.find((r) => r.path === path)?.headers;
    expect(asked('/')?.['if-none-match']).toBe('"home-1"');
    expect(asked('/news')?.['if-modified-since']).toBe(MONDAY);
    expect(asked('/story')?.['if-modified-since']).toBeUndefined();

    const lines = (url: string) => h.pages().filter((r) => r.url === `${a.origin}${url}`);
    expect(lines('/').map((r) => [r.status, r.notModified])).toEqual([
      [200, undefined],
      [304, true],
    ]);
    expect(lines('/news').map((r) => r.status)).toEqual([200, 200]);

    const warc = await readWarcDir(join(h.dir, 'warc'));
    const home = warc.filter((r) => r.uri === seed && r.type !== 'request');
    expect(home.map((r) => r.type)).toEqual(['response', 'revisit']);
    const revisit = home[1];
    expect(revisit?.field('WARC-Profile')).toBe(
      'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
    );
    expect(revisit?.field('WARC-Refers-To-Target-URI')).toBe(seed);
    expect(revisit?.field('WARC-Refers-To-Date')).toBe(home[0]?.field('WARC-Date'));
    expect(revisit?.block.toString('latin1')).toMatch(/^HTTP\/1\.1 304 /);
    const news = warc.filter((r) => r.uri === `${a.origin}/news` && r.type === 'response');
    expect(news.map((r) => r.block.toString('latin1').includes('/story'))).toEqual([false, true]);

    // The 304 kept the validators: asked again, it is asked with the same ETag.
    const third = a.log.length;
    age(2 * HOUR);
    await h.run([seed], { recrawlAfterMs: HOUR, maxPages: 4 });
    expect(a.log.slice(third).find((r) => r.path === '/')?.headers['if-none-match']).toBe('"home-1"');
  });

  it('fetches a page again within the same run once it is due, and the run still ends by itself', async () => {
    const web = await revisitWeb((address, table) => h.site(address, table));
    const summary = await h.run(web.seeds, { recrawlAfterMs: 2000 });
    expectRevisitedInRun(web, summary, h.pages());
  });
});
