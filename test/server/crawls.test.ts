import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningWeb, startSyntheticWeb } from '../../bench/web/synthetic.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { fetchCounts, readPages } from '../helpers/pages.js';

/**
 * Several crawls on one `cobweb server` (--crawl NAME), as processes: each crawl in its
 * own folder with its own store, seen set and pages.jsonl. Fetches are counted at the
 * web servers.
 */

let dir: string;
const webs: RunningWeb[] = [];
const processes: CliProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-crawls-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const w of webs.splice(0)) await w.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): CliProcess {
  const p = cobweb(args);
  processes.push(p);
  return p;
}

async function web(host: string): Promise<RunningWeb> {
  const w = await startSyntheticWeb({ hosts: [host], pagesPerHost: 20, minLinks: 2, maxLinks: 5 });
  webs.push(w);
  return w;
}

const data = () => join(dir, 'server');
const pagesOf = (crawl: string) => readPages(join(data(), 'crawls', crawl, 'pages.jsonl'));
/** A server on this test's folder, each crawl kept on its seed's host; the port it took is read from its first line. */
async function startServer(extra: string[]): Promise<{ server: CliProcess; port: number }> {
  const server = run([
    'server',
    ...extra,
    '--data',
    data(),
    '--listen',
    '127.0.0.1:0',
    '--scope',
    'host',
    '--delay',
    '0',
    '--quiet',
  ]);
  return { server, port: Number((await server.line(/server listening on [^\s]+:(\d+)/))[1]) };
}

const pageRequests = (w: RunningWeb) => w.requestLog.filter((r) => r.path !== '/robots.txt');

describe('one server, several crawls', { timeout: 180_000 }, () => {
  it('keeps each crawl apart: its own folder, store, drum seen set and pages, and show --crawl shows its own', async () => {
    const shop = await web('127.0.0.2');
    const news = await web('127.0.0.3');
    const { server, port } = await startServer(['--seen', 'drum']);
    const bunny = (name: string, crawl: string, seed: string) =>
      run(['bunny', seed, '--server', `127.0.0.1:${port}`, '--data', join(dir, name), '--crawl', crawl]);
    const a = bunny('a', 'shop', `${shop.sites[0]?.origin}/`);
    const b = bunny('b', 'news', `${news.sites[0]?.origin}/`);
    expect(await Promise.all([a.exit(), b.exit()])).toEqual([0, 0]);

    for (const [crawl, w] of [
      ['shop', shop],
      ['news', news],
    ] as const) {
      const fetched = [...fetchCounts(pagesOf(crawl)).keys()].sort();
      expect(fetched).toEqual([...w.reachable()].sort());
      expect(pageRequests(w)).toHaveLength(fetched.length);
      const folder = join(data(), 'crawls', crawl);
      expect(existsSync(join(folder, 'frontier.db'))).toBe(true);
      expect(existsSync(join(folder, 'frontier.db-seen', 'seen.drum'))).toBe(true);
    }
    // The default crawl, in the data folder itself, got none of it.
    expect(readFileSync(join(data(), 'pages.jsonl'), 'utf8')).toBe('');

    const show = (crawl?: string) =>
      run(['show', '--server', `127.0.0.1:${port}`, ...(crawl === undefined ? [] : ['--crawl', crawl])]);
    const shown = show('shop');
    expect(await shown.exit()).toBe(0);
    expect(shown.stdout()).toContain(shop.sites[0]?.origin);
    expect(shown.stdout()).not.toContain(news.sites[0]?.origin);
    expect(shown.stdout()).toMatch(/queue: 0 queued, 0 leased, 0 waiting to retry, 20 done/);
    const plain = show();
    expect(await plain.exit()).toBe(0);
    expect(plain.stdout()).toMatch(/^sites: 0$/m);
    const unknown = show('nope');
    expect(await unknown.exit()).toBe(2);
    expect(unknown.stderr()).toMatch(/holds no crawl nope/);

    // Seen sets are per crawl: shop's seed again is seen in shop, new in a third crawl.
    const again = bunny('c', 'shop', `${shop.sites[0]?.origin}/`);
    expect(await again.exit()).toBe(0);
    expect(pageRequests(shop)).toHaveLength(20);
    const other = bunny('d', 'shop-copy', `${shop.sites[0]?.origin}/`);
    expect(await other.exit()).toBe(0);
    expect(pageRequests(shop)).toHaveLength(40);
    expect(fetchCounts(pagesOf('shop-copy')).size).toBe(20);

    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
  });

  it('makes `cobweb server --crawl NAME` its own crawl: the seeds go there, and a bunny or a show that names none works on it', async () => {
    const shop = await web('127.0.0.2');
    const { server, port } = await startServer([`${shop.sites[0]?.origin}/`, '--crawl', 'shop']);
    const worker = run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'w')]);
    expect(await worker.exit()).toBe(0);
    expect(fetchCounts(pagesOf('shop')).size).toBe(20);
    expect(pageRequests(shop)).toHaveLength(20);
    // The default crawl (the data folder itself) was never opened: no store there.
    expect(existsSync(join(data(), 'frontier.db'))).toBe(false);
    const shown = run(['show', '--server', `127.0.0.1:${port}`]);
    expect(await shown.exit()).toBe(0);
    expect(shown.stdout()).toMatch(/queue: 0 queued, 0 leased, 0 waiting to retry, 20 done/);

    const bad = run(['bunny', '--server', `127.0.0.1:${port}`, '--data', join(dir, 'x'), '--crawl', '../up']);
    expect(await bad.exit()).toBe(2);
    expect(bad.stderr()).toMatch(
      /--crawl.*expected a name of 1 to 64 letters, digits, '\.', '_' or '-', not starting with '\.', got "\.\.\/up"/,
    );
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
  });
});
