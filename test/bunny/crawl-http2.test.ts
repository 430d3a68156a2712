import { rmSync, writeFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SITE_A_CERT, SITE_A_KEY } from '../fetch/tls-fixture.js';
import { cobweb } from '../helpers/cli-process.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { listenOnLoopback, page } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { readWarcDir } from '../helpers/warc.js';

const h = crawlHarness('http2', { builtinModules: false, delayMs: 0, delayFactor: 0 });

/** An HTTPS server for site-a.test that speaks HTTP/2 to clients that offer it, HTTP/1.1 to the rest. */
async function tlsSite() {
  const seen: string[] = [];
  const server = createSecureServer({ key: SITE_A_KEY, cert: SITE_A_CERT, allowHTTP1: true }, (req, res) => {
    seen.push(`${req.httpVersion} ${req.url}`);
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(req.url ?? '', req.url === '/' ? ['/b'] : []));
  });
  const listening = await listenOnLoopback(server, '127.0.0.2');
  return { ...listening, seen, seed: `https://site-a.test:${listening.port}/` };
}

describe('--http2', () => {
  it('speaks HTTP/2 to a TLS server that offers it, trusting --ca-file, and the WARC says so', async () => {
    const site = await tlsSite();
    try {
      const caFile = `${h.dir}-ca.pem`;
      writeFileSync(caFile, SITE_A_CERT);
      const resolve = new Map([[`site-a.test:${site.port}`, '127.0.0.2']]);
      const summary = await h.run([site.seed], { http2: true, caFile, resolve });
      expect(summary.fetchedThisRun).toBe(2);
      expect(site.seen).toEqual(['2.0 /robots.txt', '2.0 /', '2.0 /b']);
      const warc = await readWarcDir(join(h.dir, 'warc'));
      const responses = warc.filter((r) => r.type === 'response');
      expect(responses.map((r) => [r.uri, r.field('WARC-Protocol')])).toEqual([
        [`${site.seed}robots.txt`, 'h2'],
        [site.seed, 'h2'],
        [`${site.seed}b`, 'h2'],
      ]);
      const request = warc.find((r) => r.type === 'request' && r.uri === site.seed);
      // Stored in HTTP/1.1 form, as WARC holds exchanges.
      expect(request?.block.toString('latin1')).toMatch(
        new RegExp(`^GET / HTTP/1\\.1\\r\\nhost: site-a\\.test:${site.port}\\r\\n`),
      );
    } finally {
      await site.close();
      rmSync(`${h.dir}-ca.pem`, { force: true });
    }
  });

  it('speaks HTTP/2 from the command line too, whose undici loads its HTTP/2 client only when needed', async () => {
    const site = await tlsSite();
    const caFile = `${h.dir}-cli-ca.pem`;
    const data = `${h.dir}-cli`;
    try {
      writeFileSync(caFile, SITE_A_CERT);
      const run = cobweb([
        'crawl',
        site.seed,
        '--data',
        data,
        '--http2',
        '--ca-file',
        caFile,
        '--resolve',
        `site-a.test:${site.port}:127.0.0.2`,
        '--delay',
        '0',
        '--quiet',
      ]);
      expect(await run.exit()).toBe(0);
      expect(site.seen).toEqual(['2.0 /robots.txt', '2.0 /', '2.0 /b']);
      expect(readPages(join(data, 'pages.jsonl')).map((l) => [l.url, l.status])).toEqual([
        [site.seed, 200],
        [`${site.seed}b`, 200],
      ]);
    } finally {
      await site.close();
      rmSync(caFile, { force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('without it, speaks HTTP/1.1 to the same server', async () => {
    const site = await tlsSite();
    try {
      const caFile = `${h.dir}-ca.pem`;
      writeFileSync(caFile, SITE_A_CERT);
      const resolve = new Map([[`site-a.test:${site.port}`, '127.0.0.2']]);
      await h.run([site.seed], { caFile, resolve });
      expect(site.seen).toEqual(['1.1 /robots.txt', '1.1 /', '1.1 /b']);
    } finally {
      await site.close();
      rmSync(`${h.dir}-ca.pem`, { force: true });
    }
  });
});
