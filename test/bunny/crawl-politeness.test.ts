import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';
import { JITTER_MS } from '../helpers/jitter.js';

const h = crawlHarness('politeness', { delayFactor: 0, retries: 0 });

function gapsOf(times: readonly number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((t, i) => t - (sorted[i] as number));
}

describe('politeness per address (--politeness-key ip)', () => {
  it('keeps the gap between two host names on one address from their very first requests', async () => {
    const table: Record<string, string> = {};
    const web = await h.site('127.0.0.2', table);
    const hosts = ['a.test', 'b.test'];
    for (const host of hosts) {
      table[`/${host}`] = page(host, [`/${host}/1`, `/${host}/2`]);
      table[`/${host}/1`] = page('1');
      table[`/${host}/2`] = page('2');
    }
    const resolve = new Map(hosts.map((host) => [`${host}:${web.port}`, '127.0.0.2']));
    await h.run(
      hosts.map((host) => `http://${host}:${web.port}/${host}`),
      { politenessKey: 'ip', delayMs: 300, perHost: 2, concurrency: 8, resolve, scope: 'any' },
    );
    // Both names reached the one server, robots.txt first for each.
    expect(new Set(web.log.map((r) => r.host))).toEqual(new Set(hosts.map((x) => `${x}:${web.port}`)));
    expect(web.log.filter((r) => r.path === '/robots.txt')).toHaveLength(2);
    expect(web.log).toHaveLength(8);
    for (const gap of gapsOf(web.log.map((r) => r.at))) expect(gap).toBeGreaterThanOrEqual(300 - JITTER_MS);
  });
});

describe('a host section of its own --per-host', () => {
  it("fetches as many of the host's pages at once as its section allows, above the crawl's --per-host", async () => {
    let inFlight = 0;
    let most = 0;
    let held: (() => void)[] = [];
    const answerHeld = () => {
      for (const answer of held) answer();
      held = [];
    };
    // The pages are held until three are in flight (then all answered), or for at most
    // two seconds when fewer come: the most at once is what the crawl allowed.
    const slow = (title: string) => (_req: IncomingMessage, res: ServerResponse) => {
      inFlight++;
      most = Math.max(most, inFlight);
      held.push(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/html' }).end(page(title));
      });
      if (inFlight >= 3) answerHeld();
      else setTimeout(answerHeld, 2000);
    };
    const site = await h.site('127.0.0.2', {
      '/': page('home', ['/1', '/2', '/3']),
      '/1': slow('1'),
      '/2': slow('2'),
      '/3': slow('3'),
    });
    await h.run([`${site.origin}/`], {
      delayMs: 0,
      perHost: 1,
      concurrency: 8,
      hosts: { '127.0.0.2': { perHost: 3 } },
    });
    expect(most).toBe(3);
    expect(h.pages().filter((p) => p.status === 200)).toHaveLength(4);
  });
});
