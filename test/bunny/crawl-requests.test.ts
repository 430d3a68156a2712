import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTunnel } from '../fetch/servers.js';
import { SITE_A_CERT, SITE_A_KEY } from '../fetch/tls-fixture.js';
import { cobweb, freePort } from '../helpers/cli-process.js';
import { crawlHarness } from '../helpers/crawl-harness.js';
import { type Handler, listenOnLoopback, page } from '../helpers/http.js';
import { readPages } from '../helpers/pages.js';
import { selfSignedCert, type TestCert } from '../helpers/tls-cert.js';
import { readWarcDir } from '../helpers/warc.js';

const h = crawlHarness('requests', { builtinModules: false, delayMs: 0, delayFactor: 0, scope: 'any' });

/** A cookies.txt beside this test's --data folder (not in it: the folder is cobweb's). */
const cookiesFile = () => `${h.dir}-cookies.txt`;
afterEach(() => rmSync(cookiesFile(), { force: true }));

/** A route that sets these cookies and serves a page linking to `links`. */
function setting(cookies: string[], links: string[]): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': cookies }).end(page('sets', links));
  };
}

describe('request headers', () => {
  it("sends --header to every host, and a host section's headers to its hosts, over the crawl's", async () => {
    const b = await h.site('127.0.0.3', { '/': page('b') });
    const a = await h.site('127.0.0.2', { '/': page('a') });
    await h.run([`${a.origin}/`, `${b.origin}/`], {
      headers: { 'X-Crawl': 'one', Accept: 'text/html' },
      hosts: { '127.0.0.3': { headers: { 'X-Crawl': 'two', 'X-Extra': 'b' } } },
    });
    const atA = a.log.find((r) => r.path === '/')?.headers;
    const atB = b.log.find((r) => r.path === '/')?.headers;
    expect(atA).toMatchObject({ 'x-crawl': 'one', accept: 'text/html' });
    expect(atA?.['x-extra']).toBeUndefined();
    expect(atA?.['user-agent']).toMatch(/^cobweb\//);
    expect(atB).toMatchObject({ 'x-crawl': 'two', 'x-extra': 'b', accept: 'text/html' });
  });

  it("refuses a header that is the crawler's own, before anything is touched", async () => {
    await expect(h.run(['http://127.0.0.2:9/'], { headers: { 'User-Agent': 'me' } })).rejects.toThrow(
      'headers must be request headers like',
    );
    await expect(
      h.run(['http://127.0.0.2:9/'], { hosts: { 'a.test': { headers: { Host: 'b.test' } } } }),
    ).rejects.toThrow(/^hosts must be per-host sections like .*: a\.test\.headers must be request headers/);
  });
});

describe('cookies', () => {
  it('go back only to the host that set them; a cookie set for another host is dropped', async () => {
    const b = await h.site('127.0.0.3', { '/': page('b', ['/after']), '/after': page('b after') });
    const a = await h.site('127.0.0.2', {
      '/': setting(['sid=abc; Path=/', 'evil=1; Domain=127.0.0.3'], ['/next', `${b.origin}/`]),
      '/next': page('next'),
    });
    await h.run([`${a.origin}/`], { allowPrivate: true });
    expect(a.log.find((r) => r.path === '/next')?.headers.cookie).toBe('sid=abc');
    expect(b.log.map((r) => r.path).sort()).toEqual(['/', '/after', '/robots.txt']);
    expect(b.log.map((r) => r.headers.cookie)).toEqual([undefined, undefined, undefined]);
  });

  it('are kept in the store: a resumed crawl sends the cookies of its earlier run', async () => {
    const a = await h.site('127.0.0.2', {
      '/': setting(['sid=kept; Max-Age=3600'], ['/next']),
      '/next': page('next'),
    });
    const first = await h.run([`${a.origin}/`], { maxPages: 1 });
    expect(first.stoppedBy).toBe('max-pages');
    expect(a.log.some((r) => r.path === '/next')).toBe(false);
    await h.run([`${a.origin}/`]);
    expect(a.log.filter((r) => r.path === '/next').map((r) => r.headers.cookie)).toEqual(['sid=kept']);
  });

  it("imports a Netscape cookies.txt (curl's), sending each cookie only where it belongs", async () => {
    const b = await h.site('127.0.0.3', { '/': page('b') });
    const a = await h.site('127.0.0.2', { '/': page('a', ['/private/p']), '/private/p': page('p') });
    const file = cookiesFile();
    writeFileSync(
      file,
      [
        '# Netscape HTTP Cookie File',
        '127.0.0.2\tFALSE\t/\tFALSE\t0\tsession\tfrom-file',
        '#HttpOnly_127.0.0.2\tFALSE\t/private\tFALSE\t0\tdeep\tx',
        '127.0.0.9\tFALSE\t/\tFALSE\t0\telsewhere\ty',
        '',
      ].join('\n'),
    );
    await h.run([`${a.origin}/`, `${b.origin}/`], { cookies: file });
    expect(a.log.find((r) => r.path === '/')?.headers.cookie).toBe('session=from-file');
    expect(a.log.find((r) => r.path === '/private/p')?.headers.cookie).toBe('deep=x; session=from-file');
    expect(b.log.every((r) => r.headers.cookie === undefined)).toBe(true);
  });

  it('refuses a cookies.txt line that is not one, naming the file and the line', async () => {
    const file = cookiesFile();
    writeFileSync(file, '# Netscape HTTP Cookie File\n127.0.0.2 FALSE / FALSE 0 a b\n');
    await expect(h.run(['http://127.0.0.2:9/'], { cookies: file })).rejects.toThrow(
      `${file}: line 2 is not a Netscape cookie line`,
    );
  });
});

/**
 * A forward proxy on a loopback address: it sends each request on and keeps its target.
 * With a certificate it is an https:// proxy: clients speak TLS to it first.
 */
async function forwardProxy(address: string, tls?: TestCert, login?: string) {
  const seen: { url: string; auth: string | undefined }[] = [];
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ url: req.url ?? '', auth: req.headers['proxy-authorization'] });
    if (login !== undefined && req.headers['proxy-authorization'] !== login) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const { 'proxy-authorization': _, ...headers } = req.headers;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers: { ...headers, 'x-forwarded-by': 'test-proxy' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  };
  const server =
    tls === undefined ? createServer(forward) : createSecureServer({ key: tls.key, cert: tls.cert }, forward);
  // https:// targets come as CONNECT: a tunnel to the target (site-a.test is the test's TLS site).
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({ url: `CONNECT ${req.url}`, auth: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    openTunnel(client, head, Number(port), host === 'site-a.test' ? '127.0.0.2' : (host as string));
  });
  const listening = await listenOnLoopback(server, address);
  return { ...listening, seen };
}

