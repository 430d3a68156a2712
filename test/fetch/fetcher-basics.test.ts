import { afterEach, describe, expect, it } from 'vitest';
import { DnsCache } from '../../src/fetch/dns-cache.js';
import { Fetcher } from '../../src/fetch/index.js';
import type { FetchOutcome, FetchSuccess } from '../../src/fetch/types.js';
import { onRequestHead, startHttpServer, startRawServer, type TestServer } from './servers.js';

const USER_AGENT = 'cobweb-test/1.0 (+https://example.invalid/bot)';

function expectSuccess(outcome: FetchOutcome): FetchSuccess {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error}: ${outcome.message}`);
  return outcome;
}

describe('Fetcher: ordinary exchanges', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(server: TestServer, options: Partial<ConstructorParameters<typeof Fetcher>[0]> = {}) {
    const fetcher = new Fetcher({ userAgent: USER_AGENT, totalTimeoutMs: 5000, ...options });
    cleanups.push(
      () => server.close(),
      () => fetcher.close(),
    );
    return fetcher;
  }

  it('returns status, headers, body and the raw heads of a plain page', async () => {
    const server = await startHttpServer((_request, response) => {
      response.setHeader('Content-Type', 'text/html; charset=utf-8');
      response.setHeader('X-Custom-Header', 'Mixed-Case');
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.setHeader('Content-Length', '18');
      response.writeHead(200, 'Fine Thanks');
      response.end('<p>hello world</p>');
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/some/path?q=1&r=two#fragment')));

    expect(result.url).toBe(server.url('/some/path?q=1&r=two#fragment'));
    expect(result.status).toBe(200);
    expect(result.statusText).toBe('Fine Thanks');
    expect(result.contentType).toBe('text/html; charset=utf-8');
    expect(result.headers['x-custom-header']).toBe('Mixed-Case');
    expect(result.headers['set-cookie']).toBe('a=1, b=2');
    expect(result.body.toString()).toBe('<p>hello world</p>');
    expect(result.exchange.rawBody.toString()).toBe('<p>hello world</p>');
    expect(result.exchange.remoteAddress).toBe('127.0.0.1');
    expect(result.startedAt).toBeInstanceOf(Date);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);

    const responseHead = result.exchange.responseHead.toString('latin1');
    expect(responseHead.startsWith('HTTP/1.1 200 Fine Thanks\r\n')).toBe(true);
    expect(responseHead.endsWith('\r\n\r\n')).toBe(true);
    // Original case and order, repeated headers kept as separate lines.
    const names = responseHead
      .split('\r\n')
      .slice(1, -2)
      .map((line) => line.slice(0, line.indexOf(':')));
    expect(names.slice(0, 5)).toEqual([
      'Content-Type',
      'X-Custom-Header',
      'Set-Cookie',
      'Set-Cookie',
      'Content-Length',
    ]);
    expect(responseHead).toContain('\r\nX-Custom-Header: Mixed-Case\r\n');

    const requestHead = result.exchange.requestHead.toString('latin1');
    expect(requestHead.startsWith('GET /some/path?q=1&r=two HTTP/1.1\r\n')).toBe(true);
    expect(requestHead).toContain(`\r\nuser-agent: ${USER_AGENT}\r\n`);
    expect(requestHead).toContain(`\r\nhost: 127.0.0.1:${server.port}\r\n`);
    expect(requestHead).toContain('\r\naccept-encoding: gzip, deflate, br\r\n');
    expect(requestHead.endsWith('\r\n\r\n')).toBe(true);
  });

  it('sends exactly the request head it reports', async () => {
    let seenHead = '';
    const server = await startRawServer((socket) => {
      onRequestHead(socket, (head) => {
        seenHead = head;
        socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
      });
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/exact')));

    expect(result.status).toBe(204);
    expect(result.body.length).toBe(0);
    expect(result.exchange.requestHead.toString('latin1')).toBe(seenHead);
    expect(seenHead).toContain('\r\naccept: text/html,application/xhtml+xml,*/*;q=0.8\r\n');
  });

  it("counts the server's time as the response time, not the name lookup or connecting before it", async () => {
    // Timers never fire early (1 ms of rounding aside): the lookup takes at least
    // LOOKUP_MS and the server answers no sooner than ANSWER_MS after the request came.
    const LOOKUP_MS = 150;
    const ANSWER_MS = 60;
    const server = await startHttpServer((_request, response) => {
      setTimeout(() => response.end('late'), ANSWER_MS);
    });
    const slowDns = new DnsCache({
      resolver: async () => {
        await new Promise((resolve) => setTimeout(resolve, LOOKUP_MS));
        return { addresses: [{ address: '127.0.0.1', family: 4 }], ttlSeconds: 300 };
      },
    });
    const fetcher = await setup(server, { dnsCache: slowDns });

    const page = expectSuccess(await fetcher.fetch(server.url('/').replace('127.0.0.1', 'slow-dns.test')));

    expect(page.responseMs).toBeGreaterThanOrEqual(ANSWER_MS - 1);
    expect(page.durationMs - page.responseMs).toBeGreaterThanOrEqual(LOOKUP_MS - 1);
  });

  it('reuses one keep-alive connection for two fetches to the same server', async () => {
    const server = await startHttpServer((request, response) => response.end(`page ${request.url}`));
    const fetcher = await setup(server);

    const first = expectSuccess(await fetcher.fetch(server.url('/one')));
    const second = expectSuccess(await fetcher.fetch(server.url('/two')));

    expect(first.body.toString()).toBe('page /one');
    expect(second.body.toString()).toBe('page /two');
    expect(server.connections()).toBe(1);
  });

  it('opens no more than connectionsPerOrigin connections to one origin', async () => {
    const server = await startHttpServer((request, response) => {
      // Hold each response briefly so that the fetches overlap.
      setTimeout(() => response.end(`page ${request.url}`), 30);
    });
    const fetcher = await setup(server, { connectionsPerOrigin: 2 });

    const results = await Promise.all(
      ['/a', '/b', '/c', '/d', '/e', '/f'].map((path) => fetcher.fetch(server.url(path))),
    );

    expect(results.map((result) => expectSuccess(result).body.toString())).toEqual([
      'page /a',
      'page /b',
      'page /c',
      'page /d',
      'page /e',
      'page /f',
    ]);
    expect(server.connections()).toBe(2);
  });

  it('returns a 301 as it is, without following Location', async () => {
    const requested: string[] = [];
    const server = await startHttpServer((request, response) => {
      requested.push(request.url ?? '');
      response.writeHead(301, { Location: '/elsewhere' });
      response.end('moved');
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/old')));

    expect(result.status).toBe(301);
    expect(result.headers.location).toBe('/elsewhere');
    expect(result.body.toString()).toBe('moved');
    expect(requested).toEqual(['/old']);
  });

  it('de-chunks a chunked body and leaves Transfer-Encoding out of the stored head', async () => {
    const server = await startHttpServer((_request, response) => {
      response.setHeader('Content-Type', 'text/plain');
      response.write('first chunk, ');
      setImmediate(() => response.end('second chunk'));
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/chunked')));

    expect(result.headers['transfer-encoding']).toBe('chunked');
    expect(result.body.toString()).toBe('first chunk, second chunk');
    expect(result.exchange.rawBody.toString()).toBe('first chunk, second chunk');
    const responseHead = result.exchange.responseHead.toString('latin1');
    expect(responseHead.toLowerCase()).not.toContain('transfer-encoding');
    expect(responseHead).toContain('\r\nContent-Type: text/plain\r\n');
  });

  it('skips an interim 103 response and returns the final one', async () => {
    const server = await startRawServer((socket) => {
      onRequestHead(socket, () => {
        socket.end(
          'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n' +
            'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfinal',
        );
      });
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/')));

    expect(result.status).toBe(200);
    expect(result.body.toString()).toBe('final');
    expect(result.exchange.responseHead.toString('latin1')).toBe(
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n',
    );
  });

  it('connects to the --resolve address while keeping the URL host in the Host header', async () => {
    let seenHost: string | undefined;
    const server = await startHttpServer((request, response) => {
      seenHost = request.headers.host;
      response.end('site a');
    }, '127.0.0.2');
    const fetcher = await setup(server, { resolve: new Map([[`site-a.test:${server.port}`, '127.0.0.2']]) });
    const url = `http://site-a.test:${server.port}/`;

    const result = expectSuccess(await fetcher.fetch(url));

    expect(result.body.toString()).toBe('site a');
    expect(seenHost).toBe(`site-a.test:${server.port}`);
    expect(result.url).toBe(url);
    expect(result.exchange.remoteAddress).toBe('127.0.0.2');
    expect(result.exchange.requestHead.toString('latin1')).toContain(
      `\r\nhost: site-a.test:${server.port}\r\n`,
    );
  });

  it('decodes UTF-8 in header values (a Location with non-ASCII characters)', async () => {
    const server = await startRawServer((socket) => {
      onRequestHead(socket, () => {
        socket.end(
          Buffer.concat([
            Buffer.from('HTTP/1.1 302 Found\r\nLocation: /caf', 'latin1'),
            Buffer.from('é', 'utf8'),
            Buffer.from('\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', 'latin1'),
          ]),
        );
      });
    });
    const fetcher = await setup(server);

    const result = expectSuccess(await fetcher.fetch(server.url('/')));

    expect(result.headers.location).toBe('/café');
  });

  it('fails an unusable URL without throwing', async () => {
    const fetcher = new Fetcher({ userAgent: USER_AGENT });
    cleanups.push(() => fetcher.close());

    const invalid = await fetcher.fetch('not a url');
    const ftp = await fetcher.fetch('ftp://127.0.0.1/file');

    expect(invalid).toMatchObject({ ok: false, error: 'network', url: 'not a url' });
    expect(ftp).toMatchObject({ ok: false, error: 'network', message: 'unsupported scheme ftp:' });
  });

  it('sends nothing once a request is past its start deadline, and sends it before', async () => {
    let requests = 0;
    const server = await startHttpServer((_request, response) => {
      requests++;
      response.end('ok');
    });
    const fetcher = await setup(server);

    const late = await fetcher.fetch(server.url('/late'), undefined, Date.now() - 1);
    expect(late).toMatchObject({ ok: false, error: 'late' });
    const onTime = expectSuccess(await fetcher.fetch(server.url('/on-time'), undefined, Date.now() + 60_000));
    expect(onTime.body.toString()).toBe('ok');
    // The server saw the one on time only.
    expect(requests).toBe(1);
  });
});
