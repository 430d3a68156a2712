import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../src/data-dir/layout.js';
import { MARKER_FORMAT, type Marker } from '../../src/data-dir/marker.js';
import { CrawlOptionError, DataDirBusyError, DataDirError } from '../../src/errors.js';
import { SCHEMA_VERSION } from '../../src/frontier/sqlite/schema.js';
import { VERSION } from '../../src/version.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';
import { ageFetches } from '../helpers/revisit-web.js';

const logs: { line: string; level: string }[] = [];
const h = crawlHarness('data-dir', {
  delayMs: 0,
  delayFactor: 0,
  retries: 0,
  builtinModules: false,
  onLog: (line, level) => logs.push({ line, level }),
});
const { site, run } = h;

const twoPages = () => site('127.0.0.2', { '/': page('root', ['/a']), '/a': page('a') });
const marker = (dir = h.dir) => JSON.parse(readFileSync(join(dir, 'cobweb.json'), 'utf8')) as Marker;
/** After --fresh with the built-in modules on twoPages(): meta.jsonl is this run's alone; the user's file is as it was. */
function expectFreshModuleData(): void {
  expect(
    readFileSync(join(h.dir, 'data', 'meta.jsonl'), 'utf8')
      .trim()
      .split('\n'),
  ).toHaveLength(2);
  expect(readFileSync(join(h.dir, 'data', 'customers.jsonl'), 'utf8')).toBe('{"id":1}\n');
}
const pagesLines = (dir = h.dir) => readFileSync(join(dir, 'pages.jsonl'), 'utf8').trim().split('\n');

