import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

// pages.jsonl holds what was fetched or failed; URLs refused without a request (the
// crawl's rules, robots.txt) go to refused.jsonl beside it.

const h = crawlHarness('refused-file', { delayMs: 0, delayFactor: 0, retries: 0, builtinModules: false });

describe('refused.jsonl', () => {
  it('takes every URL refused without a request; pages.jsonl keeps what was fetched', async () => {
    const longOnSite = `/${'x'.repeat(2100)}`;
    const longOffSite = `http://elsewhere.test/${'y'.repeat(2100)}`;
    const a = await h.site('127.0.0.2', {
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
      '/': page('home', ['/a', '/private', '/missing', 'http://other.test/', longOnSite, longOffSite]),
      '/a': page('a'),
    });
    const summary = await h.run([`${a.origin}/`], { scope: 'host' });
    expect(summary.stoppedBy).toBe('finished');

    // pages.jsonl: a response or a failure, nothing else.
    expect(
      h
        .pages()
        .map((r) => [r.url, r.status])
        .sort(),
    ).toEqual([
      [`${a.origin}/`, 200],
      [`${a.origin}/a`, 200],
      [`${a.origin}/missing`, 404],
    ]);
    const refused = new Map(h.refused().map((r) => [r.url.slice(0, 40), r]));
    expect([...refused.values()].map((r) => [r.error, r.detail ?? null]).sort()).toEqual([
      ['filtered', 'scope'],
      ['filtered', 'scope'],
      ['robots', null],
      ['too-long', null],
    ]);
    // An off-site URL over the length limit is out of scope; an on-site one is too long.
    expect(refused.get(longOffSite.slice(0, 40))).toMatchObject({ error: 'filtered', detail: 'scope' });
    expect(refused.get(`${a.origin}${longOnSite}`.slice(0, 40))).toMatchObject({ error: 'too-long' });
    // What only a fetch can know is unknown on a URL never fetched.
    for (const r of refused.values()) {
      expect(r).toMatchObject({ status: null, fetchedAt: null, outlinks: null, hasForm: null });
    }
    // The summary counts them as before.
    expect(summary.thisRun.refused).toEqual({ scope: 2, 'too-long': 1 });
    expect(summary.thisRun.robots).toBe(1);
  });

  it('is not made by a crawl that refused nothing, and goes with --fresh', async () => {
    const a = await h.site('127.0.0.2', { '/': page('home', ['/a']), '/a': page('a') });
    await h.run([`${a.origin}/`]);
    expect(existsSync(join(h.dir, 'refused.jsonl'))).toBe(false);
    const b = await h.site('127.0.0.3', { '/': page('home', ['http://other.test/']) });
    await h.run([`${b.origin}/`], { fresh: true });
    expect(h.refused()).toHaveLength(1);
    await h.run([`${a.origin}/`], { fresh: true });
    expect(existsSync(join(h.dir, 'refused.jsonl'))).toBe(false);
  });
});
