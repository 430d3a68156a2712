import { Parser } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pagePath,
  pageTitle,
  type RunningWeb,
  renderPage,
  type SyntheticWebOptions,
  startSyntheticWeb,
} from '../../bench/web/synthetic.js';

const options: SyntheticWebOptions = {
  hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
  pagesPerHost: 17,
  seed: 7,
};

/** The href attributes of every <a>, in document order, as the page spells them. */
function hrefsOf(html: string): string[] {
  const hrefs: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'a' && attributes.href !== undefined) hrefs.push(attributes.href);
    },
  });
  parser.end(html);
  return hrefs;
}

async function get(url: string): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

describe('synthetic web', () => {
  let web: RunningWeb;
  beforeAll(async () => {
    web = await startSyntheticWeb(options);
  });
  afterAll(async () => {
    await web.close();
  });

  it('has one site per host, each listening on its own address', () => {
    expect(web.sites.map((site) => site.host)).toEqual(options.hosts);
    for (const site of web.sites) expect(site.origin).toMatch(new RegExp(`^http://${site.host}:\\d+$`));
  });

  it('serves every page of urlsOf() with status 200, HTML type and its title', async () => {
    const expected = web.sites.flatMap((site) =>
      Array.from({ length: options.pagesPerHost }, (_, page) => site.origin + pagePath(page)),
    );
    expect(web.urlsOf()).toEqual(expected);
    for (const [hostIndex, site] of web.sites.entries()) {
      for (let page = 0; page < options.pagesPerHost; page++) {
        const { status, type, body } = await get(site.origin + pagePath(page));
        expect(status).toBe(200);
        expect(type).toBe('text/html; charset=utf-8');
        expect(body).toContain(`<title>${pageTitle(hostIndex, page)}</title>`);
      }
    }
  });

  it('answers 404 for paths that are not pages', async () => {
    const origin = web.sites[0]?.origin ?? '';
    for (const path of ['/robots.txt', '/p/17.html', '/p/01.html', '/p/3.html?x=1', '/p/', '/p/3.htm']) {
      expect((await get(origin + path)).status, path).toBe(404);
    }
  });

  it('serves the stylesheet, script, font and icon a realistic page names, so --requisites fetches real bodies', async () => {
    const origin = web.sites[0]?.origin ?? '';
    const css = await get(`${origin}/assets/site.css`);
    expect(css.status).toBe(200);
    expect(css.type).toBe('text/css; charset=utf-8');
    expect(css.body.length).toBeGreaterThan(1000);
    for (const path of ['/assets/app.js', '/assets/font.woff2', '/favicon.ico']) {
      expect((await get(origin + path)).status, path).toBe(200);
    }
  });

  it('has reachable() equal to a BFS that fetches pages over HTTP and follows their links', async () => {
    const origins = new Set(web.sites.map((site) => site.origin));
    const seen = new Set(web.sites.map((site) => `${site.origin}/`));
    const queue = [...seen];
    const spellings = { relative: 0, fragment: 0, mailto: 0, crossHost: 0, duplicate: 0 };
    // Bounded: each page enters the queue once, and the web has 51 pages.
    for (let head = 0; head < queue.length && head < 1000; head++) {
      const pageUrl = queue[head] ?? '';
      const { status, body } = await get(pageUrl);
      expect(status, pageUrl).toBe(200);
      const hrefs = hrefsOf(body);
      if (new Set(hrefs).size < hrefs.length) spellings.duplicate++;
      for (const href of hrefs) {
        if (href.startsWith('mailto:')) {
          spellings.mailto++;
          continue;
        }
        if (!href.startsWith('/') && !href.startsWith('http') && !href.startsWith('#')) spellings.relative++;
        if (href.includes('#') && !href.startsWith('#')) spellings.fragment++;
        const url = new URL(href, pageUrl);
        url.hash = '';
        if (url.origin !== new URL(pageUrl).origin) spellings.crossHost++;
        expect(origins.has(url.origin), href).toBe(true);
        if (!seen.has(url.href)) {
          seen.add(url.href);
          queue.push(url.href);
        }
      }
    }
    expect([...seen].sort()).toEqual([...web.reachable()].sort());
    // The tree links make every page reachable from its site root.
    expect(seen.size).toBe(web.urlsOf().length);
    // The noise a crawler must cope with is really there.
    for (const [kind, count] of Object.entries(spellings)) expect(count, kind).toBeGreaterThan(0);
  });

  it('logs the host and path of every request', async () => {
    const site = web.sites[1];
    if (!site) throw new Error('need a second site');
    const before = performance.timeOrigin + performance.now();
    await get(`${site.origin}/p/5.html`);
    await get(`${site.origin}/no-such-page?x=1`);
    const after = performance.timeOrigin + performance.now();
    const recent = web.requestLog.slice(-2);
    expect(recent.map(({ host, path }) => ({ host, path }))).toEqual([
      { host: '127.0.0.3', path: '/p/5.html' },
      { host: '127.0.0.3', path: '/no-such-page?x=1' },
    ]);
    for (const entry of recent) {
      expect(entry.at).toBeGreaterThanOrEqual(before);
      expect(entry.at).toBeLessThanOrEqual(after);
    }
  });

  it('renders the same HTML for the same seed, and serves exactly that', async () => {
    const origins = web.sites.map((site) => site.origin);
    const served = (await get(`${origins[2]}${pagePath(9)}`)).body;
    expect(renderPage(options, origins, 2, 9)).toBe(served);
    expect(renderPage({ ...options }, [...origins], 2, 9)).toBe(served);
    expect(renderPage({ ...options, seed: 8 }, origins, 2, 9)).not.toBe(served);
  });

  it('pads pages to about pageBytes', () => {
    const origins = ['http://127.0.0.2:1', 'http://127.0.0.3:1'];
    for (const pageBytes of [3000, 8000]) {
      const size = Buffer.byteLength(renderPage({ ...options, pageBytes }, origins, 0, 4));
      expect(size).toBeGreaterThan(pageBytes * 0.9);
      expect(size).toBeLessThan(pageBytes * 1.1);
    }
  });
});

describe('synthetic web options', () => {
  it('keeps links on their host when crossHostRatio is 0', () => {
    const origins = ['http://127.0.0.2:1', 'http://127.0.0.3:1'];
    const opts = { hosts: ['127.0.0.2', '127.0.0.3'], pagesPerHost: 40, crossHostRatio: 0 };
    for (let page = 0; page < 40; page++) {
      for (const href of hrefsOf(renderPage(opts, origins, 0, page))) {
        expect(href.startsWith('http://127.0.0.3'), href).toBe(false);
      }
    }
  });

  it('rejects options that cannot make a web', async () => {
    await expect(startSyntheticWeb({ hosts: [], pagesPerHost: 5 })).rejects.toThrow(RangeError);
    await expect(startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 0 })).rejects.toThrow(RangeError);
    await expect(
      startSyntheticWeb({ hosts: ['127.0.0.2'], pagesPerHost: 5, minLinks: 9, maxLinks: 3 }),
    ).rejects.toThrow(RangeError);
  });
});
