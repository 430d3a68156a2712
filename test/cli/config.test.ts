import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli-process.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { runNode } from '../helpers/run-node.js';

let dir: string;
const sites: TestServer[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-config-'));
});
afterEach(async () => {
  for (const s of sites.splice(0)) await s.close();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cobweb = (...args: string[]) => runNode([BIN, ...args]);

async function site(address: string, table: Parameters<typeof routes>[0]): Promise<TestServer> {
  const s = await serve(address, routes(table));
  sites.push(s);
  return s;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `cobweb ARGS` with `input` on its standard input. */
const withStdin = (input: string, ...args: string[]) => runNode([BIN, ...args], { input });

describe('--config', () => {
  it('takes the library keys from YAML, per-host sections too, and flags override it', async () => {
    const a = await site('127.0.0.2', {
      '/': page('home', ['/1', '/2', '/3']),
      '/1': page('1'),
      '/2': page('2'),
      '/3': page('3'),
    });
    const config = file(
      'crawl.yaml',
      [
        '# what a user writes',
        `seeds: ["${a.origin}/"]`,
        'delayMs: 0',
        'delayFactor: 0',
        'maxDepth: 0',
        'hosts:',
        '  "127.0.0.2":',
        '    maxPages: 3',
        '    headers:',
        '      X-From: config',
        '',
      ].join('\n'),
    );
    const data = join(dir, 'yaml');
    const run = await cobweb('crawl', '--config', config, '--max-depth', '1', '--data', data);
    expect(run.code).toBe(0);
    const pages = a.log.filter((r) => r.path !== '/robots.txt');
    // --max-depth 1 over the file's 0: the links are followed; the host section's budget is 3 URLs.
    expect(pages.map((r) => r.path)).toEqual(['/', '/1', '/2']);
    expect(pages.map((r) => r.headers['x-from'])).toEqual(['config', 'config', 'config']);
    const refused = readFileSync(join(data, 'refused.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { url: string; detail?: string })
      .filter((l) => l.detail === 'host-budget');
    expect(refused.map((l) => l.url)).toEqual([`${a.origin}/3`]);
  });

  it('takes JSON as well', async () => {
    const a = await site('127.0.0.2', { '/': page('home', ['/1']), '/1': page('1') });
    const config = file('crawl.json', JSON.stringify({ seeds: [`${a.origin}/`], delayMs: 0, maxDepth: 0 }));
    const run = await cobweb('crawl', '--config', config, '--data', join(dir, 'json'));
    expect(run.code).toBe(0);
    expect(a.log.filter((r) => r.path !== '/robots.txt').map((r) => r.path)).toEqual(['/']);
  });

  it.each([
    ['bad-key.yaml', 'maxPagez: 3\n', /bad-key\.yaml: unknown key "maxPagez"; did you mean "maxPages"\?/],
    ['bad-value.yaml', 'delayMs: soon\n', /bad-value\.yaml: delayMs: .*whole number/],
    [
      'bad-host.yaml',
      'hosts:\n  example.com:\n    delay: 5\n',
      /bad-host\.yaml: hosts: example\.com\.delay is not a host setting \(delayMs, perHost, maxPages, headers\)/,
    ],
    ['bad-json.json', '{"maxPages": 3,}', /bad-json\.json is not valid JSON/],
    ['bad-seeds.yaml', 'seeds: http://a.test/\n', /bad-seeds\.yaml: seeds: expected a list of URLs/],
  ])('refuses %s, naming the file and the key, before anything is touched', async (name, text, said) => {
    const data = join(dir, `never-${name}`);
    const run = await cobweb('crawl', 'http://127.0.0.2:9/', '--config', file(name, text), '--data', data);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(said);
    expect(run.stderr).toContain(join(dir, name));
    expect(() => readFileSync(join(data, 'pages.jsonl'))).toThrow();
  });
});

describe('cobweb config --print', () => {
  it('shows each setting and where it came from: a flag, the config file, the environment, a default', async () => {
    const config = file('print.yaml', 'seeds: ["http://a.test/"]\ndelayMs: 250\nmaxPages: 10\n');
    const run = await cobweb('config', '--print', '--config', config, '--max-pages', '20');
    expect(run.code).toBe(0);
    const row = (key: string) => run.stdout.split('\n').find((l) => l.startsWith(`${key} `)) ?? '';
    expect(row('maxPages')).toMatch(/^maxPages +20 +\(--max-pages\)$/);
    expect(row('delayMs')).toMatch(
      new RegExp(`^delayMs +250 +\\(config ${config.replace(/\./g, '\\.')}\\)$`),
    );
    expect(row('perHost')).toMatch(/^perHost +1 +\(default\)$/);
    expect(row('seeds')).toMatch(/^seeds +\["http:\/\/a\.test\/"\] +\(config /);
  });

  it("adds --header to the config file's headers, a header of the same name replaced", async () => {
    const config = file('headers.yaml', 'headers:\n  Accept-Language: en\n  X-Team: web\n');
    const run = await cobweb(
      'config',
      '--print',
      '--config',
      config,
      '--header',
      'x-team: data',
      '--header',
      'X-Extra: 1',
    );
    expect(run.code).toBe(0);
    const row = run.stdout.split('\n').find((l) => l.startsWith('headers ')) ?? '';
    const shown = row.match(/^headers +(\{.*\}) +\((.*)\)$/);
    expect(shown).not.toBeNull();
    expect(JSON.parse(shown?.[1] ?? '{}')).toEqual({
      'Accept-Language': 'en',
      'x-team': 'data',
      'X-Extra': '1',
    });
    expect(shown?.[2]).toBe(`config ${config} and --header`);
  });
});

describe('--seeds', () => {
  it('reads one URL a line from a file, skipping comments and blank lines', async () => {
    const a = await site('127.0.0.2', { '/': page('home'), '/x': page('x') });
    const seeds = file('seeds.txt', `# my seeds\n${a.origin}/\n\n${a.origin}/x  # the other one\n`);
    const run = await cobweb('crawl', '--seeds', seeds, '--data', join(dir, 'seeds'), '--delay', '0');
    expect(run.code).toBe(0);
    expect(a.log.map((r) => r.path).sort()).toEqual(['/', '/robots.txt', '/x']);
  });

  it('reads them from standard input with -', async () => {
    const a = await site('127.0.0.2', { '/': page('home'), '/x': page('x') });
    const run = await withStdin(`${a.origin}/x\n`, 'crawl', '--seeds', '-', '--data', join(dir, 'stdin'));
    expect(run.code).toBe(0);
    expect(a.log.map((r) => r.path)).toEqual(['/robots.txt', '/x']);
  });
});

describe('--json', () => {
  it('prints the summary as one JSON object on stdout, and nothing else there', async () => {
    const a = await site('127.0.0.2', { '/': page('home', ['/a']), '/a': page('a') });
    const run = await cobweb(
      'crawl',
      `${a.origin}/`,
      '--json',
      '--data',
      join(dir, 'json-out'),
      '--delay',
      '0',
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ stoppedBy: 'finished', fetchedThisRun: 2 });
  });
});
