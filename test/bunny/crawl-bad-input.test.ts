import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { page } from '../helpers/http.js';

// No retries and no adaptive gap unless a test asks: each test looks at one behaviour.
const h = crawlHarness('bad', { delayMs: 0, delayFactor: 0, perHost: 4, retries: 0 });
const { site, run, recordOf } = h;
const hanging = new Set<ServerResponse>();

afterEach(() => {
  for (const res of hanging) res.destroy();
  hanging.clear();
});

describe('redirects', () => {
  it('records each hop with its status and follows Location through the normal path', async () => {
    const a = await site('127.0.0.2', {
      '/': page('root', ['/r1']),
      '/r1': (_req, res) => res.writeHead(301, { location: '/r2' }).end(),
      '/r2': (_req, res) => res.writeHead(302, { location: './final#top' }).end(),
      '/final': page('final'),
    });
    await run([`${a.origin}/`]);
    expect(recordOf(`${a.origin}/r1`)).toMatchObject({ status: 301, location: `${a.origin}/r2`, depth: 1 });
    expect(recordOf(`${a.origin}/r2`)).toMatchObject({
      status: 302,
      location: `${a.origin}/final`,
      depth: 1,
    });
    expect(recordOf(`${a.origin}/final`)).toMatchObject({ status: 200, title: 'final', depth: 1 });
  });

  it('ends a redirect loop by itself: each URL fetched once', async () => {
    const a = await site('127.0.0.2', {
      '/': (_req, res) => res.writeHead(302, { location: '/b' }).end(),
      '/b': (_req, res) => res.writeHead(302, { location: '/' }).end(),
    });
    const summary = await run([`${a.origin}/`]);
    expect(summary.stoppedBy).toBe('finished');
    expect(a.log.map((r) => r.path)).toEqual(['/robots.txt', '/', '/b']);
  });

  it('refuses a redirect that leaves the scope, and cuts an endless chain at the redirect limit', async () => {
    const other = await site('127.0.0.3', { '/': page('other') });
    const chain = (req: { url?: string }, res: ServerResponse) => {
      const n = Number((req.url ?? '').split('/').pop());
      res.writeHead(302, { location: `/chain/${n + 1}` }).end();
    };
    const b = await site('127.0.0.2', {
      '/': page('root', ['/away', '/chain/1']),
      '/away': (_req, res) => res.writeHead(301, { location: `${other.origin}/` }).end(),
      ...Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`/chain/${i + 1}`, chain])),
    });
    await run([`${b.origin}/`], { scope: 'host', maxRedirects: 20 });
    expect(other.log).toEqual([]);
    expect(recordOf(`${other.origin}/`)).toMatchObject({ error: 'filtered', detail: 'scope' });
    expect(b.log.filter((r) => r.path.startsWith('/chain/'))).toHaveLength(21);
    expect(recordOf(`${b.origin}/chain/22`)).toMatchObject({ error: 'filtered', detail: 'redirects' });
  });
});

describe('bad input never stops the crawl', () => {
  it('records a huge page and a gzip bomb as too-large, and goes on', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const a = await site('127.0.0.2', {
      '/': page('root', ['/huge', '/bomb', '/fine']),
      '/huge': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(Buffer.alloc(3 * 1024 * 1024, 0x61));
      },
      '/bomb': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(bomb);
      },
      '/fine': page('fine'),
    });
    await run([`${a.origin}/`], { maxBodyBytes: 1024 * 1024 });
    expect(recordOf(`${a.origin}/huge`)).toMatchObject({ error: 'too-large' });
    expect(recordOf(`${a.origin}/bomb`)).toMatchObject({ error: 'too-large' });
    expect(recordOf(`${a.origin}/fine`)).toMatchObject({ status: 200, title: 'fine' });
  });

  it('records a server that never answers as a timeout, and a closed port as refused', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.3', r));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const a = await site('127.0.0.2', {
      '/': page('root', ['/slow', `http://127.0.0.3:${closedPort}/`, '/fine']),
      '/slow': (_req, res) => {
        hanging.add(res);
      },
      '/fine': page('fine'),
    });
    await run([`${a.origin}/`], {
      scope: 'any',
      allowPrivate: true,
      firstByteTimeoutMs: 300,
      totalTimeoutMs: 1000,
    });
    expect(recordOf(`${a.origin}/slow`)).toMatchObject({ error: 'timeout', status: null });
    expect(recordOf(`http://127.0.0.3:${closedPort}/`)).toMatchObject({ error: 'refused' });
    expect(recordOf(`${a.origin}/fine`)).toMatchObject({ status: 200 });
  });

  it('gets links out of malformed HTML and survives garbage bytes', async () => {
    const garbage = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));
    const a = await site('127.0.0.2', {
      // unclosed elements, an unquoted attribute, stray '<', an unterminated tag at the end
      '/': '<html><head><title>broken</title><body><a href="/one">one<a href=/two>two<div <<<< "> <p><a href=\'/three\'>3<a href="/four',
      '/one': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(garbage),
      '/two': page('two'),
      '/three': page('three'),
    });
    const summary = await run([`${a.origin}/`]);
    expect(summary.stoppedBy).toBe('finished');
    expect(recordOf(`${a.origin}/one`)).toMatchObject({ status: 200 });
    expect(recordOf(`${a.origin}/two`)).toMatchObject({ status: 200 });
    expect(recordOf(`${a.origin}/three`)).toMatchObject({ status: 200 });
  });

  it('decodes titles by header, then meta charset, and survives a wrong charset', async () => {
    const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
    const html = (meta: string) =>
      Buffer.concat([
        Buffer.from(`<html><head>${meta}<title>`),
        cyrillic,
        Buffer.from('</title></head></html>'),
      ]);
    const a = await site('127.0.0.2', {
      '/': page('root', ['/header', '/meta', '/wrong']),
      '/header': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html; charset=windows-1251' }).end(html('')),
      '/meta': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(html('<meta charset="windows-1251">')),
      '/wrong': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html('')),
    });
    await run([`${a.origin}/`]);
    expect(recordOf(`${a.origin}/header`)?.title).toBe('Привет');
    expect(recordOf(`${a.origin}/meta`)?.title).toBe('Привет');
    expect(recordOf(`${a.origin}/wrong`)).toMatchObject({ status: 200, title: '\uFFFD'.repeat(6) });
  });
});
