import type { Dispatcher as UndiciDispatcher } from 'undici';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Pool from 'undici/lib/dispatcher/pool.js';

// undici's index loads the whole library (fetch, WebSockets, caches, mocks, proxies): at
// start-up that is most of what a one-page crawl spends loading code. The fetcher uses a
// few of its parts, taken from the files the index itself takes them from (undici is
// pinned). Imported as files, they are also bundled into the command line's one file and
// compiled from its code cache (scripts/bundle-cli.js), which a package loaded from
// node_modules is not: 30 ms of a one-page crawl.
export { Agent, buildConnector, Pool };

let connectApi: Promise<void> | null = null;

/**
 * Adds the dispatcher API (request(), connect(), ...) to undici's dispatchers, for --proxy
 * only, the first time a request goes through a tunnel: a tunnel is opened with a proxy
 * pool's connect(), which undici's index adds to every dispatcher. So does this, to the
 * dispatchers of the same copy of undici as the Agent and Pool above (a bundled copy has
 * classes of its own).
 */
export function withConnectApi(): Promise<void> {
  connectApi ??= (async () => {
    const [{ default: Dispatcher }, { default: api }] = await Promise.all([
      import('undici/lib/dispatcher/dispatcher.js'),
      import('undici/lib/api/index.js'),
    ]);
    Object.assign((Dispatcher as { prototype: UndiciDispatcher }).prototype, api);
  })();
  return connectApi;
}
