import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Handler, page } from '../helpers/http.js';
import { fetchCounts, readPages } from '../helpers/pages.js';
import { serverProcesses } from '../helpers/server-process.js';

const t = serverProcesses('bunny-max-time');

/** How long each page of the slow web takes to answer. */
const SLOW_MS = 300;
const PAGES_PER_HOST = 12;

/** A page answered SLOW_MS late. */
function slow(title: string, links: string[] = []): Handler {
  return (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(title, links)), SLOW_MS);
  };
}

/** A host whose / links to its PAGES_PER_HOST pages, each slow. */
function slowSite(address: string) {
  const paths = Array.from({ length: PAGES_PER_HOST }, (_, i) => `/p${i + 1}`);
  const table: Record<string, Handler> = { '/': slow('home', paths) };
  for (const p of paths) table[p] = slow(p);
  return t.site(address, table);
}

// Three processes start (each loads its module threads): slow on a busy machine.
describe('cobweb bunny --max-time', { timeout: 180_000 }, () => {
  it('stops cleanly (exit 0, the rest left queued), and the next bunny finishes the crawl with every page once', async () => {
    // Each host answers one page at a time (--per-host 1), SLOW_MS each: a host's 13
    // pages take longer than the bunny's two seconds, whatever the machine.
    const sites = [await slowSite('127.0.0.2'), await slowSite('127.0.0.3')];
    const s = await t.server([...sites.map((x) => `${x.origin}/`), '--delay', '0', '--delay-factor', '0']);
    const first = t.bunny('b1', s.port, ['--max-time', '2s', '--json']);
    expect(await first.exit()).toBe(0);
    expect(first.stderr()).toMatch(/--max-time: 2000 ms are up; finishing the fetches in flight/);
    expect(first.stderr()).toMatch(/stopped at --max-time \(its leases go back to the queue\): \d+ fetched/);
    const stopped = t.summaryOf(first);
    expect(stopped.stoppedBy).toBe('max-time');
    // The fetches it had started were finished and handed in; the rest stays queued.
    expect(stopped.inFlight).toBe(0);
    expect(stopped.queued).toBeGreaterThan(0);
    const byFirst = readPages(join(t.dir, 'server', 'pages.jsonl')).length;
    expect(byFirst).toBe(stopped.fetchedThisRun);

    // The server leases the rest to the next bunny, which ends the crawl.
    const second = t.bunny('b2', s.port, ['--json']);
    expect(await second.exit()).toBe(0);
    const finished = t.summaryOf(second);
    expect(finished.stoppedBy).toBe('finished');
    expect(finished.queued).toBe(0);
    expect(byFirst + Number(finished.fetchedThisRun)).toBe(2 * (PAGES_PER_HOST + 1));

    // Every page reached its web server once, whichever bunny fetched it.
    for (const site of sites) {
      const asked = site.log.map((r) => r.path).filter((p) => p !== '/robots.txt');
      expect(asked).toHaveLength(PAGES_PER_HOST + 1);
      expect(new Set(asked).size).toBe(asked.length);
    }
    const pages = readPages(join(t.dir, 'server', 'pages.jsonl'));
    expect([...fetchCounts(pages).values()].every((n) => n === 1)).toBe(true);
    expect(new Set(pages.map((r) => r.crawler)).size).toBe(2);
    s.child.kill('SIGTERM');
    expect(await s.exit()).toBe(143);
  });
});
