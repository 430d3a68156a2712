import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendControl } from '../../src/cli/control-commands.js';
import { serverToken } from '../../src/console/token.js';
import { encode, type OriginalPacket, readTextAnswer } from '../../src/protocol/index.js';
import { isLoopback } from '../../src/server/server.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * The token: where it comes from (--token, COBWEB_TOKEN, DATA/token made with mode 0600
 * and printed once), which packets need it (QUIT, NEWMOD, LOGDATA, READDATA always;
 * every packet on an address that is not loopback), and that AUTH comes first.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-token-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('serverToken', () => {
  const saved = process.env.COBWEB_TOKEN;
  afterEach(() => {
    if (saved === undefined) delete process.env.COBWEB_TOKEN;
    else process.env.COBWEB_TOKEN = saved;
  });

  it('makes a token into DATA/token with mode 0600 once, then reads it back', () => {
    delete process.env.COBWEB_TOKEN;
    const made = serverToken(dir, undefined);
    expect(made.generated).toBe(true);
    expect(made.token.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'token')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'token'), 'utf8').trim()).toBe(made.token);
    expect(serverToken(dir, undefined)).toEqual({ token: made.token, generated: false });
  });

  it('takes --token first, then COBWEB_TOKEN, and writes no file for either', () => {
    process.env.COBWEB_TOKEN = 'from-env';
    expect(serverToken(dir, 'from-flag')).toEqual({ token: 'from-flag', generated: false });
    expect(serverToken(dir, undefined)).toEqual({ token: 'from-env', generated: false });
    expect(existsSync(join(dir, 'token'))).toBe(false);
  });
});

describe('isLoopback: where the token is needed on every packet', () => {
  it('is true only for addresses no other machine can reach', () => {
    for (const host of [
      '127.0.0.1',
      '127.3.2.1',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
    ]) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.20', '::ffff:10.0.0.1', 'example.com', '']) {
      expect(isLoopback(host), host).toBe(false);
    }
  });
});

describe('packets and the token', () => {
  let server: InProcessServer;
  afterEach(async () => {
    await server?.dispose();
  });

  const at = () => ({ host: '127.0.0.1', port: server.port });
  const AUTH = encode({ type: 'AUTH', requestId: 0, more: false, body: { token: 'test-token' } });

  async function refusedCode(...packets: Buffer[]): Promise<number | null> {
    const c = await RawClient.connect(server.port);
    c.send(...packets);
    const answer = readTextAnswer(await c.readToClose());
    return answer.kind === 'error' ? answer.code : null;
  }

  it('AUTH must be the first packet: after another one it is refused (AUTH_NOT_FIRST); a wrong token is AUTH_FAILED', async () => {
    server = await startTestServer();
    const enqueue = encode({
      type: 'ENQUEUE',
      target: { addr: '0.0.0.0', port: 80, host: 'a.test', path: '/' },
    });
    expect(await refusedCode(enqueue, AUTH)).toBe(202);
    const wrong = encode({ type: 'AUTH', requestId: 0, more: false, body: { token: 'not-it' } });
    expect(await refusedCode(wrong, encode({ type: 'SHOWDATA' }))).toBe(201);
  });

  it('QUIT, NEWMOD, LOGDATA and READDATA without the token: AUTH_REQUIRED, nothing done, the server still up', async () => {
    const modulesDir = join(dir, 'modules');
    mkdirSync(modulesDir);
    writeFileSync(join(modulesDir, 'm.mjs'), `export default { name: 'm', onPage() {} };\n`);
    server = await startTestServer({ dir: join(dir, 'server'), modulesDir });
    const line = {
      origin: 'http://b.test',
      address: '10.0.0.2',
      port: 80,
      hosts: ['b.test'],
      count: 1,
      directories: ['/'],
      info: {},
    };
    writeFileSync(join(server.dir, 'old.log'), `${JSON.stringify(line)}\n`);
    const packets: OriginalPacket[] = [
      { type: 'QUIT' },
      { type: 'NEWMOD', name: 'm' },
      { type: 'LOGDATA', file: 'new.log' },
      { type: 'READDATA', file: 'old.log' },
    ];
    for (const p of packets) {
      expect(await sendControl(at(), p, undefined), p.type).toMatchObject({ kind: 'error', code: 200 });
    }
    expect(existsSync(join(server.dir, 'cobweb.log'))).toBe(false);
    expect(existsSync(join(server.dir, 'new.log'))).toBe(false);
    expect(server.service.sites.all()).toEqual([]);
    expect(await sendControl(at(), { type: 'MODSTAT' }, undefined)).toEqual({
      kind: 'text',
      text: 'modules: 0\n',
    });
    // with the token each of them does what it says
    expect(await sendControl(at(), { type: 'LOGDATA', file: 'new.log' }, 'test-token')).toEqual({
      kind: 'text',
      text: '',
    });
    expect(existsSync(join(server.dir, 'new.log'))).toBe(true);
    await sendControl(at(), { type: 'READDATA', file: 'old.log' }, 'test-token');
    expect(server.service.sites.all()).toHaveLength(1);
    expect(await sendControl(at(), { type: 'NEWMOD', name: 'm' }, 'test-token')).toMatchObject({
      text: expect.stringMatching(/^module m loaded/),
    });
  });

  it('on an address that is not loopback every packet needs the token, the original ones too', async () => {
    server = await startTestServer({ tokenOnEveryPacket: true });
    const hello = encode({ type: 'HELLO', requestId: 1, more: false, body: { name: 'b', protocol: 1 } });
    const requests = [
      encode({ type: 'DEQUEUE' }),
      encode({ type: 'SHOWDATA' }),
      encode({ type: 'MODSTAT' }),
      hello,
    ];
    for (const r of requests) expect(await refusedCode(r)).toBe(200);
    // with AUTH first, the same packets are answered
    expect(await sendControl(at(), { type: 'MODSTAT' }, 'test-token')).toEqual({
      kind: 'text',
      text: 'modules: 0\n',
    });
    const c = await RawClient.connect(server.port);
    c.send(AUTH);
    expect(await c.dequeue()).toBeNull();
    c.close();
  });
});

