import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkRules } from '../../src/bunny/links.js';
import { ModuleDataFiles } from '../../src/data-dir/module-data.js';
import { SqliteFrontier } from '../../src/frontier/sqlite/sqlite-frontier.js';
import type { FrontierSettings, LocalFrontier } from '../../src/frontier/types.js';
import { ModuleHost } from '../../src/modules/module-host.js';
import type { EventLog } from '../../src/output/crawl-log.js';
import type { BackoffStep } from '../../src/server/backoff.js';
import type { CrawlOpener } from '../../src/server/crawls.js';
import { DEFAULT_LIMITS } from '../../src/server/server.js';
import type { SessionLimits } from '../../src/server/session.js';
import { type RunningServer, startServer } from '../../src/server/start.js';
import { createUrlFilter, type ScopeMode } from '../../src/url/filter.js';
import type { TrapLimits } from '../../src/url/traps.js';
import { TEST_SETTINGS } from './frontier-settings.js';

export interface TestServerOptions {
  settings?: Partial<FrontierSettings>;
  now?: () => number;
  token?: string;
  /** Every packet needs the token, as on an address that is not loopback. */
  tokenOnEveryPacket?: boolean;
  modules?: string[];
  modulesDir?: string | null;
  skipSubstrings?: string[];
  /** Extensions the server's filter refuses (none by default). */
  skipExtensions?: string[];
  /** --backoff: none by default. */
  backoff?: BackoffStep[];
  /** Scope and its seeds: `any` by default. */
  scope?: ScopeMode;
  seeds?: string[];
  /** Trap limits: generous by default. */
  traps?: Partial<TrapLimits>;
  limits?: Partial<SessionLimits>;
  maxConnections?: number;
  dir?: string;
  /** The server's log lines (none kept by default). */
  log?: EventLog;
  /** The port to listen on (a restart where clients know it); one the system picks by default. */
  port?: number;
}

export interface InProcessServer extends RunningServer {
  dir: string;
  store: LocalFrontier;
  port: number;
  /** Stops the server, closes its store and modules, and removes its folder. */
  dispose(): Promise<void>;
}

/** A cobweb server in this process on a fresh SQLite store, on 127.0.0.1 and a free port. */
export async function startTestServer(options: TestServerOptions = {}): Promise<InProcessServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'cobweb-server-'));
  const modules = ModuleHost.start({
    paths: options.modules ?? [],
    dataDir: join(dir, 'data'),
    timeoutMs: 5000,
    log: () => {},
  });
  await modules.loaded;
  const rules: LinkRules = {
    filter: createUrlFilter({
      scope: options.scope ?? 'any',
      seeds: options.seeds ?? [],
      include: [],
      exclude: [],
      skipExtensions: options.skipExtensions ?? [],
      skipSubstrings: options.skipSubstrings ?? [],
    }),
    traps: { maxPathSegments: 50, maxSegmentRepeats: 10, maxQueryParams: 50, ...options.traps },
    maxDepth: 100,
    maxRedirects: 20,
  };
  // Every crawl of the server on its own fresh store, in its own folder (crawls/NAME).
  const openCrawl: CrawlOpener = async (_name, layout) => {
    mkdirSync(layout.root, { recursive: true });
    writeFileSync(layout.marker, '{}');
    const store = new SqliteFrontier(layout.store, { ...TEST_SETTINGS, ...options.settings }, options.now);
    return {
      store,
      rules,
      settings: {},
      // The files are claimed, and there is no list to save.
      moduleData: new ModuleDataFiles(layout, modules.names, () => {}),
      close: async () => store.close(),
    };
  };
  const running = await startServer({
    root: dir,
    openCrawl,
    modules,
    host: '127.0.0.1',
    port: options.port ?? 0,
    token: options.token ?? 'test-token',
    tokenOnEveryPacket: options.tokenOnEveryPacket ?? false,
    modulesDir: options.modulesDir ?? null,
    backoff: options.backoff ?? [],
    leaseMs: TEST_SETTINGS.leaseMs,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    maxConnections: options.maxConnections ?? 100,
    log: options.log ?? (() => {}),
  });
  return {
    ...running,
    dir,
    store: running.crawl.service.store,
    port: running.server.address.port,
    async dispose() {
      await running.close();
      await modules.close();
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
