import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendControl } from '../../src/cli/control-commands.js';
import type { OriginalPacket } from '../../src/protocol/index.js';
import { plainNameIn } from '../../src/server/names.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * Names a client sends (LOGDATA and READDATA file names, NEWMOD module names) stay inside
 * their folder: '../', absolute paths and symlinks are refused, a dangling symlink too
 * (it cannot be followed to see where it lands, and writing through it creates the file
 * where it points).
 */

let root: string;
let data: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cobweb-names-'));
  data = join(root, 'data');
  outside = join(root, 'outside');
  mkdirSync(data);
  mkdirSync(outside);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('plainNameIn', () => {
  it('takes a plain name, whether or not the file exists yet', () => {
    writeFileSync(join(data, 'old.log'), '');
    expect(plainNameIn(data, 'old.log')).toBe(join(data, 'old.log'));
    expect(plainNameIn(data, 'new.log')).toBe(join(data, 'new.log'));
  });

  it('refuses separators, .., absolute paths and control characters', () => {
    for (const name of ['../x.log', 'a/b.log', '..', '.', '/tmp/x.log', 'a\\b', 'x\nlog', '']) {
      expect(plainNameIn(data, name), name).toBeNull();
    }
  });

  it('refuses a symlink that leads outside, one that dangles, and one inside', () => {
    writeFileSync(join(outside, 'there.log'), 'x');
    symlinkSync(join(outside, 'there.log'), join(data, 'out.log'));
    symlinkSync(join(outside, 'not-yet.log'), join(data, 'dangling.log'));
    writeFileSync(join(data, 'real.log'), '');
    symlinkSync(join(data, 'real.log'), join(data, 'inside.log'));
    expect(plainNameIn(data, 'out.log')).toBeNull();
    expect(plainNameIn(data, 'dangling.log')).toBeNull();
    expect(plainNameIn(data, 'inside.log')).toBeNull();
  });

  it('takes a folder that is itself reached through a symlink', () => {
    symlinkSync(data, join(root, 'via'));
    expect(plainNameIn(join(root, 'via'), 'a.log')).toBe(join(data, 'a.log'));
  });
});

describe('the server refuses names that leave their folder', () => {
  let server: InProcessServer;
  const modules = () => join(root, 'modules');

  beforeEach(async () => {
    mkdirSync(modules());
    server = await startTestServer({ dir: data, modulesDir: modules() });
  });

  afterEach(async () => {
    await server.dispose();
  });

  const send = (packet: OriginalPacket) =>
    sendControl({ host: '127.0.0.1', port: server.port }, packet, 'test-token');

  it('LOGDATA through a dangling symlink: BAD_NAME, and nothing is created where it points', async () => {
    const target = join(outside, 'created.log');
    symlinkSync(target, join(data, 'evil.log'));
    expect(await send({ type: 'LOGDATA', file: 'evil.log' })).toMatchObject({ kind: 'error', code: 204 });
    expect(existsSync(target)).toBe(false);
    // a plain name still works
    expect(await send({ type: 'LOGDATA', file: 'fine.log' })).toEqual({ kind: 'text', text: '' });
    expect(existsSync(join(data, 'fine.log'))).toBe(true);
  });

  it('LOGDATA through a symlink to a file outside: BAD_NAME, and the file is not touched', async () => {
    writeFileSync(join(outside, 'keep.log'), 'mine\n');
    symlinkSync(join(outside, 'keep.log'), join(data, 'keep.log'));
    expect(await send({ type: 'LOGDATA', file: 'keep.log' })).toMatchObject({ kind: 'error', code: 204 });
    expect(readFileSync(join(outside, 'keep.log'), 'utf8')).toBe('mine\n');
  });

  it('READDATA of a symlinked log and of ../: BAD_NAME', async () => {
    const line = `${JSON.stringify({ origin: 'http://b.test', address: '10.0.0.2', port: 80, hosts: ['b.test'], count: 1, directories: ['/'], info: {} })}\n`;
    writeFileSync(join(outside, 'sites.log'), line);
    symlinkSync(join(outside, 'sites.log'), join(data, 'sites.log'));
    expect(await send({ type: 'READDATA', file: 'sites.log' })).toMatchObject({ kind: 'error', code: 204 });
    expect(await send({ type: 'READDATA', file: '../outside/sites.log' })).toMatchObject({
      kind: 'error',
      code: 204,
    });
    expect(server.service.sites.all()).toEqual([]);
  });

  it('NEWMOD of a module that is a symlink, dangling or leading outside: BAD_NAME, nothing loaded', async () => {
    writeFileSync(join(outside, 'evil.mjs'), `export default { name: 'evil', onPage() {} };\n`);
    symlinkSync(join(outside, 'evil.mjs'), join(modules(), 'evil.mjs'));
    symlinkSync(join(outside, 'gone.mjs'), join(modules(), 'gone.mjs'));
    expect(await send({ type: 'NEWMOD', name: 'evil' })).toMatchObject({ kind: 'error', code: 204 });
    expect(await send({ type: 'NEWMOD', name: 'gone' })).toMatchObject({ kind: 'error', code: 204 });
    expect(await send({ type: 'MODSTAT' })).toEqual({ kind: 'text', text: 'modules: 0\n' });
  });
});
