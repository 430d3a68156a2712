import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cobweb } from '../helpers/cli-process.js';
import { type NodeRun, runNode } from '../helpers/run-node.js';

/**
 * Errors a user meets before a crawl starts, as processes: each is one line naming its
 * cause, exit code 2, and nothing in the data folder touched.
 */

let dir: string;
/** A read-only file system (a tmpfs mounted ro), when this machine lets the test mount one. */
let readOnly: string | null = null;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-start-errors-'));
  chmodSync(dir, 0o755);
  const at = join(dir, 'ro');
  mkdirSync(at);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,ro', 'tmpfs', at]).status === 0) readOnly = at;
});

afterAll(() => {
  if (readOnly !== null) spawnSync('umount', [readOnly]);
  rmSync(dir, { recursive: true, force: true });
});

const crawl = (...args: string[]) => runNode([BIN, 'crawl', 'http://127.0.0.1:9/', '--quiet', ...args]);

/** `node bin/cobweb.js` as the unprivileged user `nobody`: root may write anywhere. */
const asNobody = (args: readonly string[]): Promise<NodeRun> =>
  runNode([BIN, ...args], { uid: 65534, gid: 65534 });

describe('a --data folder cobweb cannot write', () => {
  it('on a read-only file system, itself or a folder to be made in it: one line, exit 2', async (ctx) => {
    if (readOnly === null) ctx.skip();
    const ro = readOnly as string;
    const onIt = await crawl('--data', ro);
    expect(onIt.stderr).toBe(
      `cobweb: --data ${ro} is on a read-only file system; give --data a folder cobweb may write to\n`,
    );
    expect(onIt.code).toBe(2);
    const under = await crawl('--data', join(ro, 'a', 'b'));
    expect(under.stderr).toBe(
      `cobweb: --data ${join(ro, 'a', 'b')} (it would be made in ${ro}) is on a read-only file system; give --data a folder cobweb may write to\n`,
    );
    expect(under.code).toBe(2);
  });

  it('that this user may not write, or make: one line naming the user, exit 2, nothing made', async (ctx) => {
    if (process.getuid?.() !== 0) ctx.skip();
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    const r = await asNobody(['crawl', 'http://127.0.0.1:9/', '--quiet', '--data', locked]);
    expect(r.stderr).toBe(
      `cobweb: --data ${locked} cannot be written by this user (nobody); give --data a folder cobweb may write to\n`,
    );
    expect(r.code).toBe(2);
    const below = await asNobody(['crawl', 'http://127.0.0.1:9/', '--quiet', '--data', join(locked, 'new')]);
    expect(below.stderr).toBe(
      `cobweb: --data ${join(locked, 'new')} (it would be made in ${locked}) cannot be written by this user (nobody); give --data a folder cobweb may write to\n`,
    );
    expect(below.code).toBe(2);
    expect(readdirSync(locked)).toEqual([]);
  });
});

describe('a port in use', () => {
  let holder: Server;
  let port: number;

  beforeAll(async () => {
    holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    port = (holder.address() as { port: number }).port;
  });

  afterAll(() => {
    holder.close();
  });

  it('crawl --http: one line naming the option, exit 2, the data folder not made', async () => {
    const data = join(dir, 'http-busy');
    const r = await crawl('--data', data, '--http', `127.0.0.1:${port}`);
    expect(r.stderr).toBe(
      `cobweb: --http 127.0.0.1:${port} is in use by another program; stop it, or give --http another port\n`,
    );
    expect(r.code).toBe(2);
    expect(existsSync(data)).toBe(false);
  });

  it('server --listen and server --http: the same, before the data folder is made', async () => {
    const data = join(dir, 'listen-busy');
    const listen = await runNode([BIN, 'server', '--data', data, '--listen', `127.0.0.1:${port}`, '--quiet']);
    expect(listen.stderr).toBe(
      `cobweb: --listen 127.0.0.1:${port} is in use by another program; stop it, or give --listen another port\n`,
    );
    expect(listen.code).toBe(2);
    const http = await runNode([
      BIN,
      'server',
      '--data',
      data,
      '--listen',
      '127.0.0.1:0',
      '--http',
      `127.0.0.1:${port}`,
      '--quiet',
    ]);
    expect(http.stderr).toBe(
      `cobweb: --http 127.0.0.1:${port} is in use by another program; stop it, or give --http another port\n`,
    );
    expect(http.code).toBe(2);
    expect(existsSync(data)).toBe(false);
  });
});

