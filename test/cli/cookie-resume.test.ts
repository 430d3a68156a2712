import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cobweb } from '../helpers/cli-process.js';
import { page, routes, serve, type TestServer } from '../helpers/http.js';
import { runNode } from '../helpers/run-node.js';

let dir: string;
let site: TestServer | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-cookie-resume-'));
});
afterEach(async () => {
  await site?.close();
  site = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('the cookie jar and kill -9', () => {
  it('a crawl killed mid-session resumes with the cookies its responses had set', async () => {
    const held: ServerResponse[] = [];
    let holding = true;
    const web = await serve(
      '127.0.0.2',
      routes({
        '/login': (_req, res) => {
          res
            .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=s3cret; Path=/' })
            .end(page('logged in', ['/inside']));
        },
        '/inside': (_req, res) => {
          if (holding) held.push(res);
          else res.writeHead(200, { 'content-type': 'text/html' }).end(page('inside'));
        },
      }),
    );
    site = web;
    const args = ['crawl', `${web.origin}/login`, '--data', dir, '--delay', '0', '--quiet'];
    const first = cobweb(args);
    // /inside is found on /login's page: by the time it is asked for, /login's cookies are kept.
    for (let i = 0; i < 3000 && !web.log.some((r) => r.path === '/inside'); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(web.log.some((r) => r.path === '/inside')).toBe(true);
    first.child.kill('SIGKILL');
    await first.exit();
    holding = false;
    for (const res of held) res.socket?.destroy();

    const again = await runNode([BIN, ...args]);
    expect(again.code).toBe(0);
    expect(web.log.filter((r) => r.path === '/login')).toHaveLength(1);
    expect(web.log.filter((r) => r.path === '/inside').map((r) => r.headers.cookie)).toEqual([
      'sid=s3cret',
      'sid=s3cret',
    ]);
  });
});
