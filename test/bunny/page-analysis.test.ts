import { describe, expect, it } from 'vitest';
import { linkRulesFrom, routeLinks } from '../../src/bunny/links.js';
import { PageAnalyzer } from '../../src/bunny/page-analysis.js';
import { parseHtml } from '../../src/parse/html.js';

const rules = linkRulesFrom({
  filter: { scope: 'domain', seeds: ['https://site.test/'], exclude: [/\/private\//] },
  traps: { maxPathSegments: 20, maxSegmentRepeats: 2, maxQueryParams: 20 },
  maxDepth: 3,
  maxRedirects: 20,
});

const analyze = (analyzer: PageAnalyzer, url: string, html: string, depth = 0, firstTry = true) =>
  analyzer.analyze({
    body: new TextEncoder().encode(html),
    url,
    contentType: 'text/html',
    depth,
    firstTry,
    titleOnly: false,
  });

/** What routeLinks (the path every other link takes) makes of the page's followed hrefs. */
function routed(url: string, html: string, depth = 0) {
  const parsed = parseHtml(new TextEncoder().encode(html), { url, contentType: 'text/html' });
  const hrefs = parsed.links.filter((l) => !l.nofollow).map((l) => l.href);
  const r = routeLinks(hrefs, parsed.base, { url, depth }, rules);
  return {
    accepted: r.accepted.map((l) => l.url),
    rejected: r.rejected.map((l) => ({ url: l.url, reason: l.reason })),
  };
}

const NAV = `<a href="/docs/">Docs</a><a href="/docs/install">Install</a><a href="https://site.test/blog">Blog</a>
  <a href="https://other.test/x">Elsewhere</a><a href="/private/admin">Admin</a><a href="mailto:a@site.test">Mail</a>`;

describe('the analysis of a page', () => {
  it('finds the links routeLinks finds, however they are spelled, from pages anywhere on the site', () => {
    const pages: [string, string][] = [
      ['https://site.test/', NAV],
      [
        'https://site.test/docs/a/b.html',
        `${NAV}<a href="../c.html">up</a><a href="?page=2">next</a><a href="#top">top</a>`,
      ],
      [
        'https://user:pw@site.test/x',
        `${NAV}<a href="//site.test/proto">p</a><a href="/\\site.test/slash">s</a>`,
      ],
      ['https://site.test/based', `<base href="https://www.site.test/deep/">${NAV}<a href="rel">r</a>`],
      ['http://site.test/plain', `${NAV}<a href="/docs/" rel="nofollow">again</a>`],
    ];
    for (const [url, html] of pages) {
      // A fresh analyzer each time: what it sent lately does not hide links here.
      const got = analyze(new PageAnalyzer(rules, false), url, html);
      expect({ accepted: got.accepted, rejected: got.rejected }, url).toEqual(routed(url, html));
    }
  });

  it('gives the same verdicts from its cache as without it, page after page', () => {
    const analyzer = new PageAnalyzer(rules, false);
    const sites = ['https://site.test', 'https://www.site.test', 'http://site.test:8080'];
    for (const [i, origin] of sites.entries()) {
      const url = `${origin}/page/${i}`;
      const html = `${NAV}<a href="/docs/install#usage">again</a>`;
      // Different origins: root-relative hrefs resolve differently, the cache must know it.
      const all = analyze(analyzer, url, html).links.split('\n');
      expect(all).toEqual([
        `${origin}/docs/`,
        `${origin}/docs/install`,
        'https://site.test/blog',
        'https://other.test/x',
        `${origin}/private/admin`,
      ]);
    }
  });

  it('resolves relative hrefs against each page its folder, page after page, as the URL parser does', () => {
    const analyzer = new PageAnalyzer(rules, false);
    // The same contents on pages in different folders, of different sites, with queries
    // and fragments in the page's URL, and hrefs that only look relative.
    const contents =
      '<a href="install.html">i</a><a href="../api/x.html#a">x</a><a href="./">here</a><a href="..">up</a>' +
      '<a href="a/b?q=1">q</a><a href="?page=2">next</a><a href="#top">top</a><a href="http:rel?x">s</a>' +
      '<a href="%2e%2e/enc">e</a><a href="a\\b">b</a><a href="mailto:x@site.test">m</a>';
    const pages = [
      'https://site.test/docs/guide/start.html',
      'https://site.test/docs/guide/other.html?v=2',
      'https://site.test/docs/ref/',
      'https://site.test/docs/ref/#frag',
      'https://site.test/',
      'http://site.test/docs/guide/start.html',
      'https://www.site.test:8443/docs/guide/start.html',
      'https://site.test/docs/guide/start.html',
    ];
    for (const url of pages) {
      const got = analyze(analyzer, url, contents).links.split('\n');
      const parsed = parseHtml(new TextEncoder().encode(contents), { url, contentType: 'text/html' });
      const expected = routeLinks(
        parsed.links.map((l) => l.href),
        url,
        { url, depth: 0 },
        rules,
      ).urls;
      expect(got, url).toEqual(expected);
    }
    expect(analyze(analyzer, pages[1] as string, contents).links.split('\n')).toContain(
      'https://site.test/docs/guide/other.html?page=2',
    );
  });

  it("sends a link on once: a later page's copy of it is left out, its count kept", () => {
    const analyzer = new PageAnalyzer(rules, false);
    const first = analyze(analyzer, 'https://site.test/', NAV);
    expect(first.accepted).toEqual([
      'https://site.test/docs/',
      'https://site.test/docs/install',
      'https://site.test/blog',
    ]);
    expect(first.rejected.map((r) => r.reason)).toEqual(['scope', 'exclude']);
    const second = analyze(analyzer, 'https://site.test/docs/', `${NAV}<a href="/new">new</a>`);
    expect(second.accepted).toEqual(['https://site.test/new']);
    expect(second.rejected).toEqual([]);
    // The page's own line still counts every link it has.
    expect(second.outlinks).toBe(6);
    // Leased again (its first completion may never have been stored), a page sends all its links.
    const again = analyze(analyzer, 'https://site.test/', NAV, 0, false);
    expect(again.accepted).toEqual(first.accepted);
    expect(again.rejected).toEqual(first.rejected);
  });

  it('refuses links past --max-depth, and follows none of a page marked nofollow', () => {
    const deep = analyze(new PageAnalyzer(rules, false), 'https://site.test/', NAV, 3);
    expect(deep.accepted).toEqual([]);
    expect(deep.rejected.filter((r) => r.reason === 'depth').map((r) => r.url)).toEqual([
      'https://site.test/docs/',
      'https://site.test/docs/install',
      'https://site.test/blog',
    ]);
    const closed = analyze(
      new PageAnalyzer(rules, false),
      'https://site.test/',
      `<meta name="robots" content="nofollow">${NAV}`,
    );
    expect([closed.accepted, closed.rejected, closed.outlinks]).toEqual([[], [], 5]);
  });

  it('follows nofollow links when asked to', () => {
    const html = '<a href="/a" rel="nofollow">a</a><a href="/b">b</a>';
    expect(analyze(new PageAnalyzer(rules, false), 'https://site.test/', html).accepted).toEqual([
      'https://site.test/b',
    ]);
    expect(analyze(new PageAnalyzer(rules, true), 'https://site.test/', html).accepted).toEqual([
      'https://site.test/a',
      'https://site.test/b',
    ]);
  });

  it('follows a URL that one link marks nofollow and another does not, once, in either order', () => {
    for (const html of [
      '<a href="/a" rel="nofollow">a</a><a href="/b">b</a><a href="https://site.test/a">a again</a>',
      '<a href="https://site.test/a">a</a><a href="/b">b</a><a href="/a" rel="nofollow">a again</a>',
    ]) {
      const page = analyze(new PageAnalyzer(rules, false), 'https://site.test/', html);
      expect(page.accepted.sort()).toEqual(['https://site.test/a', 'https://site.test/b']);
      expect(page.links.split('\n').sort()).toEqual(['https://site.test/a', 'https://site.test/b']);
      expect(page.outlinks).toBe(2);
    }
  });
});
