import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The site a conformance run crawls: one web server on loopback with the cases a bunny
 * must get right, each URL found on one page only (so that every line's depth and `via`
 * are the same whatever order a bunny fetches in). What each case checks:
 *
 * - `/`: title whitespace, `<a>` and `<area>` followed, a stylesheet `<link>` not, a
 *   `rel=nofollow` link counted but not followed, a fragment and a `mailto:` not counted,
 *   a form, odd escapes and a non-ASCII path to canonicalize, links refused by scope,
 *   by extension and by robots.txt, and a link to a port where nothing listens.
 * - redirects (relative, and out of scope), a 404 whose title is kept and whose links are
 *   not followed, a 503 with Retry-After that answers the second time, a text page, a
 *   response without Content-Type, `<base href>`, meta robots nofollow, and `/many/`,
 *   whose links make a COMPLETE too large for one packet.
 */
export interface ConformanceWeb {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Paths asked for since the last reset, robots.txt included, in order. */
  readonly requests: string[];
  /** A new run: the log emptied, the 503 page flaky again. */
  reset(): void;
  close(): Promise<void>;
}

/** Links of /many/: long enough that one page's outlinks do not fit in a 64 KiB packet. */
export const MANY = 300;
const LONG = 'x'.repeat(180);

function html(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}

export async function startConformanceWeb(deadPort: number): Promise<ConformanceWeb> {
  const requests: string[] = [];
  let flakyAsked = 0;
  const dead = `http://127.0.0.1:${deadPort}`;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    requests.push(path);
    switch (path) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /private/\n');
        return;
      case '/':
        html(
          res,
          200,
          `<!doctype html><html><head><title>
   Conformance\t  home
</title><link rel="stylesheet" href="/style.css"></head><body>
<a href="/text">text</a> <a href="/text#again">again</a>
<map><area href="/area" alt="area"></map>
<a rel="nofollow" href="/nofollowed">nofollow</a>
<a href="mailto:someone@example.com">mail</a>
<a href="/redirect">redirect</a> <a href="/away">away</a>
<a href="/missing">404</a> <a href="/flaky">503</a>
<a href="/private/secret">robots</a>
<a href="http://127.0.0.3:9/elsewhere">elsewhere</a>
<a href="/photo.JPG">photo</a>
<a href="/odd%7eescape/%2fslash?q=%41&amp;r=%zz">escapes</a>
<a href="/caf\u00e9/\u00fcber">non-ASCII</a>
<a href="/untyped">no type</a>
<a href="${dead}/down">down</a>
<a href="/many/">many</a>
<form action="/search"><input name="q"></form>
</body></html>`,
        );
        return;
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('not <a href="/never-from-text">html</a>\n');
        return;
      case '/area':
        html(
          res,
          200,
          '<html><head><base href="/sub/"><title>Area</title></head><a href="rel">rel</a></html>',
        );
        return;
      case '/sub/rel':
        html(
          res,
          200,
          '<html><head><meta name="robots" content="NOFOLLOW"><title>No follow</title></head><a href="/never">x</a></html>',
        );
        return;
      case '/redirect':
        res.writeHead(301, { location: 'landed?from=redirect' });
        res.end();
        return;
      case '/landed?from=redirect':
        html(res, 200, '<title>Landed</title><p>after a redirect');
        return;
      case '/away':
        res.writeHead(302, { location: 'http://127.0.0.3:9/away-target' });
        res.end();
        return;
      case '/missing':
        html(res, 404, '<title> Not  here </title><a href="/from-404">not followed</a>');
        return;
      case '/flaky':
        flakyAsked++;
        if (flakyAsked === 1) {
          html(res, 503, '<title>Busy</title>', { 'retry-after': '1' });
          return;
        }
        html(res, 200, '<title>Flaky, then fine</title>');
        return;
      case '/untyped':
        res.writeHead(200);
        res.end('no content type');
        return;
      case '/many/':
        html(
          res,
          200,
          `<title>Many</title>${Array.from({ length: MANY }, (_, i) => `<a href="/many/${LONG}-${i}">${i}</a>`).join('\n')}`,
        );
        return;
      default:
        if (path.startsWith('/many/')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('one of many');
          return;
        }
        if (path === '/odd~escape/%2Fslash?q=A&r=%zz' || path === '/caf%C3%A9/%C3%BCber') {
          html(res, 200, `<title>${decodeURIComponent(path.split('?')[0] as string)}</title>`);
          return;
        }
        html(res, 404, '<title>Unknown</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    reset() {
      requests.length = 0;
      flakyAsked = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
