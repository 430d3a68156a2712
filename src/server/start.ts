import { mkdirSync } from 'node:fs';
import type { DataLayout } from '../bunny/data-dir.js';
import type { LinkRules } from '../bunny/links.js';
import type { ModuleDataFiles } from '../bunny/module-data.js';
import type { LogLevel } from '../bunny/options.js';
import { Feed } from '../console/feed.js';
import { type StoreCall, timedStore } from '../frontier/timed.js';
import type { LocalFrontier } from '../frontier/types.js';
import type { ModuleHost } from '../modules/module-host.js';
import { type PageRecord, PagesLog } from '../output/pages-log.js';
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
  /** Every packet needs the token, also on loopback (it always does elsewhere). */
  tokenOnEveryPacket?: boolean;
  modulesDir: string | null;
  rules: LinkRules;
  backoff: readonly BackoffStep[];
  /** What WELCOME tells bunnies to use (their link rules, retries, robots). */
  settings: JsonObject;
  leaseMs: number;
  limits: SessionLimits;
  maxConnections: number;
  log: (line: string, level?: LogLevel) => void;
  onQuit?: () => void;
  /** Time every store call into this feed (the console's --http). */
  storeCalls?: Feed<StoreCall>;
}

export interface RunningServer {
  server: CobwebServer;
  service: CrawlService;
  /** The pages.jsonl lines, as the server writes them. */
  lines: Feed<readonly PageRecord[]>;
  /** Stops the server and closes what it opened (not the store or the modules: the caller's). */
  close(): Promise<void>;
}

/** Wires a server around a store: its outputs in the data folder, its sessions, its control commands. */
export async function startServer(setup: ServerSetup): Promise<RunningServer> {
  mkdirSync(setup.layout.root, { recursive: true });
  const pages = new PagesLog(setup.layout.pages);
  const lines = new Feed<readonly PageRecord[]>();
  const calls = setup.storeCalls;
  const service = new CrawlService({
    store: calls === undefined ? setup.store : timedStore(setup.store, (call) => calls.emit(call)),
    pages: {
      append(records) {
        pages.append(records);
        lines.emit(records);
      },
    },
    moduleData: setup.moduleData,
    sites: new SiteBook(setup.layout.sites),
    modules: setup.modules,
    rules: setup.rules,
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
    ...(setup.tokenOnEveryPacket === undefined ? {} : { tokenOnEveryPacket: setup.tokenOnEveryPacket }),
    limits: setup.limits,
    maxConnections: setup.maxConnections,
    ...(setup.onQuit === undefined ? {} : { onQuit: setup.onQuit }),
  });
  return {
    server,
    service,
    lines,
    close: async () => {
      await server.stop();
      pages.close();
    },
  };
}
