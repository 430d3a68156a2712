import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bytes } from '../helpers/bytes.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * The original packets, byte for byte, against a real server on a socket: each request
 * is built field by field, and each reply is checked the same way.
 */

let server: InProcessServer;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.dispose();
});

async function client(): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  clients.push(c);
  return c;
}

async function seed(...urls: string[]): Promise<void> {
  const me = await server.store.registerCrawler('test');
  await server.store.add(
    urls.map((url) => ({ url, depth: 0, via: null })),
    [],
    me,
  );
}

const NUL = [0x00];
const TOKEN = 'test-token';
const AUTH_JSON = `{"token":"${TOKEN}"}`;
// length, type 16 AUTH, request id 0 (no reply wanted), flags, the token
const auth = bytes([0x00, 8 + AUTH_JSON.length], [0x10], [0, 0, 0, 0], [0x00], AUTH_JSON);

describe('DEQUEUE (1)', () => {
  it('answers a queued URL with len=10+strlen(host)+strlen(path), addr, port, host NUL, path NUL, and no type byte', async () => {
    server = await startTestServer();
    await seed('http://example.test/a');
    const c = await client();
    c.send([0x00, 0x03], [0x01]); // length 3, type 1 DEQUEUE
    const expected = bytes(
      [0x00, 0x18], // length 24 = 10 + 12 + 2
      [0x00, 0x00, 0x00, 0x00], // addr 0.0.0.0: not resolved, the client resolves
      [0x00, 0x50], // port 80: http
      'example.test',
      NUL,
      '/a',
      NUL,
    );
    expect(await c.read(expected.length)).toEqual(expected);
    expect(c.closed).toBe(false); // the connection stays open
    expect((await server.store.stats()).leased).toBe(1);
  });

  it('says port 443 for https, and answers 00 00 when nothing is queued', async () => {
    server = await startTestServer();
    await seed('https://secure.test/x?y=1');
    const c = await client();
    c.send([0x00, 0x03, 0x01]);
    // length 27 = 10 + 11 + 6; port 443: https
    const expected = bytes([0x00, 0x1b], [0, 0, 0, 0], [0x01, 0xbb], 'secure.test', NUL, '/x?y=1', NUL);
    expect(await c.read(expected.length)).toEqual(expected);
    c.send([0x00, 0x03, 0x01]);
    expect(await c.read(2)).toEqual(bytes([0x00, 0x00]));
  });

  it('is refused (ERROR 206) on a connection that said HELLO', async () => {
    server = await startTestServer();
    const c = await client();
    const hello = '{"name":"b","protocol":1}';
    c.send([0x00, 8 + hello.length, 0x11, 0, 0, 0, 1, 0x00], hello);
    const welcome = await c.read(2);
    await c.read(welcome.readUInt16BE(0) - 2);
    c.send([0x00, 0x03, 0x01]);
    const reply = await c.readToClose();
    expect(reply[2]).toBe(36); // ERROR
    expect(JSON.parse(reply.subarray(8).toString())).toMatchObject({ code: 206 });
  });
});

describe('ENQUEUE (2) and STOREURL (3)', () => {
  it('ENQUEUE queues a URL as a seed, with no reply; STOREURL completes the lease DEQUEUE gave', async () => {
    server = await startTestServer();
    const c = await client();
    // len=11+strlen(host)+strlen(path), type 2, addr, port, host NUL, path NUL
    c.send([0x00, 11 + 9 + 6], [0x02], [0, 0, 0, 0], [0x1f, 0x90], 'site.test', NUL, '/start', NUL);
    c.send([0x00, 0x03, 0x01]); // DEQUEUE it back
    const given = bytes([0x00, 10 + 9 + 6], [0, 0, 0, 0], [0x1f, 0x90], 'site.test', NUL, '/start', NUL);
    expect(await c.read(given.length)).toEqual(given);
    // a link found on that page: one hop deeper, via the page
    c.send([0x00, 11 + 9 + 5], [0x02], [0, 0, 0, 0], [0x1f, 0x90], 'site.test', NUL, '/next', NUL);
    c.send([0x00, 11 + 9 + 6], [0x03], [127, 0, 0, 2], [0x1f, 0x90], 'site.test', NUL, '/start', NUL);
    c.send([0x00, 0x03, 0x01]);
    const next = bytes([0x00, 10 + 9 + 5], [0, 0, 0, 0], [0x1f, 0x90], 'site.test', NUL, '/next', NUL);
    expect(await c.read(next.length)).toEqual(next);
    expect(c.pending()).toEqual(Buffer.alloc(0)); // no reply to ENQUEUE or STOREURL
    expect(await server.store.stats()).toMatchObject({ done: 1, leased: 1, queued: 0 });
    const lines = readFileSync(join(server.dir, 'pages.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ url: 'http://site.test:8080/start', depth: 0 });
    // the site book has it, with its address from STOREURL
    const show = await client();
    show.send([0x00, 0x03, 0x04]);
    const text = (await show.readToClose()).toString();
    expect(text).toContain('http://site.test:8080 127.0.0.2:8080  1 URL  hosts: site.test');
  });

  it('ENQUEUE runs the seed checks: --skip-substring and a bad extension refuse, recorded once', async () => {
    server = await startTestServer({ skipSubstrings: ['cgi-bin'], skipExtensions: ['jpg'] });
    const c = await client();
    c.send([0x00, 11 + 9 + 13], [0x02], [0, 0, 0, 0], [0x00, 0x50], 'site.test', NUL, '/cgi-bin/x.pl', NUL);
    c.send([0x00, 11 + 9 + 8], [0x02], [0, 0, 0, 0], [0x00, 0x50], 'site.test', NUL, '/cat.jpg', NUL);
    c.send([0x00, 0x03, 0x01]);
    expect(await c.read(2)).toEqual(bytes([0x00, 0x00]));
    // Refused without a request: refused.jsonl, not pages.jsonl.
    const lines = readFileSync(join(server.dir, 'refused.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        url: 'http://site.test/cgi-bin/x.pl',
        error: 'filtered',
        detail: 'substring',
      }),
      expect.objectContaining({ url: 'http://site.test/cat.jpg', error: 'filtered', detail: 'extension' }),
    ]);
  });
});

