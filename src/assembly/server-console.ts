import type { Feed } from '../console/feed.js';
import { type RunningConsole, startConsole } from '../console/start.js';
import type { ConsoleSource } from '../console/types.js';
import type { StoreCall } from '../frontier/timed.js';
import type { FrontierHosts } from '../frontier/types.js';
import type { RunningServer } from '../server/start.js';
import { accessWarning, consoleAccessOf } from './console-access.js';
import { judgeSeeds } from './revisit.js';

const BUSIEST = 15;

export interface ServerConsoleParts {
  running: RunningServer;
  host: string;
  port: number;
  /** The server's own token: the console's actions take the same one. */
  token: string;
  tokenHint: string;
  /** --http-allow-host, --metrics-open. */
  httpAllowHost: readonly string[] | undefined;
  metricsOpen: boolean;
  /** Where the console's warnings go. */
  warn(line: string): void;
  storeCalls: Feed<StoreCall>;
  /** Stops the server cleanly, as Ctrl-C does; `stopping` says whether it was asked. */
  stop: () => void;
  stopping: () => boolean;
}

/**
 * The console of `cobweb server --http`: the store's numbers, the bunnies connected and
 * the traffic, as plain snapshots. Pause holds back every lease (the bunnies finish what
 * they hold); seeds take the crawl's rules and the store's add, as the server's own do.
 */
export async function startServerConsole(parts: ServerConsoleParts): Promise<RunningConsole> {
  const { service, server } = parts.running;
  const store = service.store;
  const access = consoleAccessOf(parts.host, parts);
  const warning = accessWarning(access);
  if (warning !== null) parts.warn(warning);
  const hosts = 'hostOverview' in store ? (store as typeof store & FrontierHosts) : null;
  const source: ConsoleSource = {
    kind: 'server',
    snapshot: async (detail) => ({
      state: parts.stopping() ? 'stopping' : service.paused ? 'paused' : 'running',
      store: await store.stats(),
      fetching: null,
      hosts: detail && hosts !== null ? await hosts.hostOverview(BUSIEST) : null,
      modules: service.modules.stats(),
      warcBytes: null,
      bunnies: server.bunnyViews(),
      traffic: server.traffic.snapshot(),
    }),
    actions: {
      pause: () => service.pause(),
      resume: () => service.resume(),
      stop: () => parts.stop(),
      async addSeeds(urls) {
        const judged = judgeSeeds(urls, service.rules);
        const me = await store.registerCrawler(`console@${process.pid}`);
        try {
          const added = await store.add(judged.links, judged.rejected, me);
          await service.writeRecords(added.records, me);
          return {
            added: added.added,
            known: judged.links.length - added.added,
            refused: judged.rejected.map((r) => ({ url: r.url, reason: r.reason })),
            invalid: judged.invalid,
          };
        } finally {
          await store.leave(me);
        }
      },
    },
  };
  return startConsole({
    source,
    lines: parts.running.lines,
    storeCalls: parts.storeCalls,
    host: parts.host,
    port: parts.port,
    token: parts.token,
    tokenHint: parts.tokenHint,
    access,
    warn: parts.warn,
  });
}
