import { mkdirSync } from 'node:fs';
import type { DataLayout } from '../bunny/data-dir.js';
import type { LinkRules } from '../bunny/links.js';
import type { ModuleDataFiles } from '../bunny/module-data.js';
import type { LogLevel } from '../bunny/options.js';
import type { LocalFrontier } from '../frontier/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import { PagesLog } from '../output/pages-log.js';
import type { JsonObject } from '../protocol/index.js';
import { type BackoffStep, ProbabilityBackoff } from './backoff.js';
import { CrawlService } from './crawl-service.js';
import { CobwebServer } from './server.js';
import type { SessionLimits } from './session.js';
import { SiteBook } from './site-book.js';

export interface ServerSetup {
  layout: DataLayout;
  /** The module data files that are cobweb's (openDataDir's). */
  moduleData: ModuleDataFiles;
  store: LocalFrontier;
  modules: ModuleHost;
  host: string;
  port: number;
  token: string;
  modulesDir: string | null;
  rules: LinkRules;
  skipSubstrings: readonly string[];
  backoff: readonly BackoffStep[];
  /** What WELCOME tells bunnies to use (their link rules, retries, robots). */
  settings: JsonObject;
  leaseMs: number;
  limits: SessionLimits;
  maxConnections: number;
  log: (line: string, level?: LogLevel) => void;
  onQuit?: () => void;
}

export interface RunningServer {
  server: CobwebServer;
  service: CrawlService;
  /** Stops the server and closes what it opened (not the store or the modules: the caller's). */
  close(): Promise<void>;
}

/** Wires a server around a store: its outputs in the data folder, its sessions, its control commands. */
export async function startServer(setup: ServerSetup): Promise<RunningServer> {
  mkdirSync(setup.layout.root, { recursive: true });
  const pages = new PagesLog(setup.layout.pages);
  const service = new CrawlService({
    store: setup.store,
    pages,
    moduleData: setup.moduleData,
    sites: new SiteBook(setup.layout.sites),
    modules: setup.modules,
    rules: setup.rules,
    skipSubstrings: setup.skipSubstrings,
    backoff: new ProbabilityBackoff(setup.backoff),
    settings: setup.settings,
    leaseMs: setup.leaseMs,
    log: setup.log,
  });
  const server = await CobwebServer.start({
    host: setup.host,
    port: setup.port,
    service,
    dataDir: setup.layout.root,
    modulesDir: setup.modulesDir,
    token: setup.token,
    limits: setup.limits,
    maxConnections: setup.maxConnections,
    ...(setup.onQuit === undefined ? {} : { onQuit: setup.onQuit }),
  });
  return {
    server,
    service,
    close: async () => {
      await server.stop();
      pages.close();
    },
  };
}
