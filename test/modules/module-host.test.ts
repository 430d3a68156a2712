import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lazyPage } from '../../src/modules/lazy-page.js';
import { ModuleHost } from '../../src/modules/module-host.js';
import type { PageBatch, WirePage } from '../../src/modules/protocol.js';
import { packBuffers } from '../../src/worker.js';

let dir: string;
const logs: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-module-host-'));
  logs.length = 0;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function moduleFile(name: string, source: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

/** Pages http://a.test/<i>, each with the given HTML as its body, as the crawl hands them over. */
function batchOf(indexes: number[], html = '<p>x</p>'): PageBatch {
  const { packed, spans } = packBuffers(indexes.map(() => new TextEncoder().encode(html)));
  const pages: WirePage[] = indexes.map((i, k) => ({
    url: `http://a.test/${i}`,
    status: 200,
    headers: {},
    contentType: 'text/html',
    depth: 1,
    referrer: null,
    facts: { title: null, language: null, canonical: null, meta: [], forms: [] },
    links: `http://a.test/${i + 1}\nhttp://a.test/`,
    body: spans[k] ?? null,
  }));
  return { pages, packed };
}

async function start(paths: string[], timeoutMs: number): Promise<ModuleHost> {
  const host = ModuleHost.start({
    paths,
    dataDir: join(dir, 'data'),
    timeoutMs,
    log: (line) => logs.push(line),
  });
  expect((await host.loaded).filter((r) => r.refused !== undefined)).toEqual([]);
  return host;
}

describe('ModuleHost', () => {
  it('does not take a batch of calls, each well within the timeout, for one that hangs', async () => {
    // 20 pages x 100 ms of CPU = 2 s in one batch, past the 300 ms timeout + 1 s grace;
    // no single call comes near the timeout.
    const steady = moduleFile(
      'steady',
      `export default { name: 'steady', onPage(p) { const end = Date.now() + 100; while (Date.now() < end) {} return { seen: p.url }; } };`,
    );
    const host = await start([steady], 300);
    try {
      const batch = batchOf(Array.from({ length: 20 }, (_, i) => i));
      const verdicts = await host.onPages(batch);
      expect(verdicts.map((v) => v.fields.seen)).toEqual(batch.pages.map((p) => p.url));
      expect(host.stats()).toEqual([
        expect.objectContaining({ name: 'steady', calls: 20, errors: 0, timeouts: 0, skipped: 0 }),
      ]);
      expect(logs.filter((l) => l.includes('starting it again'))).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('starts the thread again without the call that held it: every other call runs, once', async () => {
    const stuck = moduleFile(
      'stuck',
      `export default { name: 'stuck', onPage(p) { if (p.url.endsWith('/0')) for (;;) {} return { seen: p.url }; } };`,
    );
    const other = moduleFile(
      'other',
      `export default { name: 'other', onPage(p, ctx) { ctx.emit({ url: p.url }); return { other: p.url }; } };`,
    );
    const host = await start([stuck, other], 200);
    try {
      // The first batch hangs the thread; the next two wait behind it, never started.
      const answers = await Promise.all([
        host.onPages(batchOf([0, 1])),
        host.onPages(batchOf([2])),
        host.onPages(batchOf([3, 4])),
      ]);
      const urls = [0, 1, 2, 3, 4].map((i) => `http://a.test/${i}`);
      const fields = answers.flat().map((v) => v.fields);
      expect(fields.map((f) => f.other)).toEqual(urls);
      expect(fields.map((f) => f.seen)).toEqual([undefined, ...urls.slice(1)]);
      const [stuckStats, otherStats] = host.stats();
      // Page 0 hung: its call is the timeout; the module's call on page 1 ran on the new thread.
      expect(stuckStats).toMatchObject({ name: 'stuck', calls: 5, timeouts: 1, skipped: 0, errors: 0 });
      expect(otherStats).toMatchObject({ name: 'other', calls: 5, timeouts: 0, skipped: 0 });
      expect(logs.some((l) => l.includes('module stuck:') && l.includes('starting it again'))).toBe(true);
    } finally {
      await host.close();
    }
  });

  it('gives every module one DOM per page, built when one asks for it', async () => {
    const first = moduleFile(
      'first',
      `export default { name: 'first', onPage(p) {
        globalThis.seen ??= new Map();
        const dom = p.dom();
        globalThis.seen.set(p.url, dom);
        return { h1: dom.children.find((n) => n.name === 'h1')?.children[0]?.data ?? null };
      } };`,
    );
    const second = moduleFile(
      'second',
      `export default { name: 'second', onPage(p) { return { shared: p.dom() === globalThis.seen.get(p.url), again: p.dom() === p.dom() }; } };`,
    );
    const quiet = moduleFile(
      'quiet',
      `export default { name: 'quiet', onPage(p) { return { n: p.links.length }; } };`,
    );
    const host = await start([first, second, quiet], 2000);
    try {
      const verdicts = await host.onPages(batchOf([0, 1], '<h1>Hello</h1><p>x</p>'));
      expect(verdicts.map((v) => v.fields)).toEqual([
        { h1: 'Hello', shared: true, again: true, n: 2 },
        { h1: 'Hello', shared: true, again: true, n: 2 },
      ]);
    } finally {
      await host.close();
    }
  });
});

describe('a page as modules see it', () => {
  it('decodes its text and builds its DOM only when asked: the bytes are not touched before', () => {
    const batch = batchOf([7], '<title>T</title><h1>caf\u00e9</h1>');
    const page = lazyPage(batch.pages[0] as WirePage, batch.packed);
    // Moving the bytes away leaves them unreadable here: what is read from now on did not need them.
    structuredClone(batch.packed, { transfer: [batch.packed] });
    expect(page.url).toBe('http://a.test/7');
    expect(page.links).toEqual(['http://a.test/8', 'http://a.test/']);
    expect(page.facts?.forms).toEqual([]);
    expect(() => page.html).toThrow(TypeError);
  });

  it('has the text, the links and the DOM as a module reads them, also when spread', () => {
    const batch = batchOf([7], '<h1>caf\u00e9</h1>');
    const page = lazyPage(batch.pages[0] as WirePage, batch.packed);
    expect({ ...page }).toMatchObject({
      html: '<h1>caf\u00e9</h1>',
      links: ['http://a.test/8', 'http://a.test/'],
    });
    const h1 = page.dom()?.children[0];
    expect(h1).toMatchObject({ name: 'h1' });
    const none = lazyPage({ ...(batch.pages[0] as WirePage), body: null, links: '' }, batch.packed);
    expect([none.html, none.dom(), none.links]).toEqual([null, null, []]);
  });
});
