import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { flaky, page } from '../helpers/http.js';

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
    expect(lines).toContain(
      '1 seed was fetched by an earlier run in this folder and is not fetched again (--fresh starts over)',
    );
  });

  it('fetches, as a seed at depth 0, a seed that an earlier run only refused', async () => {
    const b = await site('127.0.0.3', { '/': page('b', ['/b1']), '/b1': page('b1') });
    const a = await site('127.0.0.2', { '/': page('a', [`${b.origin}/`]) });
    await run([`${a.origin}/`]);
    expect(h.recordOf(`${b.origin}/`)).toMatchObject({ error: 'filtered', detail: 'scope' });
    for (const maxDepth of [0, 50]) {
      const lines: string[] = [];
      const again = await run([`${a.origin}/`, `${b.origin}/`], {
        maxDepth,
        onLog: (line) => lines.push(line),
      });
      expect(b.log.filter((r) => r.path === '/')).toHaveLength(1);
      if (maxDepth === 0) {
        expect(again.fetchedThisRun).toBe(1);
        // Only the seed really skipped is counted as not fetched again.
        expect(lines).toContain(
          '1 seed refused by an earlier run in this folder (scope) is queued again as a seed',
        );
        expect(lines).toContain(
          '1 seed was fetched by an earlier run in this folder and is not fetched again (--fresh starts over)',
        );
      } else {
        expect(lines).toContain(
          '2 seeds were fetched by an earlier run in this folder and are not fetched again (--fresh starts over)',
        );
      }
    }
    const fetchedB = h.pages().find((r) => r.url === `${b.origin}/` && r.status === 200);
    expect(fetchedB?.depth).toBe(0);
    // As a seed at depth 0, its own links are followed once the depth allows.
    expect(b.log.filter((r) => r.path === '/b1')).toHaveLength(1);
  });

  it('says how to fetch again a seed that failed before, and --retry-failed does', async () => {
    const root = flaky();
    const a = await site('127.0.0.2', { '/': root.route });
    await run([`${a.origin}/`]);
    root.mend();
    const lines: string[] = [];
    await run([`${a.origin}/`], { onLog: (line) => lines.push(line) });
    expect(lines).toContain(
      '1 seed failed in an earlier run in this folder and is not fetched again (--retry-failed tries it again)',
    );
    lines.length = 0;
    const retried = await run([`${a.origin}/`], { retryFailed: true, onLog: (line) => lines.push(line) });
    expect(retried.fetchedThisRun).toBe(1);
    expect(lines.filter((l) => /not fetched again/.test(l))).toEqual([]);
    expect(a.log.filter((r) => r.path === '/')).toHaveLength(2);
  });

  it('--retry-failed queues the URLs that failed once more', async () => {
    const flakyPage = flaky();
    const a = await site('127.0.0.2', { '/': page('root', ['/flaky']), '/flaky': flakyPage.route });
    await run([`${a.origin}/`]);
    expect(h.recordOf(`${a.origin}/flaky`)?.error).toBeDefined();
    flakyPage.mend();
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

describe('a resumed crawl whose robots.txt settings changed', () => {
  const robots = (text: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(text);

  it('fetches what robots.txt refused once --ignore-robots is on', async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': robots('User-agent: *\nDisallow: /no\n'),
      '/': page('root', ['/no']),
      '/no': page('no'),
    });
    await run([`${a.origin}/`]);
    expect(h.recordOf(`${a.origin}/no`)?.error).toBe('robots');
    await run([`${a.origin}/`], { ignoreRobots: true });
    expect(a.log.filter((r) => r.path === '/no')).toHaveLength(1);
  });

  it("asks robots.txt again when the User-Agent's robots token changed", async () => {
    const a = await site('127.0.0.2', {
      '/robots.txt': robots('User-agent: otherbot\nDisallow: /no\n'),
      '/': page('root', ['/no']),
      '/no': page('no'),
    });
    await run([`${a.origin}/`], { userAgent: 'otherbot/1.0' });
    expect(h.recordOf(`${a.origin}/no`)?.error).toBe('robots');
    // The same token again: the refusal stands, nothing is asked again.
    await run([`${a.origin}/`], { userAgent: 'otherbot/2.0' });
    expect(a.log.filter((r) => r.path === '/no')).toHaveLength(0);
    await run([`${a.origin}/`], { userAgent: 'mybot/1.0' });
    expect(a.log.filter((r) => r.path === '/no')).toHaveLength(1);
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
