import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendControl } from '../../src/cli/control-commands.js';
import { encode, type OriginalTarget } from '../../src/protocol/index.js';
import { readPages } from '../helpers/pages.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * What ENQUEUE checks (scope, traps, already seen) and what DEQUEUE never hands out
 * (a URL already visited), on a server whose scope is one host.
 */

let dir: string;
let server: InProcessServer;
const clients: RawClient[] = [];

const at = (host: string, path: string, addr = '0.0.0.0'): OriginalTarget => ({ addr, port: 80, host, path });

async function client(): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  clients.push(c);
  return c;
}

/** The original packets of a connection run in order: once a DEQUEUE is answered, those before it are done. */
async function dequeue(c: RawClient): Promise<string | null> {
  const t = await c.dequeue();
  return t === null ? null : `http://${t.host}${t.path}`;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-enqueue-'));
  const module = join(dir, 'sitetag.mjs');
  writeFileSync(
    module,
    `export default { name: 'sitetag', onSite(site, ctx) { ctx.emit({ site: site.origin }); return { tagged: true }; } };\n`,
  );
  server = await startTestServer({
    dir: join(dir, 'server'),
    scope: 'host',
    seeds: ['http://site.test/'],
    traps: { maxPathSegments: 3 },
    modules: [module],
  });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('ENQUEUE on a server with scope host', () => {
  it('refuses a URL out of scope and a trap, recording each once, and queues a URL seen twice once', async () => {
    const c = await client();
    c.send(encode({ type: 'ENQUEUE', target: at('other.test', '/x') }));
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/a/b/c/d/e') }));
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/ok') }));
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/ok') }));
    expect(await dequeue(c)).toBe('http://site.test/ok');
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/ok') })); // seen: queued, now leased
    expect(await dequeue(c)).toBeNull();
    // Refused without a request: refused.jsonl, not pages.jsonl.
    expect(readPages(join(server.dir, 'refused.jsonl'))).toEqual([
      expect.objectContaining({ url: 'http://other.test/x', error: 'filtered', detail: 'scope' }),
      expect.objectContaining({ url: 'http://site.test/a/b/c/d/e', error: 'filtered', detail: 'path-depth' }),
    ]);
    expect(await server.store.stats()).toMatchObject({ queued: 0, leased: 1, rejected: 2 });
  });
});

describe('DEQUEUE: "already hit"', () => {
  it('never hands out a URL already visited, whoever ENQUEUEs it again', async () => {
    const c = await client();
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/page') }));
    expect(await dequeue(c)).toBe('http://site.test/page');
    c.send(encode({ type: 'STOREURL', target: at('site.test', '/page', '10.0.0.1') }));
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/page') }));
    expect(await dequeue(c)).toBeNull();
    const other = await client();
    other.send(encode({ type: 'ENQUEUE', target: at('site.test', '/page') }));
    expect(await dequeue(other)).toBeNull();
    expect(await server.store.stats()).toMatchObject({ done: 1, queued: 0, leased: 0 });
  });

  it('a site read from a log (READDATA) is visited for its hooks and directories; its URLs are still handed out', async () => {
    const log = {
      origin: 'http://site.test',
      address: '10.0.0.2',
      port: 80,
      hosts: ['site.test'],
      count: 5,
      directories: ['/old/'],
      info: {},
    };
    writeFileSync(join(server.dir, 'old.log'), `${JSON.stringify(log)}\n`);
    const addr = { host: '127.0.0.1', port: server.port };
    expect(await sendControl(addr, { type: 'READDATA', file: 'old.log' }, 'test-token')).toEqual({
      kind: 'text',
      text: '',
    });
    const c = await client();
    c.send(encode({ type: 'ENQUEUE', target: at('site.test', '/docs/new') }));
    expect(await dequeue(c)).toBe('http://site.test/docs/new');
    c.send(encode({ type: 'STOREURL', target: at('site.test', '/docs/new', '10.0.0.2') }));
    expect(await dequeue(c)).toBeNull();
    const show = await sendControl(addr, { type: 'SHOWDATA' }, undefined);
    expect(show).toMatchObject({ kind: 'text' });
    expect((show as { text: string }).text).toContain(
      'http://site.test 10.0.0.2:80  6 URLs  hosts: site.test\n    directories: / /docs/\n',
    );
    // its site hooks did not run again
    expect(() => readFileSync(join(server.dir, 'data', 'sitetag.jsonl'), 'utf8')).toThrow(/ENOENT/);
  });
});
