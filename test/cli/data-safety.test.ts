import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { runNode } from '../helpers/run-node.js';

// The CLI as a user runs it: the compiled bin (npm test builds first), as real processes.
const BIN = join(import.meta.dirname, '../../bin/cobweb.js');
const PAGES = 20;

let dir: string;
let slow: TestServer;
/** Pages other than the root are answered once this is open; a test may hold them back. */
let gate: Promise<void> = Promise.resolve();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-data-safety-'));
  // Each page takes a while, so a crawl is still running when the test acts on it.
  const table: Parameters<typeof routes>[0] = {
    '/': page(
      'root',
      Array.from({ length: PAGES }, (_, i) => `/${i}`),
    ),
  };
  for (let i = 0; i < PAGES; i++) {
    table[`/${i}`] = (_req, res) =>
      void gate.then(() =>
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(String(i))), 20),
      );
  }
  slow = await serve('127.0.0.2', routes(table));
});

afterAll(async () => {
  await slow.close();
  rmSync(dir, { recursive: true, force: true });
});

const crawlArgs = (data: string, ...more: string[]) => [
  BIN,
  'crawl',
  `${slow.origin}/`,
  '--data',
  data,
  '--delay',
  '0',
  '--delay-factor',
  '0',
  '--quiet',
  ...more,
];

function lines(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').length - 1;
}

