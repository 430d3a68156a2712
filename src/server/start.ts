import { mkdirSync } from 'node:fs';
import type { ModuleHost } from '../modules/module-host.js';
import { DEFAULT_CRAWL } from '../protocol/index.js';
import type { BackoffStep } from './backoff.js';
import { type CrawlOpener, type HeldCrawl, ServerCrawls } from './crawls.js';
import { CobwebServer } from './server.js';
import type { SessionLimits } from './session.js';

export interface ServerSetup {
  /** The server's data folder: the default crawl's, and the parent of the others' (crawls/NAME). */
  root: string;
  /** Opens one crawl in its folder: its store, rules and bunny settings. */
  openCrawl: CrawlOpener;
  /** Crawls opened at start, besides the default one (which always is). */
  crawls?: readonly string[];
  modules: ModuleHost;
  host: string;
  port: number;
  token: string;
  modulesDir: string | null;
  skipSubstrings: readonly string[];
  backoff: readonly BackoffStep[];
  leaseMs: number;
  limits: SessionLimits;
  maxConnections: number;
  log: (line: string) => void;
  onQuit?: () => void;
}

export interface RunningServer {
  server: CobwebServer;
  crawls: ServerCrawls;
  /** The default crawl (the data folder's own). */
  crawl: HeldCrawl;
  /** Stops the server and closes the crawls it opened (not the modules: the caller's). */
  close(): Promise<void>;
}

/** Wires a server around its crawls: their outputs in their folders, its sessions, its control commands. */
export async function startServer(setup: ServerSetup): Promise<RunningServer> {
  mkdirSync(setup.root, { recursive: true });
  const crawls = new ServerCrawls(
    {
      root: setup.root,
      modules: setup.modules,
      skipSubstrings: setup.skipSubstrings,
      backoff: setup.backoff,
      leaseMs: setup.leaseMs,
      log: setup.log,
    },
    setup.openCrawl,
  );
  try {
    const crawl = (await crawls.get(DEFAULT_CRAWL, true)) as HeldCrawl;
    for (const name of setup.crawls ?? []) await crawls.get(name, true);
    const server = await CobwebServer.start({
      host: setup.host,
      port: setup.port,
      crawls,
      modules: setup.modules,
      modulesDir: setup.modulesDir,
      token: setup.token,
      limits: setup.limits,
      maxConnections: setup.maxConnections,
      ...(setup.onQuit === undefined ? {} : { onQuit: setup.onQuit }),
    });
    return {
      server,
      crawls,
      crawl,
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