describe('--proxy', () => {
  it('sends every request through the proxy, says so in the WARC, and still refuses private targets', async () => {
    const proxy = await forwardProxy('127.0.0.4');
    try {
      const a = await h.site('127.0.0.2', { '/': page('a', ['http://127.0.0.3:9/secret']) });
      const summary = await h.run([`${a.origin}/`], { proxy: `http://user:pw@127.0.0.4:${proxy.port}` });
      expect(summary.fetchedThisRun).toBe(1);
      expect(proxy.seen.map((s) => s.url).sort()).toEqual([`${a.origin}/`, `${a.origin}/robots.txt`]);
      expect(proxy.seen[0]?.auth).toBe(`Basic ${Buffer.from('user:pw').toString('base64')}`);
      expect(a.log.map((r) => r.headers['x-forwarded-by'])).toEqual(['test-proxy', 'test-proxy']);
      expect(h.recordOf('http://127.0.0.3:9/secret')?.error).toBe('private-address');
      const requests = (await readWarcDir(join(h.dir, 'warc'))).filter((r) => r.type === 'request');
      expect(requests.map((r) => [r.uri, r.field('WARC-Proxy'), r.field('WARC-IP-Address')])).toEqual([
        [`${a.origin}/robots.txt`, `http://127.0.0.4:${proxy.port}`, null],
        [`${a.origin}/`, `http://127.0.0.4:${proxy.port}`, null],
      ]);
      // The request went to the proxy in absolute form; its login is not kept in the archive.
      expect(requests[1]?.block.toString('latin1')).toMatch(new RegExp(`^GET ${a.origin}/ HTTP/1\\.1\r\n`));
      expect(requests.map((r) => /proxy-authorization/i.test(r.block.toString('latin1')))).toEqual([
        false,
        false,
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("records a proxy's 407 as a failure of the URL, not as the site's answer", async () => {
    const login = `Basic ${Buffer.from('user:pw').toString('base64')}`;
    const proxy = await forwardProxy('127.0.0.4', undefined, login);
    try {
      const a = await h.site('127.0.0.2', { '/': page('a') });
      await h.run([`${a.origin}/`], {
        proxy: `http://user:wrong@127.0.0.4:${proxy.port}`,
        ignoreRobots: true,
        retries: 0,
      });
      expect(proxy.seen.map((s) => s.url)).toEqual([`${a.origin}/`]);
      expect(h.recordOf(`${a.origin}/`)).toMatchObject({ status: null, error: 'network' });
      expect(h.recordOf(`${a.origin}/`)?.detail).toMatch(/407 Proxy Authentication Required/);
      expect(a.log).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("says at once, naming it, that a proxy cannot be reached: once, and in the failed URL's line", async () => {
    const a = await h.site('127.0.0.3', { '/': page('a', ['/b', '/c']) });
    // A port nothing listens on: every connection to the proxy is refused.
    const dead = `http://user:pw@127.0.0.4:${await freePort('127.0.0.4')}`;
    const warnings: string[] = [];
    const summary = await h.run([`${a.origin}/`, 'http://127.0.0.5:9/'], {
      proxy: dead,
      retries: 0,
      retireAfter: 1,
      allowPrivate: true,
      onLog: (line, level) => {
        if (level === 'warning') warnings.push(line);
      },
    });

    expect(summary.fetchedThisRun).toBe(0);
    expect(a.log).toEqual([]);
    const shown = dead.replace('user:pw@', '');
    // Two sites' requests failed through it; the user hears it once, without its login.
    expect(warnings.filter((w) => w.includes('could not be reached'))).toEqual([
      expect.stringContaining(`the proxy ${shown} could not be reached (`),
    ]);
    expect(warnings.join('\n')).not.toContain('user:pw');
    // robots.txt is the first request to the site: the page's line says that read failed, and why.
    expect(h.recordOf(`${a.origin}/`)?.detail).toBe(
      `robots.txt: the proxy ${shown} could not be reached: connect ECONNREFUSED ${shown.slice('http://'.length)}`,
    );
  });

  it('tunnels https:// requests through the proxy with CONNECT, TLS still checked end to end', async () => {
    const proxy = await forwardProxy('127.0.0.4');
    const site = createSecureServer({ key: SITE_A_KEY, cert: SITE_A_CERT }, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url ?? ''));
    });
    const listening = await listenOnLoopback(site, '127.0.0.2');
    try {
      const seed = `https://site-a.test:${listening.port}/`;
      const caFile = `${h.dir}-ca.pem`;
      writeFileSync(caFile, SITE_A_CERT);
      const summary = await h.run([seed], {
        proxy: `http://127.0.0.4:${proxy.port}`,
        caFile,
        resolve: new Map([[`site-a.test:${listening.port}`, '127.0.0.2']]),
      });
      rmSync(caFile);
      expect(summary.fetchedThisRun).toBe(1);
      expect(new Set(proxy.seen.map((s) => s.url))).toEqual(
        new Set([`CONNECT site-a.test:${listening.port}`]),
      );
      expect(h.recordOf(seed)?.status).toBe(200);
    } finally {
      await listening.close();
      await proxy.close();
    }
  });

  it('tunnels through the proxy from the command line too, whose undici is bundled apart from the one in node_modules', async () => {
    const proxy = await forwardProxy('127.0.0.4');
    const site = createSecureServer({ key: SITE_A_KEY, cert: SITE_A_CERT }, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url ?? ''));
    });
    const listening = await listenOnLoopback(site, '127.0.0.2');
    const caFile = `${h.dir}-cli-ca.pem`;
    const data = `${h.dir}-cli`;
    try {
      writeFileSync(caFile, SITE_A_CERT);
      const seed = `https://site-a.test:${listening.port}/`;
      const run = cobweb([
        'crawl',
        seed,
        '--data',
        data,
        '--proxy',
        `http://127.0.0.4:${proxy.port}`,
        '--ca-file',
        caFile,
        '--resolve',
        `site-a.test:${listening.port}:127.0.0.2`,
        '--delay',
        '0',
        '--max-pages',
        '1',
        '--quiet',
      ]);
      expect(await run.exit()).toBe(0);
      expect(new Set(proxy.seen.map((s) => s.url))).toEqual(
        new Set([`CONNECT site-a.test:${listening.port}`]),
      );
      expect(readPages(join(data, 'pages.jsonl')).find((l) => l.url === seed)?.status).toBe(200);
    } finally {
      rmSync(caFile, { force: true });
      rmSync(data, { recursive: true, force: true });
      await listening.close();
      await proxy.close();
    }
  });

  describe('an https:// proxy (TLS to the proxy itself)', () => {
    /** A TLS site for site-a.test on 127.0.0.2, trusted through a CA file of the test's. */
    async function tlsSite() {
      const site = createSecureServer({ key: SITE_A_KEY, cert: SITE_A_CERT }, (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url ?? ''));
      });
      return listenOnLoopback(site, '127.0.0.2');
    }

    /** A PEM file beside this test's --data folder. */
    function pemFile(name: string, text: string): string {
      const file = `${h.dir}-${name}.pem`;
      writeFileSync(file, text);
      return file;
    }
    afterEach(() => {
      for (const name of ['proxy-ca', 'site-ca']) rmSync(`${h.dir}-${name}.pem`, { force: true });
    });

    it('trusts the proxy by --proxy-ca-file: http:// URLs go in absolute form, https:// ones through CONNECT, private targets are still refused', async () => {
      const cert = selfSignedCert('127.0.0.4');
      const proxy = await forwardProxy('127.0.0.4', cert);
      const secure = await tlsSite();
      try {
        const a = await h.site('127.0.0.3', { '/': page('a', ['http://127.0.0.5:9/secret']) });
        const tlsSeed = `https://site-a.test:${secure.port}/`;
        const summary = await h.run([`${a.origin}/`, tlsSeed], {
          proxy: `https://user:pw@127.0.0.4:${proxy.port}`,
          proxyCaFile: pemFile('proxy-ca', cert.cert),
          caFile: pemFile('site-ca', SITE_A_CERT),
          resolve: new Map([[`site-a.test:${secure.port}`, '127.0.0.2']]),
        });
        expect(summary.fetchedThisRun).toBe(2);
        expect(h.recordOf(`${a.origin}/`)?.status).toBe(200);
        expect(h.recordOf(tlsSeed)?.status).toBe(200);
        // Both came through the proxy, over TLS (it speaks nothing else), with its login.
        expect(new Set(proxy.seen.map((s) => s.url))).toEqual(
          new Set([`${a.origin}/`, `${a.origin}/robots.txt`, `CONNECT site-a.test:${secure.port}`]),
        );
        const login = `Basic ${Buffer.from('user:pw').toString('base64')}`;
        expect(proxy.seen.every((s) => s.auth === login)).toBe(true);
        expect(a.log.map((r) => r.headers['x-forwarded-by'])).toEqual(['test-proxy', 'test-proxy']);
        // The target's address is checked here, before the proxy is asked.
        expect(h.recordOf('http://127.0.0.5:9/secret')?.error).toBe('private-address');
        expect(proxy.seen.some((s) => s.url.includes('127.0.0.5'))).toBe(false);
        const requests = (await readWarcDir(join(h.dir, 'warc'))).filter((r) => r.type === 'request');
        expect(new Set(requests.map((r) => r.field('WARC-Proxy')))).toEqual(
          new Set([`https://127.0.0.4:${proxy.port}`]),
        );
        expect(requests.map((r) => r.field('WARC-IP-Address'))).toEqual(requests.map(() => null));
        expect(requests.some((r) => /proxy-authorization/i.test(r.block.toString('latin1')))).toBe(false);
      } finally {
        await secure.close();
        await proxy.close();
      }
    });

    it("refuses a proxy whose certificate is not trusted: --ca-file is the sites', not the proxy's", async () => {
      const cert = selfSignedCert('127.0.0.4');
      const proxy = await forwardProxy('127.0.0.4', cert);
      try {
        const a = await h.site('127.0.0.3', { '/': page('a') });
        const seed = `${a.origin}/`;
        await h.run([seed], {
          proxy: `https://127.0.0.4:${proxy.port}`,
          caFile: pemFile('site-ca', cert.cert),
          ignoreRobots: true,
          retries: 0,
        });
        expect(h.recordOf(seed)?.error).toBe('tls');
        expect(proxy.seen).toEqual([]);
        expect(a.log).toEqual([]);
      } finally {
        await proxy.close();
      }
    });
  });
});
