import { mkdirSync } from 'node:fs';
import type { Feed } from '../console/feed.js';
import type { StoreCall } from '../frontier/timed.js';
import type { ModuleHost } from '../modules/module-host.js';
import type { EventLog } from '../output/crawl-log.js';
import type { PageRecord } from '../output/pages-log.js';
import { DEFAULT_CRAWL } from '../protocol/index.js';
import type { BackoffStep } from './backoff.js';
import type { CrawlService } from './crawl-service.js';
import { type CrawlOpener, type HeldCrawl, ServerCrawls } from './crawls.js';
import { CobwebServer } from './server.js';
import type { SessionLimits } from './session.js';

export interface ServerSetup {
  /** The server's data folder: the default crawl's, and the parent of the others' (crawls/NAME). */
  root: string;
  /** Opens one crawl: its store, rules, bunny settings and module data files. */
  openCrawl: CrawlOpener;
  /** The server's own crawl (--crawl), opened at start: the one a connection works on when it names none. */
  crawl?: string;
  modules: ModuleHost;
  host: string;
  port: number;
  token: string;
  /** Every packet needs the token, also on loopback (it always does elsewhere). */
  tokenOnEveryPacket?: boolean;
  modulesDir: string | null;
  backoff: readonly BackoffStep[];
  leaseMs: number;
  limits: SessionLimits;
  maxConnections: number;
  log: EventLog;
  onQuit?: () => void;
  /** Time every store call into this feed (the console's --http). */
  storeCalls?: Feed<StoreCall>;
}

export interface RunningServer {
  server: CobwebServer;
  crawls: ServerCrawls;
  /** The server's own crawl (--crawl; the data folder's when it is the default one). */
  crawl: HeldCrawl;
  /** The own crawl's service. */
  service: CrawlService;
  /** The own crawl's pages.jsonl lines, as the server writes them. */
  lines: Feed<readonly PageRecord[]>;
  /** Stops the server and closes the crawls it opened (not the modules: the caller's). */
  close(): Promise<void>;
}

/** Wires a server around its crawls: their outputs in their folders, its sessions, its control commands. */
export async function startServer(setup: ServerSetup): Promise<RunningServer> {
  mkdirSync(setup.root, { recursive: true });
  const crawls = new ServerCrawls(
    {
      root: setup.root,
      own: setup.crawl ?? DEFAULT_CRAWL,
      modules: setup.modules,
      backoff: setup.backoff,
      leaseMs: setup.leaseMs,
      log: setup.log,
      storeCalls: setup.storeCalls,
    },
    setup.openCrawl,
  );
  try {
    const crawl = (await crawls.get(crawls.own, true)) as HeldCrawl;
    const server = await CobwebServer.start({
      host: setup.host,
      port: setup.port,
      crawls,
      modules: setup.modules,
      modulesDir: setup.modulesDir,
      token: setup.token,
      ...(setup.tokenOnEveryPacket === undefined ? {} : { tokenOnEveryPacket: setup.tokenOnEveryPacket }),
      limits: setup.limits,
      maxConnections: setup.maxConnections,
      log: setup.log,
      ...(setup.onQuit === undefined ? {} : { onQuit: setup.onQuit }),
    });
    return {
      server,
      crawls,
      crawl,
      service: crawl.service,
      lines: crawl.lines,
      close: async () => {
        await server.stop();
        await crawls.close();
      },
    };
  } catch (err) {
    await crawls.close();
    throw err;
  }
}
