import { createRequire } from 'node:module';
import type {
  Agent as UndiciAgent,
  buildConnector as UndiciBuildConnector,
  Pool as UndiciPool,
  ProxyAgent as UndiciProxyAgent,
} from 'undici';

// undici's index loads the whole library (fetch, WebSockets, caches, mocks, proxies): at
// start-up that is most of what a one-page crawl spends loading code. The fetcher uses two
// of its parts, taken from the files the index itself takes them from (undici is pinned).
const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export const buildConnector = require('undici/lib/core/connect.js') as typeof UndiciBuildConnector;
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;

/**
 * undici's ProxyAgent, for --proxy only: it tunnels with the dispatcher API's connect(),
 * which undici's index adds to every dispatcher, so it comes with the whole index.
 */
export function proxyAgentClass(): typeof UndiciProxyAgent {
  return (require('undici') as { ProxyAgent: typeof UndiciProxyAgent }).ProxyAgent;
}
