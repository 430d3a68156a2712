// The scale web in its own process (so its CPU is not the crawler's): one HTTP server on
// one loopback address and port, every host answered by its Host header; the crawler
// reaches it with `--resolve *.scale.test:PORT:ADDR`.
//
//   node --import tsx bench/scale/serve.ts '{"web":{"hosts":1000,"pages":10000},"gaps":{...}}'
//
// Prints one line (ServeStarted) once it listens, then answers lines on stdin, one JSON
// line each: "stats" (requests and pages so far), "report" (the full TallyReport),
// "reset" (forget every request: the next set-up starts from nothing). Exits when stdin
// closes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { LinkPlan } from './links.js';
import { renderPage } from './page.js';
import { computeReach } from './reach.js';
import { DEAD_DOMAIN, DOMAIN, MOVED, pagePath, ScaleWeb, type ScaleWebOptions, SLOW } from './shape.js';
import { type GapRule, OTHER, ROBOTS, Tally } from './tally.js';

export interface ServeOptions {
  web: ScaleWebOptions;
  gaps: GapRule;
  /** Loopback address to listen on; default one of 127.77.x.y picked from the pid. */
  address?: string;
}

export interface ServeStarted {
  address: string;
  port: number;
  /** A loopback address where nothing listens: the dead hosts' --resolve target. */
  deadAddress: string;
  /** The --resolve entries a crawler needs. */
  resolve: string[];
  seeds: string[];
  hosts: number;
  totalPages: number;
  reachable: number;
  redirects: number;
  maxDepth: number;
  /** Seconds the BFS over the web took. */
  reachSeconds: number;
}

export interface ServeStats {
  requests: number;
  pages: number;
}

function listen(server: Server, address: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => reject(error);
    server.once('error', failed);
    server.listen(port, address, () => {
      server.off('error', failed);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : port);
    });
  });
}

async function main(): Promise<void> {
  const argument = process.argv[2];
  if (argument === undefined) throw new Error('usage: serve.ts \'{"web":{"hosts":1000,"pages":10000},...}\'');
  const options = JSON.parse(argument) as ServeOptions;
  const web = new ScaleWeb(options.web);
  const reachStarted = performance.now();
  const reach = computeReach(web);
  const reachSeconds = (performance.now() - reachStarted) / 1000;
  let tally = new Tally(web, reach, options.gaps);
  // Flaky pages answered once already (their next request gets the page).
  let flakyServed = new Set<number>();
  const plan = new LinkPlan();
  let port = 0;

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const at = performance.now();
    const host = web.hostOf(req.headers.host);
    const path = req.url ?? '/';
    const known = host < 0 ? -1 : web.pageOf(host, path);
    const page = host < 0 ? OTHER : path === '/robots.txt' ? ROBOTS : known < 0 ? OTHER : known;
    tally.arrived(host, page, at);
    const send = (status: number, headers: Record<string, string>, body: string): void => {
      tally.answered(host, page, status);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(body);
    };
    const respond = (): void => {
      if (page === OTHER) {
        send(404, {}, 'not found\n');
        return;
      }
      if (page === ROBOTS) {
        const robots = web.robotsTxt(host);
        send(robots.status, {}, robots.body);
        return;
      }
      if (web.has(host, MOVED)) {
        const to = web.movedTo(host, page);
        const portPart = port === 80 ? '' : `:${port}`;
        send(301, { location: `http://${web.hostName(to.host)}${portPart}${pagePath(to.page)}` }, 'moved\n');
        return;
      }
      const id = (web.offsets[host] as number) + page;
      if (web.flakyPage(host, page) && !flakyServed.has(id)) {
        flakyServed.add(id);
        send(page % 2 === 0 ? 503 : 429, { 'retry-after': String(web.o.retryAfterSeconds) }, 'busy\n');
        return;
      }
      send(200, { 'content-type': 'text/html; charset=utf-8' }, renderPage(web, port, host, page, plan));
    };
    if (host >= 0 && web.has(host, SLOW)) setTimeout(respond, web.o.slowMs);
    else respond();
  };

  const server = createServer({ keepAliveTimeout: 5000 }, answer);
  const address = options.address ?? `127.77.${(process.pid >> 8) & 255}.${Math.max(1, process.pid & 255)}`;
  // Port 80 when it is free (root, or a port below 1024 allowed): then the web has
  // default-port URL variants (http://h1.scale.test:80/); else any port.
  port = await listen(server, address, 80).catch(() => listen(server, address, 0));
  const deadAddress = address.replace(/^127\.77\./, '127.78.');
  const started: ServeStarted = {
    address,
    port,
    deadAddress,
    resolve: [`*.${DOMAIN}:${port}:${address}`, `*.${DEAD_DOMAIN}:${port}:${deadAddress}`],
    seeds: web.seedUrls((host) => `http://${web.hostName(host)}${port === 80 ? '' : `:${port}`}`),
    hosts: web.o.hosts,
    totalPages: web.totalPages,
    reachable: reach.count,
    redirects: reach.redirects,
    maxDepth: reach.maxDepth,
    reachSeconds,
  };

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const command = line.trim();
    if (command === 'stats') {
      const stats: ServeStats = { requests: tally.requests, pages: tally.pages };
      process.stdout.write(`${JSON.stringify(stats)}\n`);
    } else if (command === 'report') {
      process.stdout.write(`${JSON.stringify(tally.report())}\n`);
    } else if (command === 'reset') {
      tally = new Tally(web, reach, options.gaps);
      flakyServed = new Set();
      process.stdout.write('{"reset":true}\n');
    }
  });
  lines.on('close', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify(started)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`scale web: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
