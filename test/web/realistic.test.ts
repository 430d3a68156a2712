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

const webs: SyntheticWebOptions[] = (['realistic', 'link-heavy'] as const).map((profile) => ({
  hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
  pagesPerHost: 150,
  seed: 3,
  profile,
}));

/** What a crawler follows on a page: a[href], and link[href] with rel canonical, prev or next. */
function hrefsOf(html: string): string[] {
  const hrefs: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      const followed =
        name === 'a' || (name === 'link' && /^(canonical|prev|next)$/.test(attributes.rel ?? ''));
      if (followed && attributes.href !== undefined) hrefs.push(attributes.href);
    },
  });
  parser.end(html);
  return hrefs;
}

describe.each(webs)('the $profile synthetic web', (options) => {
  let web: RunningWeb;
  beforeAll(async () => {
    web = await startSyntheticWeb(options);
  });
  afterAll(async () => {
    await web.close();
  });

  it('has reachable() equal to a BFS that fetches pages over HTTP and follows their links', async () => {
    const origins = new Set(web.sites.map((site) => site.origin));
    const seen = new Set(web.sites.map((site) => `${site.origin}/`));
    const queue = [...seen];
    let leaving = 0;
    // Bounded: each page enters the queue once, and the web has 450 pages.
    for (let head = 0; head < queue.length && head < 1000; head++) {
      const url = queue[head] ?? '';
      const response = await fetch(url);
      expect(response.status, url).toBe(200);
      const body = await response.text();
      for (const href of hrefsOf(body)) {
        const target = new URL(href, url);
        target.hash = '';
        if (!origins.has(target.origin)) {
          leaving++;
          continue;
        }
        if (!seen.has(target.href)) {
          seen.add(target.href);
          queue.push(target.href);
        }
      }
    }
    expect([...seen].sort()).toEqual([...web.reachable()].sort());
    expect(seen.size).toBe(web.urlsOf().length);
    // Links out of the web (other hosts' docs, mailto:) are there for a crawler to refuse.
    expect(leaving).toBeGreaterThan(0);
  });

  it('serves the HTML renderPage renders, with the title of the page', async () => {
    const origins = web.sites.map((site) => site.origin);
    const served = await (await fetch(`${origins[1]}${pagePath(42)}`)).text();
    expect(served).toBe(renderPage(options, origins, 1, 42));
    expect(served).toContain(`<title>${pageTitle(1, 42)}</title>`);
  });
});

describe('the realistic web looks like a documentation site', () => {
  const hosts = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
  const origins = hosts.map((host) => `http://${host}:8080`);
  const opts: SyntheticWebOptions = { hosts, pagesPerHost: 2500, profile: 'realistic' };
  // Every 7th page of each site: 1,428 pages, spread over sections.
  const sample = hosts.flatMap((_, host) =>
    Array.from({ length: 357 }, (_, i) => renderPage(opts, origins, host, i * 7)),
  );
  const quantile = (values: number[], q: number) =>
    [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))] ?? 0;

  it('has pages of 5 to 150 KB, median about 20 KB', () => {
    const sizes = sample.map((html) => Buffer.byteLength(html));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(155_000);
    expect(quantile(sizes, 0.5)).toBeGreaterThan(16_000);
    expect(quantile(sizes, 0.5)).toBeLessThan(25_000);
    // A long tail, as the web has: some pages are several times the median.
    expect(quantile(sizes, 0.95)).toBeGreaterThan(50_000);
  });

  it('has 50 to 300 links a page, most of them the navigation the site repeats', () => {
    const counts = sample.map((html) => hrefsOf(html).length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...counts)).toBeLessThanOrEqual(310);
    expect(quantile(counts, 0.5)).toBeGreaterThan(90);
    expect(quantile(counts, 0.5)).toBeLessThan(160);
    // Links a page shares with at least three other sampled pages of its site: the site's
    // navigation and footer, and its section's sidebar.
    const site0 = sample.slice(0, 357).map((html) => hrefsOf(html));
    const usage = new Map<string, number>();
    for (const hrefs of site0) for (const href of new Set(hrefs)) usage.set(href, (usage.get(href) ?? 0) + 1);
    const shared = site0.map(
      (hrefs) => hrefs.filter((href) => (usage.get(href) ?? 0) >= 4).length / hrefs.length,
    );
    expect(quantile(shared, 0.5)).toBeGreaterThan(0.6);
  });
});

describe('the link-heavy web has the navigation of generated documentation', () => {
  const hosts = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
  const origins = hosts.map((host) => `http://${host}:8080`);
  const opts: SyntheticWebOptions = { hosts, pagesPerHost: 2500, profile: 'link-heavy' };
  // Every 7th page of each site.
  const sample = hosts.map((_, host) =>
    Array.from({ length: 357 }, (_, i) => hrefsOf(renderPage(opts, origins, host, i * 7))),
  );

  it('has 100 to 150 links a page, about 100 of them on every other page of the site too', () => {
    for (const site of sample) {
      const usage = new Map<string, number>();
      for (const hrefs of site)
        for (const href of new Set(hrefs)) usage.set(href, (usage.get(href) ?? 0) + 1);
      // The home page spells its relative hrefs from another folder: the rest of the site is compared.
      for (const hrefs of site.slice(1)) {
        expect(hrefs.length).toBeGreaterThanOrEqual(100);
        expect(hrefs.length).toBeLessThanOrEqual(150);
        const shared = hrefs.filter((href) => (usage.get(href) ?? 0) >= site.length - 1).length;
        expect(shared).toBeGreaterThanOrEqual(90);
      }
    }
  });

  it('spells its contents in relative hrefs, as generators write them', () => {
    const relative = sample[0]?.[1]?.filter((href) => /^[0-9]+\.html$/.test(href)) ?? [];
    expect(relative.length).toBeGreaterThanOrEqual(60);
  });
});
