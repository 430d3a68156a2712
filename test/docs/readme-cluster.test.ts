import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { codeBlockAfter } from '../helpers/doc-blocks.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';

/**
 * The README's "a server and two bunnies in four commands", run as written, each command
 * its own process in one folder. Two things are changed, as a user on this machine
 * would: the seed is a test site on 127.0.0.2 instead of example.com, and the server
 * listens on a port the system picks (7070 may be taken), which the other commands are
 * given instead of 7070.
 */

let work: string;
let site: TestServer;
const processes: CliProcess[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cobweb-readme-'));
  site = await serve(
    '127.0.0.2',
    routes({
      '/': page('home', ['/a', '/b', '/docs/c']),
      '/a': page('a', ['/docs/d']),
      '/b': page('b'),
      '/docs/c': page('c'),
      '/docs/d': page('d'),
    }),
  );
});

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await site.close();
  rmSync(work, { recursive: true, force: true });
});

/** The README's commands: `cobweb ...` lines (the command installed), their comments dropped. */
function readmeCommands(): string[][] {
  const block = codeBlockAfter('README.md', '## Many crawling processes');
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '')
    .map((l) => {
      const words = l.split(/\s+/);
      expect(words[0]).toBe('cobweb');
      return words.slice(1);
    });
}

describe("the README's server and two bunnies", { timeout: 120_000 }, () => {
  it('run in four commands: the bunnies share the crawl, and show prints the site, its directories and the queue', async () => {
    const commands = readmeCommands();
    expect(commands.map((c) => c[0])).toEqual(['server', 'bunny', 'bunny', 'show']);
    const run = (args: string[]) => {
      const p = cobweb(args, { COBWEB_TOKEN: '' }, work);
      processes.push(p);
      return p;
    };
    const [serverArgs, ...rest] = commands as [string[], ...string[][]];
    const server = run([
      ...serverArgs.map((w) => (w === 'https://example.com/' ? `${site.origin}/` : w)),
      '--listen',
      '127.0.0.1:0',
    ]);
    const port = (await server.line(/server listening on 127\.0\.0\.1:(\d+)/))[1];
    await server.line(/token \(also in .+\): \S+/);
    const withPort = (args: string[]) => args.map((w) => w.replace('127.0.0.1:7070', `127.0.0.1:${port}`));
    const bunnies = rest.slice(0, 2).map((args) => run(withPort(args)));
    expect(await Promise.all(bunnies.map((b) => b.exit()))).toEqual([0, 0]);
    const show = run(withPort(rest[2] as string[]));
    expect(await show.exit()).toBe(0);

    const fetched = readPages(join(work, 'server', 'pages.jsonl')).filter((r) => r.status === 200);
    expect(fetched.map((r) => r.url.slice(site.origin.length)).sort()).toEqual([
      '/',
      '/a',
      '/b',
      '/docs/c',
      '/docs/d',
    ]);
    expect(site.log.filter((r) => r.path !== '/robots.txt')).toHaveLength(5);
    expect(show.stdout()).toMatch(/^sites: 1\n/);
    expect(show.stdout()).toContain(`${site.origin} 127.0.0.2:${site.port}  5 URLs  hosts: 127.0.0.2`);
    expect(show.stdout()).toContain('    directories: / /docs/');
    expect(show.stdout()).toMatch(/queue: 0 queued, 0 leased, 0 waiting to retry, 5 done/);
    server.child.kill('SIGTERM');
    expect(await server.exit()).toBe(143);
  });
});
