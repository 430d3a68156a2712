import { describe, expect, it } from 'vitest';
import { hrefOf, LinkPlan, pageStream, planLinks } from '../../bench/scale/links.js';
import { renderPage } from '../../bench/scale/page.js';
import { computeReach } from '../../bench/scale/reach.js';
import { DEAD, FLAKY, MOVED, pagePath, Robots, ScaleWeb, SLOW } from '../../bench/scale/shape.js';
import { canonicalize } from '../../src/url/canonicalize.js';

/** The scale web's generator on its own: shaped as the benchmark says, the same from one seed. */

const web = new ScaleWeb({ hosts: 2000, pages: 30_000, seed: 7 });

describe('the scale web', () => {
  it('has power-law host sizes: most hosts 1 to 20 pages, a few of thousands, about the pages asked for', () => {
    const sizes = [...web.sizes];
    const small = sizes.filter((s) => s >= 1 && s <= 20).length;
    expect(small / sizes.length).toBeGreaterThan(0.8);
    expect(Math.max(...sizes)).toBeGreaterThan(2000);
    expect(sizes.filter((s) => s > 1000).length).toBeLessThan(10);
    expect(web.totalPages).toBeGreaterThan(25_000);
    expect(web.totalPages).toBeLessThanOrEqual(30_000);
  });

  it('has every kind of host: dead, slow, flaky, moved; robots.txt of every kind', () => {
    const count = (flag: number) => [...web.flags].filter((f) => (f & flag) !== 0).length;
    for (const flag of [DEAD, SLOW, FLAKY, MOVED]) expect(count(flag)).toBeGreaterThan(0);
    for (const kind of Object.values(Robots)) expect([...web.robots]).toContain(kind);
  });

  it('gives each page 50 to 150 links, and every href canonicalizes to the page it was planned for', () => {
    const plan = new LinkPlan();
    const port = 80;
    for (const host of [0, 5, 17, 333, 1999]) {
      for (const page of [0, 1, web.size(host) - 1]) {
        planLinks(web, host, page, pageStream(web, host, page), plan);
        expect(plan.count).toBeGreaterThanOrEqual(50);
        expect(plan.count).toBeLessThanOrEqual(150);
        const base = `http://${web.hostName(host)}${pagePath(page)}`;
        for (let k = 0; k < plan.count; k++) {
          const href = hrefOf(web, port, host, page, plan, k);
          const canonical = canonicalize(href, base);
          const target = plan.hosts[k] as number;
          expect(canonical).toEqual({
            ok: true,
            url: `http://${web.hostName(target)}${pagePath(plan.pages[k] as number)}`,
          });
        }
      }
    }
  });

  it('renders pages of tens of KB that carry exactly the planned links', () => {
    const plan = new LinkPlan();
    const html = renderPage(web, 80, 3, 2, plan);
    expect(html.length).toBeGreaterThan(5_000);
    expect(html.length).toBeLessThan(120_000);
    const anchors = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    expect(anchors).toHaveLength(plan.count);
  });

  it('is the same web from the same seed, and another from another', () => {
    const again = new ScaleWeb({ hosts: 2000, pages: 30_000, seed: 7 });
    const other = new ScaleWeb({ hosts: 2000, pages: 30_000, seed: 8 });
    expect(again.sizes).toEqual(web.sizes);
    expect(again.robots).toEqual(web.robots);
    expect(other.robots).not.toEqual(web.robots);
    expect(renderPage(again, 80, 9, 1, new LinkPlan())).toBe(renderPage(web, 80, 9, 1, new LinkPlan()));
  });

  it('reaches no page of a dead host, a robots.txt 5xx host, a moved host, nor a disallowed page', () => {
    const reach = computeReach(web);
    expect(reach.count).toBeGreaterThan(web.totalPages / 2);
    for (let host = 0; host < web.o.hosts; host++) {
      const first = web.offsets[host] as number;
      for (let page = 0; page < web.size(host); page++) {
        if (reach.pages[first + page] !== 1) continue;
        expect(web.has(host, DEAD) || web.has(host, MOVED)).toBe(false);
        expect(web.robots[host]).not.toBe(Robots.ServerError);
        expect(web.allowed(host, page)).toBe(true);
      }
    }
  });
});
