import type { Dispatcher as UndiciDispatcher, ProxyAgent as UndiciProxyAgent } from 'undici';
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

let proxyAgent: Promise<typeof UndiciProxyAgent> | null = null;

/**
 * undici's ProxyAgent, for --proxy only, loaded the first time a request goes through a
 * tunnel. It tunnels with the dispatcher API's connect(), which undici's index adds to
 * every dispatcher: so does this, to the dispatchers of the same copy of undici as the
 * Agent and Pool above (a bundled copy has classes of its own).
 */
export function proxyAgentClass(): Promise<typeof UndiciProxyAgent> {
  proxyAgent ??= (async () => {
    const [{ default: Dispatcher }, { default: api }, { default: ProxyAgent }] = await Promise.all([
      import('undici/lib/dispatcher/dispatcher.js'),
      import('undici/lib/api/index.js'),
      import('undici/lib/dispatcher/proxy-agent.js'),
    ]);
    Object.assign((Dispatcher as { prototype: UndiciDispatcher }).prototype, api);
    return ProxyAgent;
  })();
  return proxyAgent;
}
