import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page, type routes } from '../helpers/http.js';
import { JITTER_MS } from '../helpers/jitter.js';

const h = crawlHarness('robots', { delayMs: 0, delayFactor: 0, perHost: 2, retries: 0 });
const { site, run, recordOf } = h;
// Every line the crawl wrote: pages.jsonl (fetched, failed) and refused.jsonl (refused without a request).
const pagesOf = () => [...h.pages(), ...h.refused()];
const text = () => ({ 'content-type': 'text/plain' }) as const;

describe('robots.txt', () => {
  it('is read before the first page; a disallowed URL is recorded as robots and never fetched', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': (_req, res) =>
        res
          .writeHead(200, text())
          .end('User-agent: *\nDisallow: /private\n\nUser-agent: cobweb\nDisallow: /no-cobweb\n'),
      '/': page('root', ['/open', '/private/x', '/no-cobweb']),
      '/open': page('open'),
      '/private/x': page('secret'),
      '/no-cobweb': page('secret'),
    });
    await run([`${a.origin}/`]);
    expect(a.log.map((r) => r.path).slice(0, 2)).toEqual(['/robots.txt', '/']);
    expect(a.log.map((r) => r.path).sort()).toEqual(['/', '/open', '/private/x', '/robots.txt']);
    // our own group (product token "cobweb") applies, not the * group
    expect(recordOf(`${a.origin}/no-cobweb`)).toMatchObject({
      error: 'robots',
      status: null,
      fetchedAt: null,
    });
    expect(recordOf(`${a.origin}/private/x`)).toMatchObject({ status: 200 });
  });

  it('is not read with --ignore-robots', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': (_req, res) => res.writeHead(200, text()).end('User-agent: *\nDisallow: /\n'),
      '/': page('root', ['/x']),
      '/x': page('x'),
    });
    await run([`${a.origin}/`], { ignoreRobots: true });
    expect(a.log.map((r) => r.path)).toEqual(['/', '/x']);
  });

  it('Crawl-delay holds between request starts with --per-host 4, counted at the server', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': (_req, res) => res.writeHead(200, text()).end('User-agent: *\nCrawl-delay: 1\n'),
      '/': page('root', ['/1', '/2', '/3']),
      '/1': page('1'),
      '/2': page('2'),
      '/3': page('3'),
    });
    await run([`${a.origin}/`], { perHost: 4, concurrency: 8 });
    const times = a.log.map((r) => r.at);
    expect(a.log.map((r) => r.path).sort()).toEqual(['/', '/1', '/2', '/3', '/robots.txt']);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(1000 - JITTER_MS);
    }
  });

  it('Crawl-delay spaces requests to the host, capped by --max-delay', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': (_req, res) => res.writeHead(200, text()).end('User-agent: *\nCrawl-delay: 60\n'),
      '/': page('root', ['/1', '/2']),
      '/1': page('1'),
      '/2': page('2'),
    });
    await run([`${a.origin}/`], { perHost: 1, maxDelayMs: 150 });
    const times = a.log.map((r) => r.at);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(150 - JITTER_MS);
    }
  });

  it('records the refusal cause when the host does not answer at all', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.3', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await run([`http://127.0.0.3:${port}/`]);
    expect(recordOf(`http://127.0.0.3:${port}/`)).toMatchObject({
      error: 'refused',
      detail: expect.stringMatching(/^robots\.txt: /),
    });
  });
});

describe('sitemaps', () => {
  it('reads the sitemaps robots.txt names, sitemap indexes and gzipped sitemaps, and crawls their URLs', async () => {
    const table: Parameters<typeof routes>[0] = {
      '/': page('root'),
      '/orphan-1': page('o1'),
      '/orphan-2': page('o2'),
      '/deep/orphan-3': page('o3'),
    };
    const a = await site('127.0.0.2', table);
    const urlset = (...paths: string[]) =>
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
        .map((p) => `<url><loc>${a.origin}${p}</loc></url>`)
        .join('')}</urlset>`;
    table['/robots.txt'] = (_req, res) =>
      res.writeHead(200, text()).end(`User-agent: *\nAllow: /\nSitemap: ${a.origin}/sitemap-index.xml\n`);
    table['/sitemap-index.xml'] = (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${a.origin}/s1.xml</loc></sitemap><sitemap><loc>${a.origin}/s2.xml.gz</loc></sitemap></sitemapindex>`,
        );
    table['/s1.xml'] = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset('/orphan-1', '/orphan-2'));
    table['/s2.xml.gz'] = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(urlset('/deep/orphan-3')));
    await run([`${a.origin}/`], { sitemaps: true });
    for (const p of ['/orphan-1', '/orphan-2', '/deep/orphan-3']) {
      expect(recordOf(`${a.origin}${p}`)).toMatchObject({ status: 200, depth: 2 });
    }
    expect(recordOf(`${a.origin}/sitemap-index.xml`)).toMatchObject({ status: 200, outlinks: 2, depth: 0 });
    expect(recordOf(`${a.origin}/s2.xml.gz`)).toMatchObject({ status: 200, outlinks: 1 });
  });

  it('tries /sitemap.xml when robots.txt names none, and records a malformed sitemap without failing', async () => {
    const table: Parameters<typeof routes>[0] = { '/': page('root'), '/listed': page('listed') };
    const a = await site('127.0.0.2', table);
    table['/sitemap.xml'] = (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(`<urlset><url><loc>${a.origin}/listed</loc></url><url><loc>${a.origin}/cut`);
    const summary = await run([`${a.origin}/`], { sitemaps: true });
    expect(summary.stoppedBy).toBe('finished');
    expect(recordOf(`${a.origin}/sitemap.xml`)).toMatchObject({
      status: 200,
      detail: expect.stringMatching(/^sitemap: /),
    });
    expect(recordOf(`${a.origin}/listed`)).toMatchObject({ status: 200 });
  });
});

