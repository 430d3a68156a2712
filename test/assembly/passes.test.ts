import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crawl } from '../../src/assembly/crawl.js';
import { type Handler, page, routes, serve, type TestServer } from '../helpers/http.js';

/**
 * Crawl passes on a small site whose depths are known: / (depth 0) links to /a and /b,
 * each of those to two more, and those to /deep pages. A redirect at depth 1 is
 * followed within its pass.
 */

let dir: string;
let site: TestServer | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-passes-'));
});

afterEach(async () => {
  await site?.close();
  site = null;
  rmSync(dir, { recursive: true, force: true });
});

const DEPTH: Record<string, number> = {
  '/': 0,
  '/a': 1,
  '/b': 1,
  '/moved': 1,
  '/target': 1,
  '/a1': 2,
  '/a2': 2,
  '/b1': 2,
  '/b2': 2,
  '/deep1': 3,
  '/deep2': 3,
};

async function startSite(): Promise<TestServer> {
  const moved: Handler = (_req, res) => {
    res.writeHead(301, { location: '/target' }).end();
  };
  return serve(
    '127.0.0.2',
    routes({
      '/': page('home', ['/a', '/b', '/moved']),
      '/a': page('a', ['/a1', '/a2', '/']),
      '/b': page('b', ['/b1', '/b2']),
      '/moved': moved,
      '/target': page('target', ['/b']),
      '/a1': page('a1', ['/deep1']),
      '/a2': page('a2', ['/deep2', '/a']),
      '/b1': page('b1', []),
      '/b2': page('b2', ['/deep1']),
      '/deep1': page('deep1', []),
      '/deep2': page('deep2', []),
    }),
  );
}

function paths(): string[] {
  return site?.log.filter((r) => r.path !== '/robots.txt').map((r) => r.path) ?? [];
}

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const FAST = { delayMs: 0, delayFactor: 0, perHost: 4, concurrency: 4 } as const;

/** A shell command printing the store's `seen_through` and its last URL row, read from the file as another process sees it. */
const COVERED = `node -e "const D = require('better-sqlite3'); const db = new D(process.env.COBWEB_DATA + '/frontier.db', { readonly: true }); console.log(db.prepare(\\"SELECT value FROM meta WHERE key = 'seen_through'\\").pluck().get(), db.prepare('SELECT max(seq) FROM urls').pluck().get())"`;

describe('--passes', () => {
  it('fetches one depth per pass, stops at the boundary after n, and the next run goes on', async () => {
    site = await startSite();
    const seeds = [`${site.origin}/`];
    const ran: string[] = [];
    const started = Date.now();
    const first = await crawl({
      seeds,
      data: dir,
      passes: 2,
      seen: 'drum',
      // run as `CMD N`: prints COBWEB_PASS, then the argument N; then, as another process
      // would read it at the boundary, how far the seen set's last flush covers the store
      onPass: `${COVERED} >> ${join(dir, 'covered.txt')}; printf '%s %s\\n' "$COBWEB_PASS" >> ${join(dir, 'on-pass.txt')}`,
      ...FAST,
      onLog: (line) => ran.push(line),
    });
    const wallSeconds = (Date.now() - started) / 1000;
    expect(first.stoppedBy).toBe('passes');
    // Pass 1 fetched depth 0, pass 2 depth 1 (and the redirect's target, at its page's depth).
    const order = paths();
    expect(new Set(order)).toEqual(new Set(['/', '/a', '/b', '/moved', '/target']));
    expect(order[0]).toBe('/');
    const passes = lines(join(dir, 'passes.jsonl'));
    expect(passes.map((p) => [p.pass, p.depth, p.pages])).toEqual([
      [1, 0, 1],
      [2, 1, 4],
    ]);
    // pass 1 met /a, /b, /moved; pass 2 met /target and the four depth-2 pages
    expect(passes.map((p) => p.newUrls)).toEqual([3, 5]);
    // each pass says how long it took: a share of the run
    for (const p of passes) expect(p.seconds).toBeGreaterThanOrEqual(0);
    expect(passes.reduce((sum, p) => sum + (p.seconds as number), 0)).toBeLessThanOrEqual(wallSeconds);
    // At the last boundary (nothing runs after it but the commands) the seen set had been
    // flushed: its last flush covers every URL of the store. (Pass 1's command reads
    // while pass 2 runs beside it, so only the last one is read at a boundary.)
    expect(readFileSync(join(dir, 'covered.txt'), 'utf8').trim().split('\n')).toContain('9 9');
    expect(ran.some((l) => /^pass 1 \(depth 0\) done: 1 page, 3 new URLs, [\d.]+ s$/.test(l))).toBe(true);
    // pages.jsonl: each pass's pages, then its marker
    const pages = lines(join(dir, 'pages.jsonl'));
    const markers = pages.map((l, i) => [l.passEnd, i]).filter(([p]) => p !== undefined);
    expect(markers.map(([p]) => p)).toEqual([1, 2]);
    const beforeFirst = pages.slice(0, markers[0]?.[1] as number).map((l) => new URL(String(l.url)).pathname);
    expect(beforeFirst).toEqual(['/']);
    // --on-pass ran once per pass, with the number (in its environment and as its argument)
    expect(readFileSync(join(dir, 'on-pass.txt'), 'utf8').trim().split('\n').sort()).toEqual(['1 1', '2 2']);

    const second = await crawl({ seeds, data: dir, passes: 5, ...FAST, onLog: () => {} });
    expect(second.stoppedBy).toBe('finished');
    const all = paths();
    expect(all.slice(order.length).every((p) => (DEPTH[p] as number) >= 2)).toBe(true);
    expect(new Set(all).size).toBe(all.length); // each page once
    expect(new Set(all)).toEqual(new Set(Object.keys(DEPTH)));
    expect(lines(join(dir, 'passes.jsonl')).map((p) => [p.pass, p.depth])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
  });

  it('without --passes, every depth goes in one run (the merge beside the crawl) with the same pages', async () => {
    site = await startSite();
    const summary = await crawl({ seeds: [`${site.origin}/`], data: dir, seen: 'drum', ...FAST });
    expect(summary.stoppedBy).toBe('finished');
    expect(existsSync(join(dir, 'passes.jsonl'))).toBe(false);
    expect(new Set(paths())).toEqual(new Set(Object.keys(DEPTH)));
  });
});
