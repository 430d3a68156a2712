import { describe, expect, it } from 'vitest';
import { progressLine, summaryText } from '../../src/cli/progress.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

const h = crawlHarness('counts', { delayMs: 0, delayFactor: 0, retries: 0, builtinModules: false });

describe("a run's counts", () => {
  it('agree between the progress line and the summary, with robots.txt and refusals apart', async () => {
    const a = await h.site('127.0.0.2', {
      '/robots.txt': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n'),
      '/': page('root', ['/a', '/missing', '/private', '/photo.jpg', 'http://elsewhere.test/']),
      '/a': page('a'),
    });
    const summary = await h.run([`${a.origin}/`], { scope: 'host' });
    expect(summary.thisRun).toEqual({
      fetched: { '2xx': 2, '4xx': 1 },
      failed: {},
      robots: 1,
      refused: { scope: 1, extension: 1 },
    });
    // A 404 is fetched (a response came) and an error, in both places.
    expect(summary.fetchedThisRun).toBe(3);
    expect(summary.errorsThisRun).toBe(1);
    expect(progressLine(summary)).toMatch(/ errors 1 /);
    const text = summaryText(summary);
    expect(text).toContain('  this run: 4 URLs in ');
    expect(text).toContain('    fetched: 3 URLs (2xx 2, 4xx 1)\n');
    expect(text).toContain('    errors: 1 (4xx 1)\n');
    expect(text).toContain('    disallowed by robots.txt, not fetched: 1 URL\n');
    expect(text).toContain('    refused, not fetched: 2 URLs (extension 1, scope 1)\n');
    // The store counts robots.txt's refusals with the crawl's own: the label says so.
    expect(text).toContain(
      '  store, all runs: 3 URLs fetched, 0 failed, 3 refused or disallowed by robots.txt, 0 queued\n',
    );
  });
});
