/**
 * A robots.txt that hangs or is 50 MB, crawled beside a good site: the hanging one costs
 * its host's pages (RFC 9309: unreachable, nothing fetched) and one timeout's slot, not
 * the crawl; the huge one is read up to the parser's 500 KiB and its rules there used.
 */
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROBOTS_READ_BYTES } from '../../src/fetch/robots/robots-fetch.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { pump } from '../helpers/hostile-servers.js';
import { page } from '../helpers/http.js';
import { readWarcDir } from '../helpers/warc.js';

const MiB = 1024 * 1024;
const GOOD = '127.0.0.2';
const BAD = '127.0.0.3';

const harness = crawlHarness('bad-robots', {
  delayMs: 0,
  delayFactor: 0,
  builtinModules: false,
  connectTimeoutMs: 2000,
});

/** A good site of `n` pages in a chain, with a plain robots.txt. */
async function goodSite(n: number) {
  const table: Record<string, string> = {};
  for (let i = 0; i < n; i++) table[i === 0 ? '/' : `/p${i}`] = page(`good ${i}`, [`/p${i + 1}`]);
  table[`/p${n}`] = page('good last');
  const site = await harness.site(GOOD, table);
  return {
    site,
    urls: [`${site.origin}/`, ...Array.from({ length: n }, (_, i) => `${site.origin}/p${i + 1}`)],
  };
}

describe('a robots.txt that never answers', () => {
  it('holds the only crawl slot no longer than its timeout: the good site is crawled, the host gets no page request', async () => {
    const good = await goodSite(5);
    const bad = await harness.site(BAD, {
      '/robots.txt': () => {}, // never answered; the harness destroys the socket at the end
      '/': page('never to be fetched', ['/one']),
      '/one': page('never to be fetched'),
    });

    const summary = await harness.run([`${bad.origin}/`, `${bad.origin}/one`, good.urls[0] as string], {
      concurrency: 1,
      firstByteTimeoutMs: 300,
      totalTimeoutMs: 600,
      retries: 1,
      retryDelayMs: 50,
    });

    expect(summary.stoppedBy).toBe('finished');
    for (const url of good.urls) expect(harness.recordOf(url)).toMatchObject({ status: 200 });
    // Unreachable robots.txt: disallow all. Asked again on the retry, never a page.
    expect(bad.log.map((r) => r.path).filter((p) => p !== '/robots.txt')).toEqual([]);
    expect(bad.log.length).toBeGreaterThanOrEqual(1);
    for (const url of [`${bad.origin}/`, `${bad.origin}/one`]) {
      const record = harness.recordOf(url);
      // Waited and tried again (--retries 1), then recorded with robots.txt's own failure.
      expect(record).toMatchObject({ status: null, error: 'timeout', attempts: 2 });
      expect(record?.detail).toMatch(/^robots\.txt: /);
    }
  });
});

describe('a robots.txt answering 500', () => {
  it('is asked once while its pages wait and are tried again: disallowed (RFC 9309), then recorded', async () => {
    const good = await goodSite(2);
    const pages = ['/', '/a', '/b', '/c', '/d'];
    const bad = await harness.site(BAD, {
      '/robots.txt': (_req, res) => res.writeHead(500).end('down'),
      ...Object.fromEntries(pages.map((p) => [p, page('never to be fetched')])),
    });

    // Each URL is tried again 20 ms, then 40 ms after its last try: a robots.txt kept only
    // as long as that would be asked again at every retry of every URL.
    const summary = await harness.run([...pages.map((p) => `${bad.origin}${p}`), good.urls[0] as string], {
      retries: 2,
      retryDelayMs: 20,
    });

    expect(summary.stoppedBy).toBe('finished');
    expect(bad.log.map((r) => r.path)).toEqual(['/robots.txt']);
    for (const p of pages) {
      expect(harness.recordOf(`${bad.origin}${p}`)).toMatchObject({
        status: null,
        error: 'robots-unavailable',
        fetchedAt: null,
      });
    }
    for (const url of good.urls) expect(harness.recordOf(url)).toMatchObject({ status: 200 });
  });
});

describe('a 50 MB robots.txt', () => {
  /** 50 MB: the rules first, then comment lines, then a rule 1 MB in that a reader of 500 KiB never sees. */
  function hugeRobots(res: ServerResponse, sent: Array<() => number>, announceLength: boolean) {
    const head = 'User-agent: *\nDisallow: /private\n';
    const filler = Buffer.from(`# ${'filler '.repeat(140)}\n`);
    res.writeHead(200, {
      'content-type': 'text/plain',
      ...(announceLength ? { 'content-length': String(50 * MiB) } : {}),
    });
    res.write(head);
    // Never gets past the first MiB in these tests: the crawler stops reading at 500 KiB.
    sent.push(pump(res, filler, 50 * MiB - head.length));
  }

  for (const announceLength of [true, false]) {
    it(`is read up to 500 KiB and its rules there apply (${announceLength ? 'Content-Length' : 'chunked'})`, async () => {
      const good = await goodSite(3);
      const sent: Array<() => number> = [];
      const bad = await harness.site(BAD, {
        '/robots.txt': (_req, res) => hugeRobots(res, sent, announceLength),
        '/': page('open', ['/private', '/open']),
        '/open': page('open too'),
        '/private': page('disallowed'),
      });

      const summary = await harness.run([`${bad.origin}/`, good.urls[0] as string], { retries: 0 });

      expect(summary.stoppedBy).toBe('finished');
      expect(harness.recordOf(`${bad.origin}/`)).toMatchObject({ status: 200 });
      expect(harness.recordOf(`${bad.origin}/open`)).toMatchObject({ status: 200 });
      expect(harness.recordOf(`${bad.origin}/private`)).toMatchObject({ error: 'robots', fetchedAt: null });
      expect(bad.log.filter((r) => r.path === '/private')).toEqual([]);
      expect(bad.log.filter((r) => r.path === '/robots.txt')).toHaveLength(1);
      // What the socket buffers took before the crawler closed the connection: not 50 MB.
      expect(sent.reduce((n, s) => n + s(), 0)).toBeLessThan(16 * MiB);
      for (const url of good.urls) expect(harness.recordOf(url)).toMatchObject({ status: 200 });
      // The archive holds what was read, and says it was cut.
      const records = await readWarcDir(join(harness.dir, 'warc'));
      const robots = records.find((r) => r.type === 'response' && r.uri === `${bad.origin}/robots.txt`);
      expect(robots?.field('WARC-Truncated')).toBe('length');
      const block = robots?.block ?? Buffer.alloc(0);
      expect(block.length - block.indexOf('\r\n\r\n') - 4).toBe(ROBOTS_READ_BYTES);
    });
  }
});
