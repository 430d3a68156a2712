import { type Handler, page, routes, serve, type TestServer } from './http.js';

/**
 * A small web for console tests: `hosts` sites on 127.0.0.x, each a chain of `pages`
 * pages (every page links to the next and back to the first), with a robots.txt.
 */
export async function startTestWeb(addresses: readonly string[], pages: number): Promise<TestServer[]> {
  const sites: TestServer[] = [];
  for (const address of addresses) {
    const table: Record<string, string | Handler> = {
      '/robots.txt': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      },
    };
    for (let i = 0; i < pages; i++) {
      const links = [i + 1 < pages ? `/p${i + 1}` : '/', '/'];
      table[i === 0 ? '/' : `/p${i}`] = page(`${address} page ${i}`, links);
    }
    sites.push(await serve(address, routes(table)));
  }
  return sites;
}

/** Requests a site got, robots.txt included. */
export function requestCount(sites: readonly TestServer[]): number {
  return sites.reduce((n, s) => n + s.log.length, 0);
}