describe('a PostgreSQL that cannot be reached at start', () => {
  it('is said at once: that it is tried again, and for how long', async () => {
    // A port nothing listens on: connections are refused.
    const free = createServer();
    free.listen(0, '127.0.0.1');
    await once(free, 'listening');
    const port = (free.address() as { port: number }).port;
    free.close();
    await once(free, 'close');
    const p = cobweb([
      'crawl',
      'http://127.0.0.1:9/',
      '--store',
      `postgres://cobweb@127.0.0.1:${port}/cobweb`,
      '--data',
      join(dir, 'pg-away'),
    ]);
    try {
      const [line] = await p.line(/^.*PostgreSQL at .* cannot be reached.*$/m);
      expect(line).toMatch(
        new RegExp(
          `^cobweb: warning: PostgreSQL at postgres://cobweb@127\\.0\\.0\\.1:${port}/cobweb cannot be reached \\(.*ECONNREFUSED.*\\); trying again for up to 30 s$`,
        ),
      );
    } finally {
      p.child.kill('SIGKILL');
      await p.exit();
    }
  });
});

describe('seeds as people type them', () => {
  it('a bare host name: did you mean http://...', async () => {
    const r = await crawl('example.com', '--data', join(dir, 'bare'));
    expect(r.stderr).toBe(
      'cobweb: bad seed URL "example.com": it has no http:// or https://; did you mean http://example.com/?\n',
    );
    expect(r.code).toBe(2);
  });

  it('a seeds file: a bad line named by file and line number, an empty file said so', async () => {
    const file = join(dir, 'seeds.txt');
    writeFileSync(file, '# my sites\nhttp://127.0.0.1:9/\n\nexample.org/docs\n');
    const bad = await runNode([BIN, 'crawl', '--seeds', file, '--data', join(dir, 'seeds-bad'), '--quiet']);
    expect(bad.stderr).toBe(
      `cobweb: ${file}:4: bad seed URL "example.org/docs": it has no http:// or https://; did you mean http://example.org/docs?\n`,
    );
    expect(bad.code).toBe(2);
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '# nothing yet\n\n');
    const none = await runNode([
      BIN,
      'crawl',
      '--seeds',
      empty,
      '--data',
      join(dir, 'seeds-none'),
      '--quiet',
    ]);
    expect(none.stderr).toBe(
      `cobweb: the seeds file ${empty} holds no URL: write one http:// or https:// URL a line (# starts a comment)\n`,
    );
    expect(none.code).toBe(2);
  });
});

describe('files a user wrote, and folders given by mistake', () => {
  it('a module with a syntax error, or one whose code throws as it loads: its line is named', async () => {
    const syntax = join(dir, 'syntax.mjs');
    writeFileSync(
      syntax,
      'export default {\n  name: "syntax",\n  onPage(page) {\n    return { a: 1,, };\n  },\n};\n',
    );
    const bad = await crawl('--module', syntax, '--data', join(dir, 'module-syntax'));
    expect(bad.stderr).toBe(
      `cobweb: module ${syntax} cannot be loaded: cannot be imported: Unexpected token ',' (line 4); fix it, or leave it out\n`,
    );
    expect(bad.code).toBe(2);

    const throwing = join(dir, 'throwing.mjs');
    writeFileSync(throwing, 'export default { name: "throwing" };\n\nthrow new Error("no config for me");\n');
    const thrown = await crawl('--module', throwing, '--data', join(dir, 'module-throws'));
    expect(thrown.stderr).toBe(
      `cobweb: module ${throwing} cannot be loaded: cannot be imported: no config for me (line 3); fix it, or leave it out\n`,
    );
  });

  it('a YAML config file that does not parse: what and where, in one whole line', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'delayMs: 5\nheaders:\n  a: [1\n  b: 2\n');
    const r = await crawl('--config', file, '--data', join(dir, 'yaml'));
    expect(r.stderr).toMatch(new RegExp(`^cobweb: ${file} is not valid YAML: .+ at line 4, column 3\\n$`));
    expect(r.code).toBe(2);
  });

  it('cobweb report on a folder no crawl wrote: says so, in the words of the report command', async () => {
    const other = join(dir, 'photos');
    mkdirSync(other);
    writeFileSync(join(other, 'cat.jpg'), 'not a crawl');
    const r = await runNode([BIN, 'report', other]);
    expect(r.stderr).toBe(
      `cobweb: ${other} holds no cobweb crawl (no cobweb.json); give cobweb report the folder a crawl wrote (its --data)\n`,
    );
    expect(r.code).toBe(2);
  });

  it('no seed and no crawl to go on with: says what to give, in words the command and the library share', async () => {
    const r = await runNode([BIN, 'crawl', '--data', join(dir, 'no-seeds'), '--quiet']);
    expect(r.stderr).toBe(
      'cobweb: no seed URL given, and no crawl in the data folder to go on with: name at least one URL to start from, such as https://example.com/\n',
    );
    expect(r.code).toBe(2);
  });
});
