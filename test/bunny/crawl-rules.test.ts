import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

const h = crawlHarness('rules', { delayMs: 0, delayFactor: 0, perHost: 2, retries: 0 });
const { site, run } = h;
// Every line the crawl wrote: pages.jsonl (fetched, failed) and refused.jsonl (refused without a request).
const pagesOf = () => [...h.pages(), ...h.refused()];
const fetchedUrls = () =>
  pagesOf()
    .filter((r) => r.status !== null)
    .map((r) => r.url)
    .sort();

describe('what the crawl follows', () => {
  it('stays inside the seed host under --scope host and records what it refused', async () => {
    const other = await site('127.0.0.3', { '/': page('other') });
    const a = await site('127.0.0.2', { '/': page('a', ['/x', `${other.origin}/`]), '/x': page('x') });
    const summary = await run([`${a.origin}/`], { scope: 'host' });
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/x`]);
    expect(other.log).toEqual([]);
    const refused = pagesOf().filter((r) => r.error === 'filtered');
    expect(refused).toEqual([
      expect.objectContaining({
        url: `${other.origin}/`,
        detail: 'scope',
        via: `${a.origin}/`,
        status: null,
      }),
    ]);
    expect(summary.stoppedBy).toBe('finished');
  });

  it('under --scope domain follows other hosts of the registrable domain, not other domains', async () => {
    // Real-looking names on loopback through --resolve. The root links to the others'
    // ports, known once they listen: the route table is read at request time.
    const root: Record<string, string> = {};
    const www = await site('127.0.0.2', root);
    const blog = await site('127.0.0.3', { '/': page('blog') });
    const shop = await site('127.0.0.4', { '/': page('shop') });
    root['/'] = page('www', [`http://blog.site.test:${blog.port}/`, `http://shop.test:${shop.port}/`]);
    const resolve = new Map([
      [`www.site.test:${www.port}`, '127.0.0.2'],
      [`blog.site.test:${blog.port}`, '127.0.0.3'],
      [`shop.test:${shop.port}`, '127.0.0.4'],
    ]);
    // blog.site.test is on a loopback address no seed is on: allowed only with allowPrivate.
    await run([`http://www.site.test:${www.port}/`], { resolve, allowPrivate: true });
    expect(fetchedUrls()).toEqual([
      `http://blog.site.test:${blog.port}/`,
      `http://www.site.test:${www.port}/`,
    ]);
    expect(www.log.map((r) => r.host)).toEqual([`www.site.test:${www.port}`, `www.site.test:${www.port}`]);
    expect(blog.log.map((r) => r.host)).toEqual([
      `blog.site.test:${blog.port}`,
      `blog.site.test:${blog.port}`,
    ]);
    expect(shop.log).toEqual([]);
  });

  it('applies --include and --exclude, and the bad-extension filter', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/docs/a', '/docs/private/b', '/blog/c', '/docs/pic.JPG', '/docs/report.pdf']),
      '/docs/a': page('a'),
      '/docs/private/b': page('b'),
      '/blog/c': page('c'),
      '/docs/report.pdf': page('pdf'),
    });
    await run([`${a.origin}/`], { include: [/\/docs\//], exclude: [/private/] });
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/docs/a`, `${a.origin}/docs/report.pdf`]);
    const why = Object.fromEntries(
      pagesOf()
        .filter((r) => r.error === 'filtered')
        .map((r) => [r.url.slice(a.origin.length), r.detail]),
    );
    expect(why).toEqual({ '/docs/private/b': 'exclude', '/blog/c': 'include', '/docs/pic.JPG': 'extension' });
  });

  it('stops at --max-depth (a seed is depth 0)', async () => {
    const a = await site('127.0.0.2', {
      '/': page('0', ['/1']),
      '/1': page('1', ['/2']),
      '/2': page('2', ['/3']),
      '/3': page('3'),
    });
    await run([`${a.origin}/`], { maxDepth: 1 });
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/1`]);
    expect(pagesOf().find((r) => r.url === `${a.origin}/2`)).toMatchObject({
      error: 'filtered',
      detail: 'depth',
      depth: 2,
    });
    expect(a.log.map((r) => r.path)).toEqual(['/robots.txt', '/', '/1']);
  });

  it('stops at --max-pages, and a second run with a higher limit goes on', async () => {
    const table: Record<string, string> = {};
    for (let i = 0; i < 10; i++) table[i === 0 ? '/' : `/${i}`] = page(String(i), [`/${i + 1}`]);
    table['/10'] = page('10');
    const a = await site('127.0.0.2', table);
    const first = await run([`${a.origin}/`], { maxPages: 4 });
    expect(first.stoppedBy).toBe('max-pages');
    expect(fetchedUrls()).toHaveLength(4);
    const second = await run([`${a.origin}/`], { maxPages: 7 });
    expect(second.fetchedThisRun).toBe(3);
    expect(fetchedUrls()).toHaveLength(7);
    const third = await run([`${a.origin}/`]);
    expect(third.stoppedBy).toBe('finished');
    expect(fetchedUrls()).toHaveLength(11);
    // robots.txt is read once per run; every page was fetched once across the three runs
    const pagesFetched = a.log.filter((r) => r.path !== '/robots.txt');
    expect(new Set(pagesFetched.map((r) => r.path)).size).toBe(pagesFetched.length);
  });

  it('does not follow rel=nofollow links, or any link on a meta-robots nofollow page', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/followed', '/meta-nofollow'], '<a rel="nofollow" href="/not-followed">x</a>'),
      '/followed': page('f'),
      '/not-followed': page('n'),
      '/meta-nofollow': page('m', ['/behind-meta'], '<meta name="robots" content="nofollow,noindex">'),
      '/behind-meta': page('b'),
    });
    await run([`${a.origin}/`]);
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/followed`, `${a.origin}/meta-nofollow`]);
    const root = pagesOf().find((r) => r.url === `${a.origin}/`);
    expect(root?.outlinks).toBe(3);
    expect(pagesOf().find((r) => r.url === `${a.origin}/meta-nofollow`)).toMatchObject({
      noindex: true,
      outlinks: 1,
    });
  });

  it('follows rel=nofollow with followNofollow', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', [], '<a rel="nofollow" href="/n">x</a>'),
      '/n': page('n'),
    });
    await run([`${a.origin}/`], { followNofollow: true });
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/n`]);
  });

  it('follows <link> elements that name pages, not stylesheets, icons or rev="made" addresses', async () => {
    // PostgreSQL's docs carry <link rev="made" href="pgsql-docs@lists...">: a bare address.
    const head = `<link rev="made" href="pgsql-docs@example.test">
      <link rel="stylesheet" href="/style.css"><link rel="icon" href="/favicon.ico">
      <link rel="next" href="/2"><link rel="alternate" hreflang="de" href="/de">`;
    const a = await site('127.0.0.2', {
      '/': `<html><head><title>1</title>${head}</head><body></body></html>`,
      '/2': page('2'),
      '/de': page('de'),
      '/style.css': (_req, res) => res.writeHead(200, { 'content-type': 'text/css' }).end('p{}'),
    });
    await run([`${a.origin}/`]);
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/2`, `${a.origin}/de`]);
    expect(a.log.map((r) => r.path).sort()).toEqual(['/', '/2', '/de', '/robots.txt']);
  });

  it('fetches each spelling of a URL once: canonical forms are deduplicated', async () => {
    const table: Record<string, string> = { '/a/c': page('c') };
    const a = await site('127.0.0.2', table);
    table['/'] = page('root', [
      '/a/./b/../c',
      '/a/c#frag',
      '/a/%63',
      `HTTP://127.0.0.2:${a.port}/a/c?`,
      'mailto:x@y.z',
      'javascript:void(0)',
    ]);
    await run([`${a.origin}/`]);
    expect(fetchedUrls()).toEqual([`${a.origin}/`, `${a.origin}/a/c`]);
    expect(a.log.filter((r) => r.path === '/a/c')).toHaveLength(1);
    expect(pagesOf().some((r) => r.url.startsWith('mailto:') || r.url.startsWith('javascript:'))).toBe(false);
  });
});