describe('private addresses', () => {
  it('are refused when no seed is on them, even behind a public-looking name', async () => {
    const inside = await site('127.0.0.3', { '/': page('intranet') });
    const table: Parameters<typeof routes>[0] = {};
    const a = await site('127.0.0.2', table);
    table['/'] = page('root', [
      `http://127.0.0.3:${inside.port}/`,
      `http://intranet.example:${inside.port}/`,
    ]);
    await run([`${a.origin}/`], {
      scope: 'any',
      resolve: new Map([[`intranet.example:${inside.port}`, '127.0.0.3']]),
    });
    expect(inside.log).toEqual([]);
    expect(recordOf(`http://127.0.0.3:${inside.port}/`)).toMatchObject({ error: 'private-address' });
    expect(recordOf(`http://intranet.example:${inside.port}/`)).toMatchObject({ error: 'private-address' });
  });

  it('are fetched with --allow-private', async () => {
    const inside = await site('127.0.0.3', { '/': page('intranet') });
    const table: Parameters<typeof routes>[0] = {};
    const a = await site('127.0.0.2', table);
    table['/'] = page('root', [`http://127.0.0.3:${inside.port}/`]);
    await run([`${a.origin}/`], { scope: 'any', allowPrivate: true });
    expect(recordOf(`http://127.0.0.3:${inside.port}/`)).toMatchObject({ status: 200, title: 'intranet' });
  });
});

describe('retries and back-off', () => {
  it('retries a 503 after its Retry-After and records only the final try', async () => {
    let calls = 0;
    const a = await site('127.0.0.2', {
      '/': page('root', ['/busy']),
      '/busy': (_req, res) => {
        calls++;
        if (calls === 1) res.writeHead(503, { 'retry-after': '1' }).end('busy');
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok now</title>');
      },
    });
    await run([`${a.origin}/`], { retries: 2, retryDelayMs: 10 });
    const busy = pagesOf().filter((r) => r.url === `${a.origin}/busy`);
    expect(busy).toEqual([expect.objectContaining({ status: 200, title: 'ok now', attempts: 2 })]);
    const hits = a.log.filter((r) => r.path === '/busy').map((r) => r.at);
    expect((hits[1] as number) - (hits[0] as number)).toBeGreaterThanOrEqual(1000 - JITTER_MS);
  });

  it('gives up after --retries and records the last status', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/down']),
      '/down': (_req, res) => res.writeHead(500).end('down'),
    });
    await run([`${a.origin}/`], { retries: 2, retryDelayMs: 10 });
    expect(a.log.filter((r) => r.path === '/down')).toHaveLength(3);
    expect(pagesOf().filter((r) => r.url === `${a.origin}/down`)).toEqual([
      expect.objectContaining({ status: 500, attempts: 3 }),
    ]);
  });

  it('retires a host that keeps refusing connections and records its queued URLs', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.3', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dead = (p: string) => `http://127.0.0.3:${port}${p}`;
    const table: Parameters<typeof routes>[0] = {
      '/': page('root', ['/a', '/b', '/c', '/d', '/e', '/f'].map(dead)),
    };
    const a = await site('127.0.0.2', table);
    const summary = await run([`${a.origin}/`], {
      scope: 'any',
      allowPrivate: true,
      ignoreRobots: true,
      perHost: 1,
      retireAfter: 3,
      hostBackoffMs: 20,
    });
    expect(summary.stoppedBy).toBe('finished');
    const records = ['/a', '/b', '/c', '/d', '/e', '/f'].map((p) => recordOf(dead(p)));
    expect(records.filter((r) => r?.error === 'refused')).toHaveLength(3);
    expect(records.filter((r) => r?.error === 'host-unreachable')).toHaveLength(3);
    expect(records.every((r) => r !== undefined)).toBe(true);
  });
});

describe('trap limits', () => {
  it('refuse and record deep, repetitive and parameter-heavy URLs, and --max-pages-per-host', async () => {
    const q = Array.from({ length: 25 }, (_, i) => `p${i}=1`).join('&');
    const a = await site('127.0.0.2', {
      '/': page('root', [
        `/${Array.from({ length: 25 }, (_, i) => `d${i}`).join('/')}`,
        '/x/y/x/y/x/y',
        `/search?${q}`,
        '/ok1',
        '/ok2',
        '/ok3',
      ]),
      '/ok1': page('1'),
      '/ok2': page('2'),
      '/ok3': page('3'),
    });
    await run([`${a.origin}/`], { maxPagesPerHost: 3 });
    const why = Object.fromEntries(
      pagesOf()
        .filter((r) => r.error === 'filtered')
        .map((r) => [r.url.slice(a.origin.length, a.origin.length + 12), r.detail]),
    );
    expect(why).toEqual({
      '/d0/d1/d2/d3': 'path-depth',
      '/x/y/x/y/x/y': 'repeated-segment',
      '/search?p0=1': 'query-params',
      '/ok3': 'host-budget',
    });
  });
});
