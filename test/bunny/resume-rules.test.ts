import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

const h = crawlHarness('resume-rules', { delayMs: 0, delayFactor: 0, perHost: 2, retries: 0 });
const { site, run } = h;
const fetched = () =>
  h
    .pages()
    .filter((r) => r.status !== null)
    .map((r) => r.url)
    .sort();

describe('a resumed crawl with other options', () => {
  it('fetches what a filter that no longer applies had refused', async () => {
    const a = await site('127.0.0.2', { '/': page('root', ['/1', '/2']), '/1': page('1'), '/2': page('2') });
    const lines: string[] = [];
    await run([`${a.origin}/`], { maxDepth: 0 });
    expect(fetched()).toEqual([`${a.origin}/`]);
    const second = await run([`${a.origin}/`], { onLog: (line) => lines.push(line) });
    expect(fetched()).toEqual([`${a.origin}/`, `${a.origin}/1`, `${a.origin}/2`]);
    expect(second.fetchedThisRun).toBe(2);
    expect(lines.some((l) => /maxDepth|max-depth/.test(l))).toBe(true);
    expect(lines).toContain("2 URLs refused under the last run's rules are queued again");
  });

  it('says it in English when one URL is queued again', async () => {
    const a = await site('127.0.0.2', { '/': page('root', ['/1']), '/1': page('1') });
    await run([`${a.origin}/`], { maxDepth: 0 });
    const lines: string[] = [];
    await run([`${a.origin}/`], { onLog: (line) => lines.push(line) });
    expect(lines).toContain("1 URL refused under the last run's rules is queued again");
  });

  it('keeps a refusal that the new rules still make', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/1']),
      '/1': page('1', ['/1/2']),
      '/1/2': page('2'),
    });
    await run([`${a.origin}/`], { maxDepth: 0 });
    await run([`${a.origin}/`], { maxDepth: 1 });
    expect(fetched()).toEqual([`${a.origin}/`, `${a.origin}/1`]);
    expect(a.log.filter((r) => r.path === '/1/2')).toEqual([]);
  });

  it('says so when a seed was met by an earlier run, instead of skipping it silently', async () => {
    const a = await site('127.0.0.2', { '/': page('root') });
    await run([`${a.origin}/`]);
    const lines: string[] = [];
    const again = await run([`${a.origin}/`], { onLog: (line) => lines.push(line) });
    expect(again.stoppedBy).toBe('finished');
    expect(lines.some((l) => l.startsWith('1 seed was met by an earlier run'))).toBe(true);
  });

  it('--retry-failed queues the URLs that failed once more', async () => {
    let broken = true;
    const a = await site('127.0.0.2', {
      '/': page('root', ['/flaky']),
      '/flaky': (_req, res) => {
        // broken: the connection is dropped, a failure with no response
        if (broken) res.socket?.destroy();
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>');
      },
    });
    await run([`${a.origin}/`]);
    expect(h.recordOf(`${a.origin}/flaky`)?.error).toBeDefined();
    broken = false;
    await run([`${a.origin}/`]);
    expect(a.log.filter((r) => r.path === '/flaky')).toHaveLength(1);
    const lines: string[] = [];
    await run([`${a.origin}/`], { retryFailed: true, onLog: (line) => lines.push(line) });
    expect(a.log.filter((r) => r.path === '/flaky')).toHaveLength(2);
    expect(lines).toContain('--retry-failed: 1 URL that failed is queued again');
    expect(
      h
        .pages()
        .filter((r) => r.url === `${a.origin}/flaky`)
        .map((r) => r.status),
    ).toEqual([null, 200]);
  });
});

describe('--max-pages', () => {
  it('counts URLs with a final outcome, not tries', async () => {
    let tries = 0;
    const a = await site('127.0.0.2', {
      '/': (_req, res) => {
        tries++;
        if (tries === 1) res.writeHead(503).end();
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/x">x</a>');
      },
      '/x': page('x'),
    });
    const summary = await run([`${a.origin}/`], { maxPages: 1, retries: 1, retryDelayMs: 10 });
    expect(summary.stoppedBy).toBe('max-pages');
    expect(fetched()).toEqual([`${a.origin}/`]);
    expect(summary.fetchedThisRun).toBe(1);
  });

  it('does not count URLs robots.txt kept the crawl from', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /no\n'),
      '/': page('root', ['/no', '/yes']),
      '/yes': page('yes'),
      '/no': page('no'),
    });
    const summary = await run([`${a.origin}/`], { maxPages: 2, perHost: 1 });
    expect(fetched()).toEqual([`${a.origin}/`, `${a.origin}/yes`]);
    expect(h.recordOf(`${a.origin}/no`)?.error).toBe('robots');
    expect(summary.stoppedBy).toBe('finished');
  });
});
