// Serves the fixture site of bench/render in its own process, so that serving does not
// share an event loop with a contender.
//
//   node serve.js '{"mode":"script","pages":400,"host":"127.0.0.5"}'
//
// Prints one line {"origin":"http://..."} once it listens; serves until stdin closes.
import { createServer } from 'node:http';
import { APP_JS, indexOfPath, renderSitePage, SITE_CSS, type SiteMode } from './site.js';

interface ServeOptions {
  mode: SiteMode;
  pages: number;
  host: string;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const send = (status: number, type: string, body: string, cache = 'no-cache'): void => {
    res.writeHead(status, { 'content-type': type, 'cache-control': cache });
    res.end(body);
  };
  if (path === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
  // Assets as a site's build would serve them: cached by the browser for the crawl's length.
  if (path === '/assets/app.js') return send(200, 'text/javascript', APP_JS, 'max-age=3600');
  if (path === '/assets/site.css') return send(200, 'text/css', SITE_CSS, 'max-age=3600');
  const index = indexOfPath(options.mode, options.pages, path);
  if (index === undefined) return send(404, 'text/plain', 'not found');
  send(200, 'text/html; charset=utf-8', renderSitePage(options.mode, options.pages, index));
});
server.keepAliveTimeout = 30_000;
server.listen(0, options.host, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.stdout.write(`${JSON.stringify({ origin: `http://${options.host}:${address.port}` })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
