import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlockAfter } from '../helpers/doc-blocks.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { runNode } from '../helpers/run-node.js';

// The examples run as a user runs them: the compiled package (npm test builds first),
// imported as 'cobweb' from a folder outside the repository.
const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/cobweb.js');

let work: string;
let site: TestServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cobweb-docs-'));
  mkdirSync(join(work, 'node_modules'));
  symlinkSync(REPO, join(work, 'node_modules', 'cobweb'), 'dir');
  site = await serve(
    '127.0.0.2',
    routes({
      '/': page(
        'home',
        ['/team', '/list?page=1'],
        '<h1>Welcome <em>home</em></h1><p>Write to info@example.test</p>',
      ),
      '/team': page(
        'team',
        [],
        '<h2>People</h2><p>ada@example.test, grace@example.test</p><table><tr><th> Name </th><th>Role</th></tr><tr><td>Ada</td><td>x</td></tr></table><table></table>',
      ),
      '/list?page=1': page('list', [], '<div data-url="/list?page=2">more</div><h1>Page 1</h1>'),
      '/list?page=2': page('list', [], '<h1>Page 2</h1><p>again: ada@example.test</p>'),
    }),
  );
});

afterAll(async () => {
  await site.close();
  rmSync(work, { recursive: true, force: true });
});

const node = (args: string[]) => runNode(args, work);

/** What stderr says besides the crawl's start and stop lines (info, as --log-level documents). */
const notLifecycle = (stderr: string) =>
  stderr.split('\n').filter((l) => l !== '' && !/^cobweb: crawl (started|stopped)/.test(l));

describe('the README library example', () => {
  it('runs as written, with plain node, and finds what it says it finds', async () => {
    // The README says: save it as emails.mjs and run `node emails.mjs URL`.
    writeFileSync(join(work, 'emails.mjs'), codeBlockAfter('README.md', '<!-- README example'));
    const r = await node(['emails.mjs', `${site.origin}/`]);
    expect(notLifecycle(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.includes('@')).sort()).toEqual([
      `ada@example.test\t${site.origin}/team`,
      `grace@example.test\t${site.origin}/team`,
      `info@example.test\t${site.origin}/`,
    ]);
    expect(lines.at(-1)).toBe('3 pages fetched');
  });
});

describe('the README server-and-bunny example', () => {
  it('runs as written: the bunny fetches the site once, and the server writes every page', async () => {
    writeFileSync(
      join(work, 'pair.mjs'),
      codeBlockAfter('README.md', '<!-- README example: server and bunny'),
    );
    site.log.length = 0;
    const r = await node(['pair.mjs', `${site.origin}/`]);
    // As the commands do, both say what they do on stderr (the README says so).
    expect(r.stderr).toContain('cobweb: 1 of 1 seed queued');
    expect(r.stderr).toContain('cobweb: the crawl is over (finished): 3 fetched by this bunny');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(
      new RegExp(`^bunny \\d+: 3 fetched; the server wrote 3 to ${join(work, 'pair-server')}$`),
    );
    // Each page reached the site once.
    const asked = site.log.map((q) => q.path).filter((p) => p !== '/robots.txt');
    expect(asked.sort()).toEqual(['/', '/list?page=1', '/team']);
    const lines = readPages(join(work, 'pair-server', 'pages.jsonl'));
    expect(lines.map((l) => l.url).sort()).toEqual(asked.map((p) => `${site.origin}${p}`).sort());
  });
});

describe('the docs/modules.md example module', () => {
  it('loads with --module, emits headings, enqueues data-url URLs, and reports its site', async () => {
    const file = join(work, 'headings.mjs');
    writeFileSync(file, codeBlockAfter('docs/modules.md', '<!-- docs example'));
    const data = join(work, 'headings-data');
    const r = await node([BIN, 'crawl', `${site.origin}/`, '--data', data, '--delay', '0', '--module', file]);
    expect(r.code).toBe(0);
    // four pages and one site
    expect(r.stdout).toMatch(/module headings: 5 calls, 0 errors, 0 timeouts/);
    expect(r.stderr).toContain(`module headings: ${site.origin} runs an unnamed server`);
    const emitted = readFileSync(join(data, 'data', 'headings.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { url: string; headings: string[] });
    expect(emitted.find((e) => e.url === `${site.origin}/`)?.headings).toEqual(['Welcome home']);
    // /list?page=2 is only in a data-url attribute: the module enqueued it
    expect(emitted.find((e) => e.url === `${site.origin}/list?page=2`)?.headings).toEqual(['Page 2']);
    const pages = readPages(join(data, 'pages.jsonl'));
    expect(pages.find((p) => p.url === `${site.origin}/team`)).toMatchObject({ headings: 1 });
  });
});

describe('the docs/modules.md DOM example', () => {
  it("queries each page's DOM with DomUtils from the package, and reads its facts", async () => {
    const file = join(work, 'tables.mjs');
    writeFileSync(file, codeBlockAfter('docs/modules.md', '<!-- docs example: dom module'));
    const data = join(work, 'tables-data');
    const r = await node([BIN, 'crawl', `${site.origin}/`, '--data', data, '--delay', '0', '--module', file]);
    expect(notLifecycle(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/module tables: 3 calls, 0 errors, 0 timeouts/);
    const emitted = readFileSync(join(data, 'data', 'tables.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { url: string; tables: number; headers: string[]; title: string });
    expect(emitted.find((e) => e.url === `${site.origin}/team`)).toEqual({
      url: `${site.origin}/team`,
      tables: 2,
      headers: ['Name', 'Role'],
      title: 'team',
    });
    expect(emitted.find((e) => e.url === `${site.origin}/`)?.tables).toBe(0);
    const pages = readPages(join(data, 'pages.jsonl'));
    expect(pages.find((p) => p.url === `${site.origin}/team`)).toMatchObject({ tables: 2 });
  });
});