describe('SHOWDATA (4), MODSTAT (6), MODINFO (10)', () => {
  it('SHOWDATA and MODSTAT answer text and close; MODINFO sets a site module info', async () => {
    server = await startTestServer({ modules: [] });
    await seed('http://a.test/');
    const c = await client();
    c.send([0x00, 0x03, 0x01]);
    await c.read(2 + 4 + 2 + 7 + 2);
    c.send([0x00, 11 + 6 + 1], [0x03], [10, 0, 0, 1], [0x00, 0x50], 'a.test', NUL, '/', NUL);
    // MODINFO: len=11+strlen(module)+strlen(info), type 10, addr, port, module NUL, info NUL
    const info = '{"software":"nginx"}';
    c.send([0x00, 11 + 6 + info.length], [0x0a], [10, 0, 0, 1], [0x00, 0x50], 'server', NUL, info, NUL);
    await settled(c);
    const show = await client();
    show.send([0x00, 0x03, 0x04]);
    const text = (await show.readToClose()).toString();
    expect(text).toMatch(/^sites: 1\n/);
    expect(text).toContain('directories: /');
    expect(text).toContain('"server":{"software":"nginx"}');
    expect(text).toContain('queue: 0 queued, 0 leased');
    const stat = await client();
    stat.send([0x00, 0x03, 0x06]);
    expect((await stat.readToClose()).toString()).toBe('modules: 0\n');
  });
});

