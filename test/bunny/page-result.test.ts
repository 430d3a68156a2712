import { describe, expect, it } from 'vitest';
import { linkRulesFrom, routeLinks } from '../../src/bunny/links.js';
import { blankDraft, sealed } from '../../src/bunny/page-record.js';
import { type PageResult, withModuleAdditions } from '../../src/bunny/page-result.js';
import type { Lease } from '../../src/frontier/types.js';

/** What the modules add to a page's result, joined once: withModuleAdditions. */

const rules = linkRulesFrom({
  filter: { scope: 'host', seeds: ['https://a.test/'], exclude: [/\/private/] },
  traps: { maxPathSegments: 20, maxSegmentRepeats: 2, maxQueryParams: 20 },
  maxDepth: 10,
  maxRedirects: 5,
});

const lease: Lease = {
  id: 7,
  url: 'https://a.test/page',
  host: 'a.test',
  depth: 1,
  via: 'https://a.test/',
  redirects: 0,
  kind: 'page',
  attempt: 1,
  expiresAt: Date.now() + 60_000,
};

/** A fetched page's result as page processing builds it: its line, and a completion carrying it. */
function fetchedPage(): PageResult {
  const draft = blankDraft(lease);
  draft.status = 200;
  draft.contentType = 'text/html';
  draft.bytes = 1234;
  draft.hasForm = false;
  draft.title = 'A page';
  draft.outlinks = 2;
  draft.fetchedAt = '2026-12-06T03:00:00.000Z';
  draft.durationMs = 12;
  draft.noindex = true;
  const record = sealed(draft, 3);
  const links = routeLinks(['/one', '/private/two'], lease.url, lease, rules);
  return {
    record,
    completion: {
      leaseId: lease.id,
      outcome: { kind: 'done', validators: { capturedAt: 1 } },
      outlinks: links.accepted,
      rejected: links.rejected,
      hasForm: false,
      record,
    },
  };
}

describe("a page's result with what the modules added", () => {
  it('joins their fields to the line, their links after the page’s, and their records to the completion', () => {
    const page = fetchedPage();
    const before = JSON.stringify(page);
    const moduleLinks = routeLinks(['/three', '/private/four'], lease.url, lease, rules);
    const emitted = [{ module: 'langs', record: { url: lease.url, lang: 'fr' } }];
    const joined = withModuleAdditions(page, {
      // A module may restate what the crawl read (title), add fields of its own (lang),
      // and may not replace what the crawl observed (status, crawler).
      fields: { title: 'Une page', lang: 'fr', status: 500, crawler: 99 },
      links: moduleLinks,
      records: emitted,
    });

    // The line keeps its order: the restated title in its place, the module's field last.
    expect(JSON.stringify(joined.record)).toBe(
      '{"url":"https://a.test/page","status":200,"contentType":"text/html","bytes":1234,"depth":1,' +
        '"title":"Une page","outlinks":2,"hasForm":false,"fetchedAt":"2026-12-06T03:00:00.000Z",' +
        '"durationMs":12,"via":"https://a.test/","noindex":true,"crawler":3,"lang":"fr"}',
    );
    expect(joined.completion.record).toBe(joined.record);
    expect(joined.completion.outlinks.map((l) => l.url)).toEqual([
      'https://a.test/one',
      'https://a.test/three',
    ]);
    expect(joined.completion.rejected.map((l) => [l.url, l.reason])).toEqual([
      ['https://a.test/private/two', 'exclude'],
      ['https://a.test/private/four', 'exclude'],
    ]);
    expect(joined.completion.moduleRecords).toBe(emitted);
    expect(joined.completion).toMatchObject({ leaseId: 7, outcome: page.completion.outcome, hasForm: false });
    // The page's own result is as it was built.
    expect(JSON.stringify(page)).toBe(before);
  });

  it('keeps the result as it was built when the modules added nothing', () => {
    const page = fetchedPage();
    const before = JSON.stringify(page);
    expect(withModuleAdditions(page, undefined)).toBe(page);
    expect(withModuleAdditions(page, { fields: {} })).toBe(page);
    // Only fields that restate the line as it is (the forms module's hasForm), or that
    // it may not replace: nothing changes, and nothing is copied.
    const same = withModuleAdditions(page, {
      fields: { hasForm: false, title: 'A page', url: 'https://b.test/' },
    });
    expect(same.record).toBe(page.record);
    expect(same.completion).toBe(page.completion);
    expect(JSON.stringify(page)).toBe(before);
  });

  it('keeps the line when the modules only add links, and carries it on a completion with them', () => {
    const page = fetchedPage();
    const joined = withModuleAdditions(page, {
      fields: {},
      links: routeLinks(['/three'], lease.url, lease, rules),
    });
    expect(joined.record).toBe(page.record);
    expect(joined.completion.record).toBe(page.record);
    expect(joined.completion.outlinks.map((l) => l.url)).toEqual([
      'https://a.test/one',
      'https://a.test/three',
    ]);
    expect(joined.completion.rejected).toEqual(page.completion.rejected);
    expect(joined.completion.moduleRecords).toBeUndefined();
    expect(page.completion.outlinks.map((l) => l.url)).toEqual(['https://a.test/one']);
  });
});
