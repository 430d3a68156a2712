import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModuleLoadError } from '../../src/errors.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

const logs: string[] = [];
const h = crawlHarness('modules', {
  delayMs: 0,
  delayFactor: 0,
  perHost: 2,
  retries: 0,
  onLog: (line) => logs.push(line),
});
const { site, run } = h;
let modulesDir: string;

beforeEach(() => {
  modulesDir = mkdtempSync(join(tmpdir(), 'cobweb-module-files-'));
  logs.length = 0;
});

afterEach(() => {
  rmSync(modulesDir, { recursive: true, force: true });
});

/** Writes a module file (plain JavaScript, as a user would) and returns its path. */
function moduleFile(name: string, source: string): string {
  const file = join(modulesDir, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

function emitted(module: string): Record<string, unknown>[] {
  const file = join(h.dir, 'data', `${module}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const smallSite = () =>
  site('127.0.0.2', {
    '/': page('root', ['/a', '/b']),
    '/a': page('a', ['/b']),
    '/b': page('b'),
  });

describe('a module from a file', () => {
  it('runs on every page once, and what it emits and returns lands in the outputs', async () => {
    const a = await smallSite();
    const path = moduleFile(
      'titles',
      `export default {
        name: 'titles',
        onPage(page, ctx) {
          if (page.html === null) return;
          ctx.emit({ url: page.url, status: page.status, depth: page.depth, referrer: page.referrer, links: page.links.length });
          return { titleLength: page.html.match(/<title>(.*?)<\\/title>/)[1].length };
        },
      };`,
    );
    const summary = await run([`${a.origin}/`], { modules: [path], builtinModules: false });
    const records = emitted('titles');
    expect(records.map((r) => r.url).sort()).toEqual([`${a.origin}/`, `${a.origin}/a`, `${a.origin}/b`]);
    expect(records.find((r) => r.url === `${a.origin}/a`)).toEqual({
      url: `${a.origin}/a`,
      status: 200,
      depth: 1,
      referrer: `${a.origin}/`,
      links: 1,
    });
    expect(h.pages().find((r) => r.url === `${a.origin}/`)).toMatchObject({
      titleLength: 4,
    });
    expect(summary.modules).toEqual([
      expect.objectContaining({ name: 'titles', calls: 3, errors: 0, timeouts: 0 }),
    ]);
  });

  it('can be written in TypeScript against the exported types', async () => {
    const a = await smallSite();
    const path = join(import.meta.dirname, 'fixtures', 'word-count.ts');
    await run([`${a.origin}/`], { modules: [path], builtinModules: false });
    expect(emitted('word-count')).toHaveLength(3);
    expect(h.pages().every((r) => typeof (r as { words?: unknown }).words === 'number')).toBe(true);
  });

  it('may enqueue URLs, which take the link path (scope included)', async () => {
    const a = await site('127.0.0.2', { '/': page('root'), '/hidden': page('hidden') });
    const path = moduleFile(
      'finder',
      `export default {
        name: 'finder',
        onPage(page, ctx) { if (page.url.endsWith('/')) ctx.enqueue(['/hidden', 'http://elsewhere.test/x', 'mailto:a@b.c']); },
      };`,
    );
    await run([`${a.origin}/`], { modules: [path], builtinModules: false, scope: 'host' });
    const pages = [...h.pages(), ...h.refused()];
    expect(pages.find((r) => r.url === `${a.origin}/hidden`)).toMatchObject({
      status: 200,
      depth: 1,
      via: `${a.origin}/`,
    });
    expect(pages.find((r) => r.url === 'http://elsewhere.test/x')).toMatchObject({
      error: 'filtered',
      detail: 'scope',
    });
  });
});

describe('a module that misbehaves', () => {
  it('throwing on every page is counted, and the crawl completes', async () => {
    const a = await smallSite();
    const path = moduleFile(
      'thrower',
      `export default { name: 'thrower', onPage() { throw new Error('boom'); } };`,
    );
    const summary = await run([`${a.origin}/`], { modules: [path], builtinModules: false });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.fetchedThisRun).toBe(3);
    expect(summary.modules).toEqual([
      expect.objectContaining({ name: 'thrower', calls: 3, errors: 3, timeouts: 0 }),
    ]);
    // each error names the page it was on
    expect(logs.filter((l) => l.includes('thrower') && l.includes('boom')).sort()).toEqual(
      [`${a.origin}/`, `${a.origin}/a`, `${a.origin}/b`].map((u) => `module thrower on ${u}: boom`),
    );
  });

  it('never returning is cut off after the module timeout and counted', async () => {
    const a = await smallSite();
    const path = moduleFile(
      'sleeper',
      `export default { name: 'sleeper', onPage() { return new Promise(() => {}); } };`,
    );
    const summary = await run([`${a.origin}/`], {
      modules: [path],
      builtinModules: false,
      moduleTimeoutMs: 200,
    });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.fetchedThisRun).toBe(3);
    expect(summary.modules).toEqual([expect.objectContaining({ name: 'sleeper', calls: 3, timeouts: 3 })]);
  });

  it('looping forever is cut off, its thread replaced, the others keep working', async () => {
    const a = await smallSite();
    const looper = moduleFile(
      'looper',
      `export default { name: 'looper', onPage(page) { if (page.url.endsWith('/a')) for (;;) {} } };`,
    );
    const counter = moduleFile(
      'counter',
      `export default { name: 'counter', onPage(p, ctx) { ctx.emit({ url: p.url }); } };`,
    );
    const summary = await run([`${a.origin}/`], {
      modules: [looper, counter],
      builtinModules: false,
      moduleTimeoutMs: 200,
      perHost: 1,
    });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.fetchedThisRun).toBe(3);
    const looperStats = summary.modules.find((m) => m.name === 'looper');
    expect(looperStats?.timeouts).toBeGreaterThanOrEqual(1);
    // the pages the loop did not stall were seen by the other module
    expect(emitted('counter').map((r) => r.url)).toContain(`${a.origin}/`);
    expect(logs.some((l) => l.includes('looper') && l.includes('starting it again'))).toBe(true);
  });

  it('hanging its thread on one page costs only itself: the others run on every page', async () => {
    const table: Record<string, string> = {};
    const paths = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    table['/'] = page('root', paths);
    for (const p of paths) table[p] = page(p);
    const a = await site('127.0.0.2', table);
    // Burns the CPU far past the timeout on the seed, before any other page is fetched.
    const spinner = moduleFile(
      'spinner',
      `export default { name: 'spinner', onPage(page, ctx) {
        if (page.url.endsWith('/')) { const end = Date.now() + 3000; while (Date.now() < end) {} }
        ctx.emit({ url: page.url });
      } };`,
    );
    const counter = moduleFile(
      'counter',
      `export default { name: 'counter', onPage(p, ctx) { ctx.emit({ url: p.url }); return { counted: true }; } };`,
    );
    const summary = await run([`${a.origin}/`], {
      modules: [spinner, counter],
      moduleTimeoutMs: 200,
      perHost: 4,
    });
    expect(summary.stoppedBy).toBe('finished');
    const all = [`${a.origin}/`, ...paths.map((p) => `${a.origin}${p}`)].sort();
    // The well-behaved modules, a built-in among them, saw every page.
    expect(
      emitted('counter')
        .map((r) => r.url)
        .sort(),
    ).toEqual(all);
    expect(
      emitted('meta')
        .map((r) => r.url)
        .sort(),
    ).toEqual(all);
    expect(h.pages().every((r) => (r as { counted?: boolean }).counted === true)).toBe(true);
    const stats = (name: string) => summary.modules.find((m) => m.name === name);
    expect(stats('counter')).toMatchObject({ calls: 13, errors: 0, timeouts: 0, skipped: 0 });
    expect(stats('meta')).toMatchObject({ calls: 13, errors: 0, timeouts: 0, skipped: 0 });
    // The spinner's own count adds up: every page was either a call of its or skipped.
    const spin = stats('spinner');
    expect(spin?.timeouts).toBe(1);
    expect((spin?.calls ?? 0) + (spin?.skipped ?? 0)).toBe(13);
    expect(emitted('spinner').length).toBe((spin?.calls ?? 0) - 1);
    expect(logs.some((l) => l.includes('spinner') && l.includes('starting it again'))).toBe(true);
  });
});

describe('a module that holds its thread again after every restart', () => {
  it('is switched off alone after a budget of restarts; the others run on every page', async () => {
    const table: Record<string, string> = {};
    const paths = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    table['/'] = page('root', paths);
    for (const p of paths) table[p] = page(p);
    const a = await site('127.0.0.2', table);
    // Its count starts at zero on every new thread: it holds each new thread on its first page.
    const slowpoke = moduleFile(
      'slowpoke',
      `let calls = 0;
      export default { name: 'slowpoke', onPage() {
        if (calls++ === 0) { const end = Date.now() + 3000; while (Date.now() < end) {} }
        return { slow: true };
      } };`,
    );
    const heading = moduleFile(
      'heading',
      `export default { name: 'heading', onPage(p, ctx) { ctx.emit({ url: p.url }); return { heading: /<title>([^<]*)/.exec(p.html ?? '')?.[1] ?? '' }; } };`,
    );
    const summary = await run([`${a.origin}/`], {
      modules: [slowpoke, heading],
      builtinModules: false,
      moduleTimeoutMs: 200,
      perHost: 4,
    });
    expect(summary.stoppedBy).toBe('finished');
    const all = [`${a.origin}/`, ...paths.map((p) => `${a.origin}${p}`)].sort();
    expect(
      emitted('heading')
        .map((r) => r.url)
        .sort(),
    ).toEqual(all);
    expect(h.pages().every((r) => typeof (r as { heading?: string }).heading === 'string')).toBe(true);
    const stats = (name: string) => summary.modules.find((m) => m.name === name);
    expect(stats('heading')).toMatchObject({ calls: 13, errors: 0, timeouts: 0, skipped: 0 });
    expect(stats('heading')?.off).toBeUndefined();
    expect(stats('slowpoke')).toMatchObject({ timeouts: 3, off: true });
    expect(logs.filter((l) => l.includes('is off for the rest of the crawl'))).toEqual([
      expect.stringMatching(/^module slowpoke: .* 3 times; it is off for the rest of the crawl/),
    ]);
  });
});

describe('a module that cannot be loaded', () => {
  const cases: [string, string, RegExp][] = [
    ['a syntax error', `export default { name: 'x', onPage( };`, /cannot be imported: .*/],
    ['no name', `export default { onPage() {} };`, /its default export must be an object with a name/],
    ['no default export', `export const x = 1;`, /its default export must be an object with a name/],
    ['no hooks', `export default { name: 'idle' };`, /neither an onPage nor an onSite hook/],
    [
      'a failing selfTest',
      `export default { name: 'broken', selfTest() { throw new Error('no dictionary'); }, onPage() {} };`,
      /selfTest failed: no dictionary/,
    ],
    [
      'a selfTest that never returns',
      `export default { name: 'stuck', selfTest() { for (;;) {} }, onPage() {} };`,
      /did not finish loading within 200 ms/,
    ],
  ];

  it.each(cases)('with %s stops the crawl before it starts, saying why', async (_what, source, why) => {
    const a = await smallSite();
    const path = moduleFile('bad', source);
    const data = join(h.dir, 'never-made');
    const crawl = run([`${a.origin}/`], {
      modules: [path],
      data,
      moduleTimeoutMs: 200,
      builtinModules: false,
    });
    await expect(crawl).rejects.toThrow(ModuleLoadError);
    await expect(crawl).rejects.toThrow(new RegExp(`^module ${path} cannot be loaded: .*${why.source}`));
    expect(a.log).toEqual([]);
    expect(existsSync(data)).toBe(false);
  });

  it('that is missing, or reuses a name, stops the crawl too', async () => {
    const a = await smallSite();
    const missing = join(modulesDir, 'nowhere.mjs');
    await expect(run([`${a.origin}/`], { modules: [missing] })).rejects.toThrow(
      new RegExp(`module ${missing} cannot be loaded: cannot be imported`),
    );
    const one = moduleFile('one', `export default { name: 'same', onPage() {} };`);
    const two = moduleFile('two', `export default { name: 'same', onPage() {} };`);
    await expect(run([`${a.origin}/`], { modules: [one, two] })).rejects.toThrow(
      `module ${two} cannot be loaded: a module named "same" is already loaded`,
    );
    expect(a.log).toEqual([]);
  });
});

describe("the library's onPage", () => {
  it('that throws is counted and logged like a module hook, and the crawl goes on', async () => {
    const a = await smallSite();
    const summary = await run([`${a.origin}/`], {
      builtinModules: false,
      onPage(page) {
        if (page.url.endsWith('/a')) throw new Error('my bug');
      },
    });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.fetchedThisRun).toBe(3);
    expect(summary.modules).toEqual([
      expect.objectContaining({ name: '(onPage)', calls: 3, errors: 1, timeouts: 0, skipped: 0 }),
    ]);
    expect(logs.filter((l) => l.includes('onPage threw') && l.includes('my bug'))).toHaveLength(1);
  });

  it('that never settles is cut off after the module timeout', async () => {
    const a = await smallSite();
    const summary = await run([`${a.origin}/`], {
      builtinModules: false,
      moduleTimeoutMs: 100,
      onPage: (page) => (page.url.endsWith('/b') ? new Promise(() => {}) : undefined),
    });
    expect(summary.stoppedBy).toBe('finished');
    expect(summary.modules).toEqual([expect.objectContaining({ name: '(onPage)', calls: 3, timeouts: 1 })]);
  });
});

describe('site hooks', () => {
  it('run once per site across the whole crawl, including after a resume', async () => {
    const a = await site('127.0.0.2', {
      '/': page('a', ['/1', '/2', '/3']),
      '/1': page('1'),
      '/2': page('2'),
      '/3': page('3'),
    });
    const b = await site('127.0.0.3', { '/': page('b', ['/1', '/2']), '/1': page('1'), '/2': page('2') });
    const path = moduleFile(
      'sites',
      `export default { name: 'sites', onSite(site, ctx) { ctx.emit({ origin: site.origin }); return { seen: site.origin }; } };`,
    );
    const seeds = [`${a.origin}/`, `${b.origin}/`];
    // The first run reaches one site only; the others find the second one after resuming.
    const first = await run(seeds, { modules: [path], builtinModules: false, maxPages: 1, perHost: 1 });
    expect(first.stoppedBy).toBe('max-pages');
    await run(seeds, { modules: [path], builtinModules: false, perHost: 1 });
    await run(seeds, { modules: [path], builtinModules: false, perHost: 1 });
    expect(
      emitted('sites')
        .map((r) => r.origin)
        .sort(),
    ).toEqual([a.origin, b.origin]);
    const store = new SqliteFrontier(join(h.dir, 'frontier.db'), {
      perHost: 1,
      delayMs: 0,
      delayFactor: 0,
      maxDelayMs: 0,
      backoffMs: 0,
      maxBackoffMs: 0,
      retireAfter: 1,
      key: 'host',
      maxPagesPerHost: Number.POSITIVE_INFINITY,
      leaseMs: 1000,
      maxPages: Number.POSITIVE_INFINITY,
    });
    const sites = await store.sites();
    await store.close();
    expect(sites.map((s) => [s.origin, s.info])).toEqual(
      expect.arrayContaining([
        [a.origin, { sites: { seen: a.origin } }],
        [b.origin, { sites: { seen: b.origin } }],
      ]),
    );
  });
});

describe('built-in modules', () => {
  it('forms, meta and server work through the same API, on by default', async () => {
    const a = await site('127.0.0.2', {
      '/': (_req, res) =>
        res
          .writeHead(200, {
            'content-type': 'text/html',
            server: 'TestServer/1.0',
            'x-powered-by': 'Hope',
            'last-modified': 'Wed, 21 Oct 2026 07:28:00 GMT',
          })
          .end(
            `<html lang="fr"><head><title>Accueil</title><meta name="description" content="Un site"><link rel="canonical" href="/home"></head>
            <body><form action="/search" method="get"><input name="q"><input type="submit"></form>
            <form method="POST"><input name="user"><input name="pass"><textarea name="note"></textarea></form><a href="/plain">x</a></body></html>`,
          ),
      '/plain': page('plain'),
    });
    await run([`${a.origin}/`]);
    const pages = h.pages();
    expect(pages.find((r) => r.url === `${a.origin}/`)).toMatchObject({ hasForm: true });
    expect(pages.find((r) => r.url === `${a.origin}/plain`)).toMatchObject({ hasForm: false });
    expect(emitted('forms')).toEqual([
      { page: `${a.origin}/`, action: `${a.origin}/search`, method: 'GET', inputs: ['q'] },
      { page: `${a.origin}/`, action: `${a.origin}/`, method: 'POST', inputs: ['user', 'pass', 'note'] },
    ]);
    expect(emitted('meta').find((r) => r.url === `${a.origin}/`)).toEqual({
      url: `${a.origin}/`,
      title: 'Accueil',
      description: 'Un site',
      canonical: `${a.origin}/home`,
      language: 'fr',
      lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT',
    });
    expect(emitted('server')).toEqual([
      { origin: a.origin, server: 'TestServer/1.0', poweredBy: 'Hope', address: '127.0.0.2' },
    ]);
  });
});
