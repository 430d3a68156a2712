import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bloomParameters } from '../../src/seen/bloom.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { runNode } from '../helpers/run-node.js';

const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
let dir: string;
let site: TestServer;

function cobweb(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** For runs against the in-process test server: spawnSync would block its event loop. */
const cobwebAsync = (...args: string[]) => runNode([BIN, ...args]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-cli-'));
  site = await serve('127.0.0.2', routes({ '/': page('home', ['/a']), '/a': page('a') }));
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cobweb crawl on the command line', () => {
  it('crawls, prints a summary, resumes with the same --data, and starts over with --fresh', async () => {
    const data = join(dir, 'site');
    const args = ['crawl', `${site.origin}/`, '--data', data, '--delay', '0'];
    const first = await cobwebAsync(...args);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/finished: nothing left to fetch/);
    expect(first.stdout).toMatch(/this run: 2 URLs in /);
    expect(first.stdout).toMatch(/ {4}fetched: 2 URLs \(2xx 2\)/);
    const lines = () => readFileSync(join(data, 'pages.jsonl'), 'utf8').trim().split('\n');
    expect(lines()).toHaveLength(2);
    expect(readdirSync(join(data, 'warc')).filter((f) => f.endsWith('.warc.gz'))).toHaveLength(1);

    const again = await cobwebAsync(...args);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/this run: 0 URLs in /);
    expect(lines()).toHaveLength(2);

    const fresh = await cobwebAsync(...args, '--fresh', '--quiet');
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toBe('');
    expect(lines()).toHaveLength(2);
    expect(site.log.filter((r) => r.path === '/a')).toHaveLength(2);
  });

  it('names its crawler in every pages.jsonl and refused.jsonl line: the id the store gave the run', async () => {
    const web = await serve(
      '127.0.0.3',
      routes({ '/': page('home', ['/a', 'http://elsewhere.test/']), '/a': page('a'), '/b': page('b') }),
    );
    try {
      const data = join(dir, 'crawler-ids');
      const lines = () =>
        ['pages.jsonl', 'refused.jsonl'].flatMap((file) =>
          readFileSync(join(data, file), 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { url: string; crawler?: number; error?: string }),
        );
      expect((await cobwebAsync('crawl', `${web.origin}/`, '--data', data, '--delay', '0')).code).toBe(0);
      // fetched pages and the refused link alike
      expect(lines().map((l) => [l.url, l.crawler])).toEqual(
        expect.arrayContaining([
          [`${web.origin}/`, 1],
          [`${web.origin}/a`, 1],
          ['http://elsewhere.test/', 1],
        ]),
      );
      expect(lines()).toHaveLength(3);
      // a run on the same folder is a new crawler, with the store's next id
      expect((await cobwebAsync('crawl', `${web.origin}/b`, '--data', data, '--delay', '0')).code).toBe(0);
      expect(lines()).toHaveLength(4);
      expect(lines().filter((l) => l.crawler !== 1)).toEqual([
        expect.objectContaining({ url: `${web.origin}/b`, crawler: 2 }),
      ]);
    } finally {
      await web.close();
    }
  });

  it.each([
    [['crawl', 'http://127.0.0.2/', '--bogus'], /unknown option '--bogus'/],
    [['crawl', 'ftp://example.com/'], /bad seed URL "ftp:\/\/example.com\/": only http/],
    [['crawl', 'http://'], /bad seed URL "http:\/\/": it is not a valid absolute URL/],
    [['crawl', 'http://a.test/', '--concurrency', '0'], /--concurrency <n>.*at least 1/],
    [['crawl', 'http://a.test/', '--delay', 'soon'], /--delay <ms>.*whole number/],
    [['crawl', 'http://a.test/', '--scope', 'planet'], /--scope.*Allowed choices are host, domain, any/],
    [['crawl', 'http://a.test/', '--include', '(unclosed'], /not a valid regular expression/],
    [['crawl', 'http://a.test/', '--resolve', 'a.test:80'], /HOST:PORT:ADDR/],
    [['crawl'], /no seed URL given, and no crawl in the data folder to go on with: name at least one URL/],
    [['crawl', 'http://a.test/', '--user-agent', ''], /--user-agent <string>.*robots.txt product token/],
    [['crawl', 'http://a.test/', '--user-agent', '/1.0'], /--user-agent <string>.*robots.txt product token/],
    [['crawl', 'http://a.test/', '--max-depth', '-1'], /--max-depth <n>.*whole number of at least 0/],
    [
      ['crawl', 'http://a.test/', '--max-pages', 'abc'],
      /--max-pages <n>.*whole number of at least 0, got "abc"/,
    ],
    [
      ['crawl', 'http://a.test/', '--module', ''],
      /--module <path>.*expected a list of file names, none empty/,
    ],
    [
      ['crawl', 'http://a.test/', '--seen', 'hashset'],
      /--seen.*Allowed choices are memory, bloom, lmdb, drum/,
    ],
    [['crawl', 'http://a.test/', '--seen-fp-rate', '2'], /--seen-fp-rate <p>.*between 0 and 1/],
    [['crawl', 'http://a.test/', '--seen-capacity', '0'], /--seen-capacity <n>.*at least 1/],
    [['crawl', 'http://a.test/', '--passes', '0'], /--passes <n>.*at least 1/],
    [['crawl', 'http://a.test/', '--on-pass', ' '], /--on-pass <cmd>.*a shell command/],
  ])('refuses %j with one clear line and exit code 2', (args, message) => {
    const r = cobweb(...args, '--data', dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  // What each kind leaves beside the store (frontier.db-seen/): memory and bloom live in
  // memory and are filled from the store at every start, so only the lock is there.
  const crawlSite = (data: string, ...extra: string[]) =>
    cobwebAsync('crawl', `${site.origin}/`, '--data', data, '--delay', '0', ...extra);

  const SEEN_FILES = {
    memory: ['seen.lock'],
    bloom: ['seen.lock'],
    lmdb: ['seen.lmdb', 'seen.lmdb-lock', 'seen.lock'],
    drum: ['seen.drum', 'seen.drum-flushed', 'seen.drum-journal', 'seen.lock'],
  } as const;

  it.each(Object.entries(SEEN_FILES))(
    '--seen %s reaches the store: its kind, its files and the summary say so',
    async (kind, files) => {
      const data = join(dir, `seen-${kind}`);
      const run = await crawlSite(data, '--seen', kind);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`  seen set: ${kind}, 2 URLs`);
      expect(readdirSync(join(data, 'frontier.db-seen')).sort()).toEqual([...files]);
      const db = new Database(join(data, 'frontier.db'), { readonly: true });
      expect(db.prepare(`SELECT value FROM meta WHERE key = 'seen'`).pluck().get()).toBe(kind);
      db.close();
      expect(JSON.parse(readFileSync(join(data, 'cobweb.json'), 'utf8')).seen).toMatchObject({ kind });
    },
  );

  it('--seen-capacity and --seen-fp-rate size the bloom filter: its m and k are those of the formulas', async () => {
    const run = await crawlSite(
      join(dir, 'seen-bloom-sized'),
      '--seen',
      'bloom',
      '--seen-capacity',
      '5000',
      '--seen-fp-rate',
      '0.0001',
    );
    expect(run.code).toBe(0);
    const { bits, hashes } = bloomParameters(5000, 0.0001);
    expect([bits, hashes]).toEqual([95872, 13]);
    expect(run.stdout).toContain(
      `  seen set: bloom, 2 URLs of its capacity 5000 (m ${bits} bits, k ${hashes}); estimated false-positive rate now`,
    );
    expect(run.stdout).toContain('(target 0.0001)');
  });

  it('warns on stderr when robots.txt is ignored, and does not ask for it', async () => {
    const robotsAsked = () => site.log.filter((l) => l.path === '/robots.txt').length;
    const before = robotsAsked();
    const args = ['crawl', `${site.origin}/`, '--delay', '0', '--ignore-robots'];
    const r = await cobwebAsync(...args, '--data', join(dir, 'ignore'));
    expect(r.code).toBe(0);
    // Besides the crawl's start and stop (info), the one warning.
    expect(
      r.stderr.split('\n').filter((l) => l !== '' && !/^cobweb: crawl (started|stopped)/.test(l)),
    ).toEqual(['cobweb: warning: --ignore-robots: robots.txt will not be read or obeyed']);
    expect(robotsAsked()).toBe(before);
  });

  it('prints no warning with --quiet, only errors', async () => {
    const data = join(dir, 'quiet');
    const args = ['crawl', `${site.origin}/`, '--delay', '0', '--data', data];
    const ignoring = await cobwebAsync(...args, '--ignore-robots', '--quiet');
    expect(ignoring.code).toBe(0);
    expect(ignoring.stderr).toBe('');
    // Resumed with other options: a warning without --quiet, none with it.
    const changed = await cobwebAsync(...args, '--quiet');
    expect(changed.code).toBe(0);
    expect(changed.stderr).toBe('');
    const loud = await cobwebAsync(...args, '--max-depth', '3');
    expect(loud.stderr).toMatch(/^cobweb: warning: the options that decide which URLs are followed changed/);
    const quiet = await cobwebAsync(...args, '--quiet');
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe('');
  });

  it('with --quiet and --http, prints the console address alone, once, on stdout', async () => {
    const data = join(dir, 'quiet-http');
    const r = await cobwebAsync(
      ...['crawl', `${site.origin}/`, '--delay', '0', '--data', data, '--http', '127.0.0.1:0', '--quiet'],
    );
    expect(r.code).toBe(0);
    // Port 0: nothing but this line tells the port the system picked.
    expect(r.stdout).toMatch(
      /^cobweb: console on http:\/\/127\.0\.0\.1:\d+\/ \(its actions need the token in .+token\)\n$/,
    );
    expect(r.stderr).toBe('');
  });

  it('prints help with every flag and exits 0', () => {
    const r = cobweb('crawl', '--help');
    expect(r.code).toBe(0);
    for (const flag of [
      '--data',
      '--fresh',
      '--max-pages',
      '--max-depth',
      '--scope',
      '--include',
      '--exclude',
      '--concurrency',
      '--per-host',
      '--delay',
      '--user-agent',
      '--resolve',
      '--skip-ext',
      '--quiet',
      '--first-byte-timeout',
      '--max-redirects',
      '--sitemaps',
      '--ignore-robots',
      '--allow-private',
      '--politeness-key',
      '--module',
      '--module-timeout',
      '--no-builtin-modules',
      '--seen',
      '--seen-capacity',
      '--seen-fp-rate',
      '--passes',
      '--on-pass',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    // What --max-pages counts, and what --quiet leaves, as the README says.
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      '--max-pages <n> stop once this many URLs have a final outcome (fetched, or failed for good), counting earlier runs; URLs robots.txt refuses do not count',
    );
    expect(text).toContain('--quiet print nothing but errors, and the "stopping:" line of a signal');
  });
});
