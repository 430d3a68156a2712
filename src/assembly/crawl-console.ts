import type { Crawler } from '../bunny/crawler.js';
import type { LinkRules } from '../bunny/links.js';
import type { Feed } from '../console/feed.js';
import { type RunningConsole, startConsole } from '../console/start.js';
import { serverToken } from '../console/token.js';
import type { ConsoleSource, SeedsAdded } from '../console/types.js';
import type { DataLayout } from '../data-dir/layout.js';
import type { StoreCall } from '../frontier/timed.js';
import type { FrontierHosts, LocalFrontier } from '../frontier/types.js';
import type { ModuleStats } from '../modules/api.js';
import { parseHostPort } from '../options/option-kinds.js';
import type { PageRecord } from '../output/pages-log.js';
import { accessWarning, consoleAccessOf } from './console-access.js';
import { judgeSeeds } from './revisit.js';

/** The busiest hosts the page shows. */
const BUSIEST = 15;

export interface CrawlConsoleParts {
  /** --http HOST:PORT. */
  http: string;
  /** --http-allow-host, --metrics-open. */
  httpAllowHost: readonly string[] | undefined;
  metricsOpen: boolean;
  /** Where the console's warnings go. */
  warn(line: string): void;
  layout: DataLayout;
  frontier: LocalFrontier & FrontierHosts;
  run: Crawler;
  rules: LinkRules;
  modules: () => ModuleStats[];
  /** Stops the crawl cleanly, as a signal does; `stopping` says whether it was asked. */
  stop: () => void;
  stopping: () => boolean;
  lines: Feed<readonly PageRecord[]>;
  storeCalls: Feed<StoreCall>;
}

/**
 * The console of `cobweb crawl --http`: the crawl's numbers as plain snapshots, its
 * actions on the crawl loop (pause, resume), the crawl's stop, and seeds through the
 * crawl's own path. The token is the data folder's (`<data>/token`, mode 0600, made
 * when missing; COBWEB_TOKEN overrides it).
 */
export async function startCrawlConsole(parts: CrawlConsoleParts): Promise<RunningConsole> {
  const { frontier, run } = parts;
  const { loop } = run;
  const where = parseHostPort(parts.http);
  if (where === null) throw new Error(`--http ${parts.http} is not HOST:PORT`);
  const { token } = serverToken(parts.layout.root, undefined);
  const access = consoleAccessOf(where.host, parts);
  const warning = accessWarning(access);
  if (warning !== null) parts.warn(warning);
  const source: ConsoleSource = {
    kind: 'crawl',
    snapshot: async (detail) => ({
      state: parts.stopping() ? 'stopping' : loop.isPaused ? 'paused' : 'running',
      store: await frontier.stats(),
      fetching: loop.fetching,
      hosts: detail ? await frontier.hostOverview(BUSIEST) : null,
      modules: parts.modules(),
      warcBytes: run.warcBytes,
      bunnies: null,
      traffic: null,
    }),
    actions: {
      pause: () => loop.pause(),
      resume: () => loop.resume(),
      stop: () => parts.stop(),
      async addSeeds(urls): Promise<SeedsAdded> {
        const judged = judgeSeeds(urls, parts.rules);
        const added = await frontier.add(judged.links, judged.rejected, run.crawler);
        await loop.record(added.records);
        return {
          added: added.added,
          known: judged.links.length - added.added,
          refused: judged.rejected.map((r) => ({ url: r.url, reason: r.reason })),
          invalid: judged.invalid,
        };
      },
    },
  };
  return startConsole({
    source,
    lines: parts.lines,
    storeCalls: parts.storeCalls,
    host: where.host,
    port: where.port,
    token,
    tokenHint: `${parts.layout.token}, or COBWEB_TOKEN`,
    access,
    warn: parts.warn,
  });
}