describe('cobweb server and its token', { timeout: 60_000 }, () => {
  const processes: CliProcess[] = [];
  afterEach(() => {
    for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const p = cobweb(args, { COBWEB_TOKEN: '', ...env });
    processes.push(p);
    return p;
  };
  const start = async (extra: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const s = run(
      ['server', '--data', join(dir, 'server'), '--listen', '127.0.0.1:0', '--no-builtin-modules', ...extra],
      env,
    );
    const port = Number((await s.line(/server listening on [^\s]+:(\d+)/))[1]);
    return { s, server: `127.0.0.1:${port}` };
  };

  it('makes DATA/token (mode 0600) and prints it once; quit --data reads it', async () => {
    const first = await start();
    const printed = (await first.s.line(/token \(also in [^)]+\): (\S+)/))[1];
    const file = join(dir, 'server', 'token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(printed);
    first.s.child.kill('SIGTERM');
    await first.s.exit();
    const second = await start();
    const quit = run(['quit', '--server', second.server, '--data', join(dir, 'server')]);
    expect(await quit.exit()).toBe(0);
    expect(await second.s.exit()).toBe(0);
    expect(second.s.stdout()).not.toMatch(/token/);
  });

  it('takes COBWEB_TOKEN, or --token, and makes no token file', async () => {
    const env = await start([], { COBWEB_TOKEN: 'env-secret' });
    const wrong = run(['quit', '--server', env.server, '--token', 'guess']);
    expect(await wrong.exit()).toBe(2);
    expect(wrong.stderr()).toMatch(/refused quit: the token is wrong/);
    expect(await run(['quit', '--server', env.server], { COBWEB_TOKEN: 'env-secret' }).exit()).toBe(0);
    expect(await env.s.exit()).toBe(0);
    const flag = await start(['--token', 'flag-secret']);
    expect(await run(['quit', '--server', flag.server, '--token', 'flag-secret']).exit()).toBe(0);
    expect(await flag.s.exit()).toBe(0);
    expect(existsSync(join(dir, 'server', 'token'))).toBe(false);
    expect(`${env.s.stdout()}${flag.s.stdout()}`).not.toMatch(/token/);
  });
});
