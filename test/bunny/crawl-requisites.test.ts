import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { REQUISITE_PATHS, REQUISITE_SITE } from '../helpers/requisite-site.js';
import { readWarcDir } from '../helpers/warc.js';

const h = crawlHarness('requisites', { builtinModules: false, delayMs: 0, delayFactor: 0, retries: 0 });

/** How many requests each path got (robots.txt aside). */
function requestCounts(log: readonly { path: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { path } of log) if (path !== '/robots.txt') counts.set(path, (counts.get(path) ?? 0) + 1);
  return counts;
}

describe('--requisites', () => {
  it('fetches every stylesheet, script, image, srcset candidate, icon, poster, url() and @import once, and archives each once', async () => {
    const site = await h.site('127.0.0.1', REQUISITE_SITE);
    await h.run([`${site.origin}/`], { requisites: true });

    const counts = requestCounts(site.log);
    for (const path of ['/', '/two', ...REQUISITE_PATHS]) expect(counts.get(path), path).toBe(1);
    // Nothing a script or a CSS comment names is fetched.
    expect([...counts.keys()].sort()).toEqual(['/', '/two', ...REQUISITE_PATHS].sort());

    const pages = h.pages();
    for (const path of REQUISITE_PATHS) {
      const line = pages.find((p) => p.url === `${site.origin}${path}`);
      expect(line?.requisite, path).toBe(true);
      expect(line?.status, path).toBe(200);
    }
    for (const path of ['/', '/two'])
      expect(pages.find((p) => p.url === `${site.origin}${path}`)?.requisite).toBe(undefined);
    // A stylesheet's url()s resolve against the stylesheet: deep.css names ../img from /css/.
    expect(pages.find((p) => p.url === `${site.origin}/img/title-bg.png`)?.via).toBe(
      `${site.origin}/css/site.css`,
    );

    const responses = (await readWarcDir(join(h.dir, 'warc'))).filter((r) => r.type === 'response');
    for (const path of ['/', '/two', ...REQUISITE_PATHS]) {
      expect(responses.filter((r) => r.uri === `${site.origin}${path}`).length, path).toBe(1);
    }
  });

  it('fetches none of them without the option', async () => {
    const site = await h.site('127.0.0.1', REQUISITE_SITE);
    await h.run([`${site.origin}/`]);
    expect([...requestCounts(site.log).keys()].sort()).toEqual(['/', '/two']);
  });

  it("keeps a page's requisites at --max-depth, where its links stop", async () => {
    const site = await h.site('127.0.0.1', REQUISITE_SITE);
    await h.run([`${site.origin}/`], { requisites: true, maxDepth: 0 });
    const counts = requestCounts(site.log);
    expect(counts.has('/two')).toBe(false);
    expect(counts.get('/css/site.css')).toBe(1);
    expect(counts.get('/img/deep.png')).toBe(1);
  });

  it('leaves out-of-scope requisites to the scope rule, recorded as refused', async () => {
    const cdn = await h.site('127.0.0.2', { '/lib.js': REQUISITE_SITE['/js/app.js'] as never });
    const site = await h.site('127.0.0.1', {
      '/': `<!doctype html><title>x</title><script src="${cdn.origin}/lib.js"></script>`,
    });
    await h.run([`${site.origin}/`], { requisites: true });
    expect(cdn.log.length).toBe(0);
    expect(h.recordOf(`${cdn.origin}/lib.js`)?.detail).toBe('scope');
  });
});