/** Waits (bounded) until the crawl wrote its first line, so it holds its folder. */
async function untilWriting(data: string, child: ChildProcess | null = null): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (lines(join(data, 'pages.jsonl')) > 0) return;
    if (child !== null && child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the crawl into ${data} never wrote a line`);
}

describe('a data folder in use', () => {
  it('--fresh from a second process is refused before anything is deleted; the first crawl ends well', async () => {
    const data = join(dir, 'two');
    let open = () => {};
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = spawn(process.execPath, crawlArgs(data), { stdio: ['ignore', 'ignore', 'pipe'] });
    let firstErr = '';
    first.stderr?.on('data', (d) => {
      firstErr += String(d);
    });
    await untilWriting(data, first);
    const second = await runNode(crawlArgs(data, '--fresh'));
    expect(second.code).toBe(1);
    // Nothing of the running crawl was touched.
    for (const f of ['frontier.db', 'pages.jsonl', 'warc', 'cobweb.json']) {
      expect(existsSync(join(data, f)), f).toBe(true);
    }
    expect(second.stderr).toBe(
      `cobweb: --data ${data} is in use by another cobweb crawl; wait for it to end, stop it, or use another --data folder\n`,
    );
    expect(first.exitCode).toBeNull();
    open();
    const [code] = await once(first, 'exit');
    expect(firstErr).toBe('');
    expect(code).toBe(0);
    expect(lines(join(data, 'pages.jsonl'))).toBe(PAGES + 1);
  });

  it('is not held by a crawl killed with -9 and not yet reaped (a zombie)', async () => {
    const data = join(dir, 'zombie');
    // sh starts the crawl in the background, prints its pid and becomes `sleep`, which
    // never waits for children: the killed crawl stays a zombie while sleep runs.
    const command = `"${process.execPath}" ${crawlArgs(data)
      .map((a) => `'${a}'`)
      .join(' ')} & echo $!; exec sleep 60`;
    const parent = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [pidText] = (await once(parent.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
      const pid = Number(String(pidText).trim());
      await untilWriting(data);
      process.kill(pid, 'SIGKILL');
      let state = '';
      for (let i = 0; i < 500 && state !== 'Z'; i++) {
        state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(state).toBe('Z');
      const next = await runNode(crawlArgs(data));
      expect(next.stderr).toBe('');
      expect(next.code).toBe(0);
      expect(
        new Set(
          readFileSync(join(data, 'pages.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { url: string }).url),
        ).size,
      ).toBe(PAGES + 1);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('a data folder cobweb did not make', () => {
  it('is refused with one line and exit code 2, with or without --fresh, and stays as it was', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'data'), { recursive: true });
    writeFileSync(join(project, 'data', 'customers.csv'), 'id,name\n1,Ada\n');
    for (const more of [[], ['--fresh']]) {
      const r = await runNode(crawlArgs('.', ...more), project);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `cobweb: --data ${project} is not empty and has no cobweb.json, so cobweb did not make it; give --data a new or empty folder\n`,
      );
    }
    expect(readFileSync(join(project, 'data', 'customers.csv'), 'utf8')).toBe('id,name\n1,Ada\n');
    expect(existsSync(join(project, 'cobweb.lock'))).toBe(false);
  });

  it('named as a file, under a file, or as an empty string, is refused the same way', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const asFile = await runNode(crawlArgs(file));
    expect(asFile.code).toBe(2);
    expect(asFile.stderr).toBe(
      `cobweb: --data ${file} is a file, not a folder; give --data a new folder, or one cobweb made\n`,
    );
    const under = await runNode(crawlArgs(join(file, 'sub')));
    expect(under.code).toBe(2);
    expect(under.stderr).toBe(
      `cobweb: --data ${join(file, 'sub')} is under ${file}, a file, not a folder; give --data a new folder, or one cobweb made\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('x');
    const empty = await runNode(crawlArgs(''), dir);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /^cobweb: error: option '--data <dir>' argument '' is invalid\. expected a folder name/,
    );
    expect(empty.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('a cobweb.json that is not a marker cobweb can read', () => {
  /** What the one line says: its start and its end (JSON.parse's message is in between for a damaged one). */
  const cases: [what: string, text: string, line: (marker: string, folder: string) => [string, string]][] = [
    [
      "another program's",
      '{"name": "my tool config"}\n',
      (m) => [
        `${m} is not cobweb's marker (it has no "format" or "cobweb"), so cobweb did not make this folder;`,
        ' move the file, or use another --data folder',
      ],
    ],
    [
      'a damaged one',
      '{"format": 1, "cobweb": "0.1.0", "sett',
      (m) => [`${m} is damaged (`, '); restore it, or use a new --data folder'],
    ],
    [
      "a newer cobweb's",
      '{"format": 99, "cobweb": "9.0.0", "settings": {}}\n',
      (_m, f) => [
        `--data ${f} was made by a newer cobweb (9.0.0, folder format 99);`,
        ' use that version, or a new --data folder',
      ],
    ],
  ];

  it.each(cases)(
    '(%s) is refused with one line and exit code 2, with or without --fresh, and nothing is touched',
    async (what, text, line) => {
      const folder = join(dir, `marker-${what.replace(/\W+/g, '-')}`);
      mkdirSync(join(folder, 'data'), { recursive: true });
      writeFileSync(join(folder, 'cobweb.json'), text);
      // The user's own files, named as cobweb's are.
      writeFileSync(join(folder, 'pages.jsonl'), '{"mine":true}\n');
      writeFileSync(join(folder, 'data', 'orders.jsonl'), '{"order":1}\n');
      const before = readdirSync(folder, { recursive: true }).sort();
      const asked = slow.log.length;
      const [start, end] = line(join(folder, 'cobweb.json'), folder);
      for (const more of [[], ['--fresh']]) {
        const r = await runNode(crawlArgs(folder, ...more));
        expect(r.stderr.startsWith(`cobweb: ${start}`), r.stderr).toBe(true);
        expect(r.stderr.endsWith(`${end}\n`), r.stderr).toBe(true);
        expect(r.stderr.split('\n')).toHaveLength(2);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
      }
      expect(readdirSync(folder, { recursive: true }).sort()).toEqual(before);
      expect(readFileSync(join(folder, 'cobweb.json'), 'utf8')).toBe(text);
      expect(readFileSync(join(folder, 'pages.jsonl'), 'utf8')).toBe('{"mine":true}\n');
      expect(readFileSync(join(folder, 'data', 'orders.jsonl'), 'utf8')).toBe('{"order":1}\n');
      expect(slow.log.length).toBe(asked);
    },
  );
});