describe('what the crawl records', () => {
  it('refuses and records an over-long URL, marks pages with forms, and sends the user agent', async () => {
    const long = `/${'x'.repeat(2100)}`;
    let agent = '';
    const a = await site('127.0.0.2', {
      '/': page('root', [long, '/form']),
      '/form': (req, res) => {
        agent = req.headers['user-agent'] ?? '';
        res.writeHead(200, { 'content-type': 'text/html' }).end('<form action="/s"><input name="q"></form>');
      },
    });
    await run([`${a.origin}/`], { userAgent: 'testbot/1.0 (+http://example.test/bot)' });
    expect(a.log.map((r) => r.path)).toEqual(['/robots.txt', '/', '/form']);
    expect(pagesOf().find((r) => r.error === 'too-long')).toMatchObject({
      via: `${a.origin}/`,
      status: null,
    });
    expect(pagesOf().find((r) => r.url === `${a.origin}/form`)).toMatchObject({ hasForm: true, status: 200 });
    expect(pagesOf().find((r) => r.url === `${a.origin}/`)).toMatchObject({ hasForm: false, outlinks: 2 });
    expect(agent).toBe('testbot/1.0 (+http://example.test/bot)');
  });

  it("keeps an error page's title, and does not follow its links", async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/gone', '/broken']),
      '/gone': (_req, res) =>
        res.writeHead(404, { 'content-type': 'text/html' }).end(page('Page not found', ['/from-404'])),
      '/broken': (_req, res) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end('<title>not html</title>'),
    });
    await run([`${a.origin}/`]);
    expect(pagesOf().find((r) => r.url === `${a.origin}/gone`)).toMatchObject({
      status: 404,
      title: 'Page not found',
    });
    expect(pagesOf().find((r) => r.url === `${a.origin}/broken`)).toMatchObject({ status: 500, title: null });
    expect(a.log.map((r) => r.path)).not.toContain('/from-404');
  });

  it('hands onRecord every line it writes, to pages.jsonl and refused.jsonl alike', async () => {
    const other = await site('127.0.0.3', { '/': page('other') });
    const a = await site('127.0.0.2', { '/': page('a', ['/x', `${other.origin}/`]), '/x': page('x') });
    const seen: string[] = [];
    await run([`${a.origin}/`], { scope: 'host', onRecord: (r) => seen.push(JSON.stringify(r)) });
    expect(seen.sort()).toEqual(
      pagesOf()
        .map((r) => JSON.stringify(r))
        .sort(),
    );
    expect(seen).toHaveLength(3);
  });
});