describe('LOGDATA (7), READDATA (8), NEWMOD (9), QUIT (5): they need the token', () => {
  it('LOGDATA appends the sites in the log format; READDATA reads a log back as visited sites', async () => {
    server = await startTestServer();
    await seed('http://a.test/docs/x');
    const c = await client();
    c.send([0x00, 0x03, 0x01]);
    await c.read(2 + 4 + 2 + 7 + 8);
    c.send([0x00, 11 + 6 + 7], [0x03], [10, 0, 0, 1], [0x00, 0x50], 'a.test', NUL, '/docs/x', NUL);
    await settled(c);
    const log = await client();
    log.send(auth, [0x00, 4 + 9, 0x07], 'crawl.log', NUL); // len=4+strlen(file), type 7, file NUL
    expect(await log.readToClose()).toEqual(Buffer.alloc(0));
    const line = JSON.parse(readFileSync(join(server.dir, 'crawl.log'), 'utf8'));
    expect(line).toEqual({
      origin: 'http://a.test',
      address: '10.0.0.1',
      port: 80,
      hosts: ['a.test'],
      count: 1,
      directories: ['/docs/'],
      info: {},
    });
    writeFileSync(
      join(server.dir, 'old.log'),
      `${JSON.stringify({ origin: 'http://b.test', address: '10.0.0.2', port: 80, hosts: ['b.test'], count: 9, directories: ['/x/'], info: { m: 1 } })}\nnot a site\n`,
    );
    const read = await client();
    read.send(auth, [0x00, 4 + 7, 0x08], 'old.log', NUL);
    await read.readToClose();
    const me = await server.store.registerCrawler('after');
    // its hooks do not run again, by its address or by its name alone
    expect(await server.service.claimSite(me, { origin: 'http://b.test', address: '10.0.0.2' })).toBe(false);
    expect(await server.service.claimSite(me, { origin: 'http://b.test', address: null })).toBe(false);
    const show = await client();
    show.send([0x00, 0x03, 0x04]);
    expect((await show.readToClose()).toString()).toContain(
      'http://b.test 10.0.0.2:80  9 URLs  hosts: b.test\n    directories: /\n',
    );
  });

  it('refuses QUIT without the token and NEWMOD of ../x, and stays up', async () => {
    const modulesDir = join(await mkTemp(), 'modules');
    mkdirSync(modulesDir);
    server = await startTestServer({ modulesDir });
    const quit = await client();
    quit.send([0x00, 0x03, 0x05]);
    const refused = await quit.readToClose();
    expect(JSON.parse(refused.subarray(8).toString())).toMatchObject({ code: 200 });
    const escaping = await client();
    escaping.send(auth, [0x00, 4 + 4, 0x09], '../x', NUL);
    const bad = await escaping.readToClose();
    expect(bad[2]).toBe(36);
    expect(JSON.parse(bad.subarray(8).toString())).toMatchObject({ code: 204 });
    const still = await client();
    still.send([0x00, 0x03, 0x06]);
    expect((await still.readToClose()).toString()).toBe('modules: 0\n');
  });

  it('NEWMOD of a module whose selfTest fails: refused, the answer says why, nothing loaded', async () => {
    const modulesDir = join(await mkTemp(), 'modules');
    mkdirSync(modulesDir);
    writeFileSync(
      join(modulesDir, 'broken.mjs'),
      `export default { name: 'broken', onPage() {}, selfTest() { throw new Error('the parser is missing'); } };\n`,
    );
    server = await startTestServer({ modulesDir });
    const load = await client();
    load.send(auth, [0x00, 4 + 6, 0x09], 'broken', NUL);
    expect((await load.readToClose()).toString()).toMatch(/^module broken refused: .*the parser is missing/);
    const stat = await client();
    stat.send([0x00, 0x03, 0x06]);
    expect((await stat.readToClose()).toString()).toBe('modules: 0\n');
  });

  it('NEWMOD loads a module from --modules and answers how it went; QUIT writes cobweb.log and stops', async () => {
    const modulesDir = join(await mkTemp(), 'modules');
    mkdirSync(modulesDir);
    writeFileSync(
      join(modulesDir, 'headings.mjs'),
      `export default { name: 'headings', onSite(site) { return { origin: site.origin }; }, selfTest() {} };\n`,
    );
    server = await startTestServer({ modulesDir });
    const load = await client();
    load.send(auth, [0x00, 4 + 8, 0x09], 'headings', NUL);
    expect((await load.readToClose()).toString()).toMatch(/^module headings loaded \(hooks: site\)/);
    const quit = await client();
    quit.send(auth, [0x00, 0x03, 0x05]);
    await quit.readToClose();
    expect(existsSync(join(server.dir, 'cobweb.log'))).toBe(true);
    await expect(RawClient.connect(server.port)).rejects.toThrow();
  });

  it("NEWMOD refuses a module whose file in data/ is someone else's, and leaves that file alone", async () => {
    const modulesDir = join(await mkTemp(), 'modules');
    mkdirSync(modulesDir);
    writeFileSync(
      join(modulesDir, 'headings.mjs'),
      `export default { name: 'headings', onSite(site, ctx) { ctx.emit({ origin: site.origin }); } };\n`,
    );
    const dir = await mkTemp();
    const theirs = join(dir, 'data', 'headings.jsonl');
    mkdirSync(join(dir, 'data'));
    writeFileSync(theirs, '{"mine":true}\n');
    server = await startTestServer({ modulesDir, dir });
    const load = await client();
    load.send(auth, [0x00, 4 + 8, 0x09], 'headings', NUL);
    expect((await load.readToClose()).toString()).toBe(
      `module headings refused: ${theirs} is not cobweb's, and it would write its records into it\n`,
    );
    const stat = await client();
    stat.send([0x00, 0x03, 0x06]);
    expect((await stat.readToClose()).toString()).toBe('modules: 0\n');
    expect(readFileSync(theirs, 'utf8')).toBe('{"mine":true}\n');
  });
});

/**
 * The original packets of one connection are handled in order: once a DEQUEUE sent
 * after them is answered (00 00, nothing queued), those before it are done.
 */
async function settled(c: RawClient): Promise<void> {
  c.send([0x00, 0x03, 0x01]);
  expect(await c.read(2)).toEqual(bytes([0x00, 0x00]));
}

async function mkTemp(): Promise<string> {
  return mkdtempSync(join(tmpdir(), 'cobweb-mods-'));
}
