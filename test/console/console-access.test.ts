import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_NOT_LOOPBACK_ENV } from '../../src/assembly/console-access.js';
import { type CliProcess, cobweb } from '../helpers/cli-process.js';
import type { TestServer } from '../helpers/http.js';
import { startTestWeb } from '../helpers/test-web.js';

/**
 * Who may read the console, against the real command: the Host must name the console
 * (DNS rebinding), a POST's Origin must be its own, and on an address that is not
 * loopback every request but the page's own files needs the token, as a header, a
 * bearer token (Prometheus) or the session cookie the page's unlock gets. This machine
 * has no address but loopback to test on, so 127.0.0.2 is made to count as one other
 * machines reach (TEST_NOT_LOOPBACK_ENV).
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch would not let us set Host); an event stream is read to its first event. */
function ask(
  at: { host: string; port: number },
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: at.host, port: at.port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n', 12)) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const hostOf = (at: { host: string; port: number }) => `${at.host}:${at.port}`;

describe('the console lets in only who belongs', { timeout: 60_000 }, () => {
  const processes: CliProcess[] = [];
  const dirs: string[] = [];
  let sites: TestServer[] = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const s of sites.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** A crawl that stays busy (one page a second) with its console at `http`. */
  async function startCrawl(http: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
    sites = await startTestWeb(['127.0.0.3'], 100);
    const dir = mkdtempSync(join(tmpdir(), 'cobweb-access-'));
    dirs.push(dir);
    const p = cobweb(
      [
        'crawl',
        `${sites[0]?.origin}/`,
        '--data',
        dir,
        '--http',
        http,
        '--delay',
        '1000',
        '--delay-factor',
        '0',
        ...extra,
      ],
      { COBWEB_TOKEN: '', ...env },
    );
    processes.push(p);
    const [, host, port] = (await p.line(/console on http:\/\/(\S+):(\d+)\//)) as RegExpMatchArray;
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    return { p, at: { host: host as string, port: Number(port) }, token };
  }

  async function stop(run: { p: CliProcess; at: { host: string; port: number }; token: string }) {
    const stopped = await ask(run.at, '/api/stop', { 'x-cobweb-token': run.token }, 'POST');
    expect(stopped.status).toBe(200);
    expect(await run.p.exit()).toBe(0);
  }

  it('on loopback: a foreign Host is refused (421, one log line), its own address and localhost are answered without the token; a POST from another Origin is refused', async () => {
    const run = await startCrawl('127.0.0.1:0');
    const { at } = run;
    for (const host of [hostOf(at), `localhost:${at.port}`]) {
      const s = await ask(at, '/status', { host });
      expect(s.status, host).toBe(200);
      expect(JSON.parse(s.body).kind).toBe('crawl');
    }
    expect((await ask(at, '/metrics', { host: hostOf(at) })).status).toBe(200);

    for (const path of ['/status', '/events', '/metrics', '/']) {
      const r = await ask(at, path, { host: `evil.example:${at.port}` });
      expect(r.status, path).toBe(421);
      expect(r.body).toContain('--http-allow-host');
    }
    await run.p.line(/refused a request from 127\.0\.0\.\d+ for Host "evil\.example:\d+"/);
    expect(run.p.stderr().match(/evil\.example/g)).toHaveLength(1);

    // The token does not make another site's page one of ours.
    const token = { 'x-cobweb-token': run.token };
    const foreign = await ask(at, '/api/check', { ...token, origin: 'http://evil.example' }, 'POST');
    expect(foreign.status).toBe(403);
    await run.p.line(/refused a request from 127\.0\.0\.\d+ for Origin "http:\/\/evil\.example" on a POST/);
    const own = await ask(at, '/api/check', { ...token, origin: `http://${hostOf(at)}` }, 'POST');
    expect(own.status).toBe(200);
    await stop(run);
  });

  it('off loopback: every path but the page needs the token; a header, a bearer token or the unlock cookie opens them', async () => {
    const run = await startCrawl('127.0.0.2:0', ['--http-allow-host', 'crawler.test'], {
      [TEST_NOT_LOOPBACK_ENV]: '1',
    });
    const { at, token } = run;
    expect(at.host).toBe('127.0.0.2');
    for (const path of ['/status', '/events', '/metrics', '/nothing-here']) {
      const r = await ask(at, path);
      expect(r.status, path).toBe(401);
      expect(r.body).not.toContain(token);
    }
    // The page and its files are what every install serves: the page asks for the token.
    expect((await ask(at, '/')).status).toBe(200);
    expect((await ask(at, '/assets/console.js')).status).toBe(200);
    // localhost is no name of an address other machines reach; a name given is.
    expect((await ask(at, '/status', { host: `localhost:${at.port}` })).status).toBe(421);
    const named = await ask(at, '/status', { host: `crawler.test:${at.port}`, 'x-cobweb-token': token });
    expect(named.status).toBe(200);

    expect((await ask(at, '/status', { 'x-cobweb-token': 'not-it' })).status).toBe(401);
    const withHeader = await ask(at, '/status', { 'x-cobweb-token': token });
    expect(withHeader.status).toBe(200);
    expect(JSON.parse(withHeader.body).state).toBe('running');

    // Prometheus: authorization: { credentials: TOKEN } sends a bearer token.
    expect((await ask(at, '/metrics', { authorization: 'Bearer not-it' })).status).toBe(401);
    const metrics = await ask(at, '/metrics', { authorization: `Bearer ${token}` });
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.body).toMatch(/^cobweb_urls\{state="queued"\} \d+$/m);

    // The page's unlock: a POST of the token answers with the session cookie, which the reads take.
    const check = await ask(at, '/api/check', { 'x-cobweb-token': token }, 'POST');
    expect(check.status).toBe(200);
    const cookie = String(check.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(token);
    const session = cookie.split(';')[0] as string;
    expect((await ask(at, '/status', { cookie: session })).status).toBe(200);
    const events = await ask(at, '/events', { cookie: session });
    expect(events.status).toBe(200);
    expect(events.body).toMatch(/event: hello\ndata: \{"kind":"crawl"/);
    expect((await ask(at, '/status', { cookie: `${session.split('=')[0]}=forged` })).status).toBe(401);
    await stop(run);
  });

  it('--metrics-open leaves /metrics open off loopback, says so at start, and nothing else', async () => {
    const run = await startCrawl('127.0.0.2:0', ['--metrics-open'], { [TEST_NOT_LOOPBACK_ENV]: '1' });
    await run.p.line(/--metrics-open: \/metrics answers anyone/);
    const metrics = await ask(run.at, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^cobweb_urls\{state="queued"\} \d+$/m);
    expect((await ask(run.at, '/status')).status).toBe(401);
    expect((await ask(run.at, '/events')).status).toBe(401);
    await stop(run);
  });

  it("cobweb server's console keeps the same rules", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cobweb-access-server-'));
    dirs.push(dir);
    const p = cobweb(
      [
        'server',
        '--data',
        dir,
        '--listen',
        '127.0.0.1:0',
        '--http',
        '127.0.0.2:0',
        '--token',
        'server-secret',
      ],
      { [TEST_NOT_LOOPBACK_ENV]: '1' },
    );
    processes.push(p);
    // The line that says where it listens says that every request needs the token there.
    const [, port] = (await p.line(
      /console on http:\/\/127\.0\.0\.2:(\d+)\/ \(every request needs the token of the server\)/,
    )) as RegExpMatchArray;
    const at = { host: '127.0.0.2', port: Number(port) };
    expect((await ask(at, '/status')).status).toBe(401);
    expect((await ask(at, '/metrics')).status).toBe(401);
    expect((await ask(at, '/status', { host: `evil.example:${at.port}` })).status).toBe(421);
    await p.line(/refused a request from 127\.0\.0\.\d+ for Host "evil\.example:\d+"/);
    const s = await ask(at, '/status', { authorization: 'Bearer server-secret' });
    expect(s.status).toBe(200);
    expect(JSON.parse(s.body).kind).toBe('server');
    expect((await ask(at, '/metrics', { authorization: 'Bearer server-secret' })).status).toBe(200);
    const stopped = await ask(at, '/api/stop', { 'x-cobweb-token': 'server-secret' }, 'POST');
    expect(stopped.status).toBe(200);
    expect(await p.exit()).toBe(0);
  });
});
