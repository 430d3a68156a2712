import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { StoreCall } from '../frontier/timed.js';
import type { PageRecord } from '../output/pages-log.js';
import type { ConsoleAccess } from './access.js';
import type { Feed } from './feed.js';
import { route } from './http.js';
import { LineStats } from './line-stats.js';
import { Metrics } from './metrics.js';
import { pacedHosts } from './paced-hosts.js';
import { Sampler } from './sampler.js';
import { SseClients } from './sse.js';
import { type Status, statusOf } from './status.js';
import type { ConsoleSource, ConsoleState } from './types.js';

export interface ConsoleSetup {
  source: ConsoleSource;
  /** Every batch of pages.jsonl lines, as it is written. */
  lines: Feed<readonly PageRecord[]>;
  /** Every call on the store, timed. */
  storeCalls: Feed<StoreCall>;
  host: string;
  port: number;
  token: string;
  /** Where the token is, for the page and for refusals. */
  tokenHint: string;
  /** Who may read, and by which names (src/console/access.ts). */
  access: ConsoleAccess;
  /** Where a refused Host or Origin is told (one line each, the first time). */
  warn(line: string): void;
}

/** A console serving; `finish()` shows the crawl's end to the pages watching, `close()` stops it. */
export interface RunningConsole {
  /** http://HOST:PORT/ (the port the system picked, for port 0). */
  url: string;
  /** Every request needs the token (an address off loopback), not only the actions. */
  tokenOnEveryRequest: boolean;
  finish(stoppedBy: string): Promise<void>;
  close(): Promise<void>;
}

/** How often the page gets news, and the charts a point. */
const TICK_MS = 1000;
/** Lines of the live tail a page gets when it opens. */
const FIRST_TAIL = 30;
/** Refused Hosts and Origins told once each, up to this many: a page retrying in a loop cannot fill the log. */
const MAX_TOLD = 100;

/**
 * The console of a crawl or a server: an HTTP server on the process itself with the
 * page (`/`), `/metrics`, `/status`, the page's event stream (`/events`) and its
 * actions. It knows the crawl only through the source's snapshot and the feeds.
 */
export async function startConsole(setup: ConsoleSetup): Promise<RunningConsole> {
  const source: ConsoleSource = { ...setup.source, snapshot: pacedHosts(setup.source) };
  const lines = new LineStats();
  const startedAt = Date.now();
  const metrics = new Metrics(source.kind, lines, () => source.snapshot(true));
  const offLines = setup.lines.on((batch) => {
    lines.add(batch);
    metrics.observeLines(batch);
  });
  const offStore = setup.storeCalls.on((call) => metrics.observeStore(call));
  const sampler = new Sampler(source, lines);
  const clients = new SseClients();
  let finished: string | null = null;
  let tailSent = 0;

  const status = (snapshot = sampler.latest): Status | null => {
    if (snapshot === null) return null;
    const state: ConsoleState = finished === null ? snapshot.state : 'finished';
    return statusOf({
      kind: source.kind,
      state,
      stoppedBy: finished,
      startedAt,
      snapshot,
      lines,
      pagesPerSecond: sampler.pagesPerSecond,
      bunnyRates: sampler.bunnyRates,
    });
  };
  // A page that opens gets the hosts at once (the ticks read them only while someone
  // watches), not an empty Busiest hosts until the next tick.
  const hello = async () => ({
    kind: source.kind,
    tokenHint: setup.tokenHint,
    status: status(await source.snapshot(true)),
    history: sampler.history,
    tail: lines.tailAfter(lines.lines - FIRST_TAIL),
  });

  let sampling: Promise<void> | null = null;
  const tick = () => {
    sampling ??= (async () => {
      try {
        const point = await sampler.sample(clients.size > 0);
        const tail = lines.tailAfter(tailSent);
        tailSent = lines.lines;
        clients.send('tick', { status: status(), point, tail });
      } catch {
        // the source is closing: the next tick, or finish(), says the rest
      } finally {
        sampling = null;
      }
    })();
    return sampling;
  };
  await tick();
  const timer = setInterval(() => void tick(), TICK_MS);
  timer.unref();

  const told = new Set<string>();
  const refused = (what: string, from: string) => {
    if (told.has(what) || told.size > MAX_TOLD) return;
    told.add(what);
    setup.warn(
      told.size > MAX_TOLD
        ? `console: refused ${MAX_TOLD} different names or origins; no more are told`
        : `console: refused a request from ${from} for ${what}: not this console's own (a page rebinding its name to this address?); --http-allow-host NAME lets a name in`,
    );
  };
  let port = setup.port;
  const server: Server = createServer((req, res) => {
    route(req, res, {
      metrics: async () => ({ type: metrics.contentType, text: await metrics.render() }),
      status: async () => status(await source.snapshot(true)),
      events: async (res) => clients.add(res, { event: 'hello', data: await hello() }),
      actions: source.actions,
      token: setup.token,
      tokenHint: setup.tokenHint,
      listenHost: setup.host,
      port,
      access: setup.access,
      refused,
    }).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(setup.port, setup.host);
  await once(server, 'listening');
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : setup.port;
  const shown = setup.host.includes(':') ? `[${setup.host}]` : setup.host;

  let closed: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}/`,
    tokenOnEveryRequest: setup.access.tokenEverywhere,
    async finish(stoppedBy) {
      await sampling;
      await tick();
      finished = stoppedBy;
      clients.send('tick', { status: status(), point: null, tail: [] });
    },
    close() {
      closed ??= (async () => {
        clearInterval(timer);
        await sampling;
        offLines();
        offStore();
        clients.close();
        server.close();
        for (const s of sockets) s.destroy();
        await once(server, 'close').catch(() => {});
      })();
      return closed;
    },
  };
}