/** Every file under a folder, with its bytes: to show nothing in it changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = join(entry.parentPath, entry.name);
      out[file] = readFileSync(file, 'base64');
    }
  }
  return out;
}

describe('the marker, cobweb.json', () => {
  it('is written in a new folder with the format, the version and the link-deciding settings', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`], { maxDepth: 3, scope: 'host', include: [/\/a/], userAgent: 'mybot/2.0' });
    const m = marker();
    expect(m).toMatchObject({ format: MARKER_FORMAT, cobweb: VERSION });
    expect(m.settings).toMatchObject({
      seeds: [`${a.origin}/`],
      scope: 'host',
      maxDepth: 3,
      include: ['/\\/a/'],
      robotsToken: 'mybot',
      maxPagesPerHost: null,
    });
  });

  it('is accepted in a folder holding only a lock file (a run killed before it wrote its marker)', async () => {
    const a = await twoPages();
    writeFileSync(join(h.dir, 'cobweb.lock'), '');
    const summary = await run([`${a.origin}/`]);
    expect(summary.fetchedThisRun).toBe(2);
  });

  it('damaged, stops the crawl with its path', async () => {
    const a = await twoPages();
    writeFileSync(join(h.dir, 'cobweb.json'), '{"format": 1, "sett');
    await expect(run([`${a.origin}/`])).rejects.toThrow(DataDirError);
    await expect(run([`${a.origin}/`])).rejects.toThrow(`${join(h.dir, 'cobweb.json')} is damaged`);
    expect(a.log).toEqual([]);
  });
});

describe('a folder cobweb did not make', () => {
  it('is refused, and nothing in it is touched', async () => {
    const a = await twoPages();
    // The user's own folder, with a pages.jsonl of its own and no frontier.db.
    writeFileSync(join(h.dir, 'pages.jsonl'), '{"mine":true}\n');
    mkdirSync(join(h.dir, 'data'));
    writeFileSync(join(h.dir, 'data', 'customers.csv'), 'id,name\n1,Ada\n');
    const before = snapshot(h.dir);
    for (const fresh of [false, true]) {
      const attempt = run([`${a.origin}/`], { fresh });
      await expect(attempt).rejects.toThrow(DataDirError);
      await expect(attempt).rejects.toThrow(
        `--data ${h.dir} is not empty and has no cobweb.json, so cobweb did not make it; give --data a new or empty folder`,
      );
    }
    expect(snapshot(h.dir)).toEqual(before);
    expect(readdirSync(h.dir).sort()).toEqual(['data', 'pages.jsonl']);
    expect(a.log).toEqual([]);
  });

  it('named as a file, or as an empty string, is refused the same way', async () => {
    const a = await twoPages();
    const file = join(h.dir, 'notes.txt');
    writeFileSync(file, 'my notes');
    await expect(run([`${a.origin}/`], { data: file })).rejects.toThrow(
      `--data ${file} is a file, not a folder; give --data a new folder, or one cobweb made`,
    );
    await expect(run([`${a.origin}/`], { data: '' })).rejects.toThrow(CrawlOptionError);
    await expect(run([`${a.origin}/`], { data: '' })).rejects.toThrow(
      'data must be a folder name (not empty), got ""',
    );
    expect(readFileSync(file, 'utf8')).toBe('my notes');
    expect(a.log).toEqual([]);
  });
});

describe('a run given no seeds', () => {
  it('goes on with the crawl in the folder, with the seeds its marker keeps', async () => {
    const a = await site('127.0.0.2', { '/': page('root', ['/a', '/b']), '/a': page('a'), '/b': page('b') });
    const first = await run([`${a.origin}/`], { maxPages: 1 });
    expect(first.stoppedBy).toBe('max-pages');
    logs.length = 0;
    const second = await run([]);
    expect(second.stoppedBy).toBe('finished');
    expect(
      pagesLines()
        .map((l) => JSON.parse(l).url)
        .sort(),
    ).toEqual([`${a.origin}/`, `${a.origin}/a`, `${a.origin}/b`]);
    expect(marker().settings.seeds).toEqual([`${a.origin}/`]);
    expect(logs.find((l) => l.line.startsWith('crawl started'))?.line).toContain(
      `(the seeds of ${join(h.dir, 'cobweb.json')})`,
    );
  });

  it('is refused in a folder with no crawl, and with --fresh, which needs them given again', async () => {
    await expect(run([])).rejects.toThrow(CrawlOptionError);
    const a = await twoPages();
    await run([`${a.origin}/`]);
    await expect(run([], { fresh: true })).rejects.toThrow(/no seed URL given/);
  });
});

describe('--fresh', () => {
  it('deletes the report.html cobweb report wrote', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const { writeReport } = await import('../../src/console/report.js');
    const { file } = await writeReport(layoutOf(h.dir));
    expect(existsSync(file)).toBe(true);
    await run([`${a.origin}/`], { fresh: true });
    expect(existsSync(file)).toBe(false);
  });

  it("deletes only cobweb's own files, in a folder cobweb made", async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const oldWarc = readdirSync(join(h.dir, 'warc'));
    expect(oldWarc).toHaveLength(1);
    // What a user might keep beside a crawl's outputs.
    writeFileSync(join(h.dir, 'notes.txt'), 'keep me');
    writeFileSync(join(h.dir, 'data-customers.csv'), 'keep me');
    writeFileSync(join(h.dir, 'warc', 'README'), 'keep me');
    mkdirSync(join(h.dir, 'data'), { recursive: true });
    writeFileSync(join(h.dir, 'data', 'customers.csv'), 'keep me');

    const summary = await run([`${a.origin}/`], { fresh: true });
    expect(summary.fetchedThisRun).toBe(2);
    expect(pagesLines()).toHaveLength(2);
    for (const kept of ['notes.txt', 'data-customers.csv', 'warc/README', 'data/customers.csv']) {
      expect(readFileSync(join(h.dir, kept), 'utf8')).toBe('keep me');
    }
    const warc = readdirSync(join(h.dir, 'warc'));
    expect(warc).toHaveLength(2); // README and this run's file
    expect(warc).not.toContain(oldWarc[0]);
  });

  it("deletes the modules' outputs it lists and the store, and no .jsonl of the user's in data/", async () => {
    const a = await twoPages();
    await run([`${a.origin}/`], { builtinModules: true });
    expect(existsSync(join(h.dir, 'data', 'meta.jsonl'))).toBe(true);
    expect(marker().moduleData?.sort()).toEqual(['forms', 'meta', 'server']);
    // The user's own files beside them, one named as cobweb's are.
    writeFileSync(join(h.dir, 'data', 'customers.jsonl'), '{"id":1}\n');
    writeFileSync(join(h.dir, 'data', 'customers.csv'), 'id\n1\n');
    await run([`${a.origin}/`], { fresh: true });
    expect(readdirSync(join(h.dir, 'data')).sort()).toEqual(['customers.csv', 'customers.jsonl']);
    expect(readFileSync(join(h.dir, 'data', 'customers.jsonl'), 'utf8')).toBe('{"id":1}\n');
    expect(readFileSync(join(h.dir, 'data', 'customers.csv'), 'utf8')).toBe('id\n1\n');
    expect(pagesLines()).toHaveLength(2);
    expect(marker().moduleData).toEqual([]);
    // A later --fresh with the built-in modules: their files go again, the user's stay.
    await run([`${a.origin}/`], { builtinModules: true });
    await run([`${a.origin}/`], { builtinModules: true, fresh: true });
    expectFreshModuleData();
  });

  it('takes a marker written before it listed the module files: the files of the modules run now were its own', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`], { builtinModules: true });
    const { moduleData: _listed, ...older } = marker();
    writeFileSync(join(h.dir, 'cobweb.json'), JSON.stringify(older));
    writeFileSync(join(h.dir, 'data', 'customers.jsonl'), '{"id":1}\n');
    await run([`${a.origin}/`], { builtinModules: true, fresh: true });
    expectFreshModuleData();
    expect(marker().moduleData?.sort()).toEqual(['forms', 'meta', 'server']);
  });

  it("never writes a module's records into a file of the user's: the crawl is refused first", async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    mkdirSync(join(h.dir, 'data'));
    writeFileSync(join(h.dir, 'data', 'meta.jsonl'), '{"mine":true}\n');
    const before = snapshot(h.dir);
    for (const fresh of [false, true]) {
      const attempt = run([`${a.origin}/`], { builtinModules: true, fresh });
      await expect(attempt).rejects.toThrow(DataDirError);
      await expect(attempt).rejects.toThrow(
        `${join(h.dir, 'data', 'meta.jsonl')} is not cobweb's, and module meta would write its records into it; move the file, or use another --data folder`,
      );
    }
    expect(snapshot(h.dir)).toEqual(before);
    expect(a.log.filter((r) => r.path !== '/robots.txt')).toHaveLength(2);
  });
});

describe('the store', () => {
  it('when frontier.db is not an SQLite file, is refused with its path', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const store = join(h.dir, 'frontier.db');
    for (const suffix of ['-wal', '-shm']) writeFileSync(store + suffix, '');
    writeFileSync(store, 'this is a spreadsheet, honest');
    await expect(run([`${a.origin}/`])).rejects.toThrow(
      `${store} is not a cobweb store (not an SQLite database); move it out of the way, or start over with --fresh`,
    );
  });

  it("when frontier.db is another program's SQLite database, is refused and left as it was", async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const store = join(h.dir, 'frontier.db');
    for (const f of [store, `${store}-wal`, `${store}-shm`]) writeFileSync(f, '');
    const other = new Database(store);
    other.exec(
      `CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);`,
    );
    other.close();
    const before = readFileSync(store);
    await expect(run([`${a.origin}/`])).rejects.toThrow(
      `${store} is not a cobweb store (an SQLite database without its tables)`,
    );
    expect(readFileSync(store).equals(before)).toBe(true);
  });
});

describe('the store of another cobweb version', () => {
  it('is refused with its path', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const store = join(h.dir, 'frontier.db');
    const db = new Database(store);
    db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema'`).run();
    db.close();
    const attempt = run([`${a.origin}/`]);
    await expect(attempt).rejects.toThrow(DataDirError);
    await expect(attempt).rejects.toThrow(`${store} was written by another cobweb version (store schema 99`);
  });
});

describe('the store of the cobweb before (schema 2)', () => {
  it('is brought up to date in place: its URLs kept, and due again for --recrawl-after', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const store = join(h.dir, 'frontier.db');
    // Back to what the cobweb before wrote: no rank (schema 5), no recrawl columns, no
    // cookie jar, and (as until schema 4) leased numbered 1, done 2.
    const db = new Database(store);
    db.exec(`DROP INDEX urls_queue; ALTER TABLE urls DROP COLUMN rank;
      CREATE INDEX urls_queue ON urls (host, depth) WHERE state = 0;
      ALTER TABLE hosts RENAME COLUMN min_rank TO min_depth;
      DROP TABLE cookies;
      ALTER TABLE urls DROP COLUMN fetched_at; ALTER TABLE urls DROP COLUMN etag;
      ALTER TABLE urls DROP COLUMN last_modified; ALTER TABLE urls DROP COLUMN captured_at;
      DROP INDEX urls_leased;
      UPDATE urls SET state = CASE state WHEN 2 THEN 1 ELSE 2 END WHERE state IN (1, 2);
      CREATE INDEX urls_leased ON urls (due_at) WHERE state = 1;
      UPDATE meta SET value = '2' WHERE key = 'schema'`);
    db.close();
    expect((await run([`${a.origin}/`])).fetchedThisRun).toBe(0);
    const version = new Database(store, { readonly: true });
    expect(version.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get()).toBe(
      String(SCHEMA_VERSION),
    );
    version.close();
    // Fetched "as long ago as can be" (the schema before kept no time): due for an hour's
    // --recrawl-after, while what this run fetches is not due again within it.
    const again = await run([`${a.origin}/`], { recrawlAfterMs: 3_600_000 });
    expect(again.fetchedThisRun).toBe(2);
    expect(a.log.filter((r) => r.path === '/a')).toHaveLength(2);
  });
});

describe('the index of fetch times', () => {
  const indexes = (store: string) => {
    const db = new Database(store, { readonly: true });
    try {
      return db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'urls'`)
        .pluck()
        .all();
    } finally {
      db.close();
    }
  };

  it('is made by the first crawl that asks for --recrawl-after, not kept by those that never do', async () => {
    const a = await twoPages();
    await run([`${a.origin}/`]);
    const store = join(h.dir, 'frontier.db');
    expect(indexes(store)).not.toContain('urls_fetched');
    // The URLs fetched before it existed are found by it once they are old enough.
    ageFetches(store, 7_200_000);
    const again = await run([`${a.origin}/`], { recrawlAfterMs: 3_600_000 });
    expect(again.fetchedThisRun).toBe(2);
    expect(indexes(store)).toContain('urls_fetched');
  });
});

describe('the lock', () => {
  it('keeps a second crawl in the same process out of a folder in use', async () => {
    const slow = await site('127.0.0.2', {
      '/': page('root', ['/a']),
      '/a': (_req, res) =>
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('a'), 300),
    });
    const first = run([`${slow.origin}/`]);
    // The first crawl holds the folder once its marker is written.
    for (let i = 0; i < 500 && !existsSync(join(h.dir, 'cobweb.json')); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await expect(run([`${slow.origin}/`], { fresh: true })).rejects.toThrow(DataDirBusyError);
    const summary = await first;
    expect(summary.fetchedThisRun).toBe(2);
    expect(pagesLines()).toHaveLength(2);
    // Released at the end: the same folder can be crawled again.
    await expect(run([`${slow.origin}/`])).resolves.toMatchObject({ stoppedBy: 'finished' });
  });
});

describe('a resumed crawl with other options', () => {
  it('says in one line which link-deciding options changed, and lists them in the summary', async () => {
    const a = await twoPages();
    const first = await run([`${a.origin}/`], { maxDepth: 0, scope: 'host' });
    expect(first.changedSettings).toEqual([]);
    logs.length = 0;
    const second = await run([`${a.origin}/`]);
    expect(second.changedSettings).toEqual(['scope', 'maxDepth']);
    const warnings = logs.filter((l) => l.level === 'warning');
    expect(warnings).toEqual([
      {
        level: 'warning',
        line: 'the options that decide which URLs are followed changed since the last run on this folder: --scope host -> domain; --max-depth 0 -> 50',
      },
    ]);
    expect(marker().settings).toMatchObject({ maxDepth: 50, scope: 'domain' });
    logs.length = 0;
    const third = await run([`${a.origin}/`]);
    expect(third.changedSettings).toEqual([]);
    expect(logs.filter((l) => l.level === 'warning')).toEqual([]);
  });
});
