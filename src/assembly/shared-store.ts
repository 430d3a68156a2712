import { CrawlOptionError } from '../errors.js';
import type { PostgresFrontier } from '../frontier/postgres/postgres-frontier.js';
import type { FrontierSettings } from '../frontier/types.js';
import { DEFAULTS, robotsRetryMsOf, type Settings } from '../options/options.js';
import { settingsForBunnies } from '../server/bunny-settings.js';

/** The store's settings from the crawl options: politeness, retirement, the budgets. */
export function frontierSettingsOf(o: Settings): FrontierSettings {
  return {
    perHost: o.perHost,
    delayMs: o.delayMs,
    delayFactor: o.delayFactor,
    maxDelayMs: o.maxDelayMs,
    backoffMs: o.hostBackoffMs,
    maxBackoffMs: Math.max(o.hostBackoffMs, DEFAULTS.maxHostBackoffMs),
    retireAfter: o.retireAfter,
    key: o.politenessKey,
    maxPagesPerHost: o.maxPagesPerHost,
    leaseMs: o.leaseMs,
    // A robots.txt that could not be read is tried again after the retry delay (at least a
    // minute), doubling while it stays unreachable (docs/robots.md).
    robots: { ttlMs: DEFAULTS.robotsTtlMs, unavailableRetryMs: robotsRetryMsOf(o) },
    maxPages: o.maxPages,
    ...(o.hosts === undefined ? {} : { hosts: o.hosts }),
    ...(o.recrawlAfterMs === undefined ? {} : { recrawlAfterMs: o.recrawlAfterMs }),
  };
}

/** What a shared store cannot do that the embedded one does; refused before anything starts. */
export function checkSharedStoreOptions(o: Settings): void {
  if (o.store === undefined) return;
  if (o.passes !== undefined) {
    throw new CrawlOptionError('--passes needs the embedded store: leave out --store (or COBWEB_STORE)');
  }
  if (o.fresh === true) {
    throw new CrawlOptionError(
      `--fresh does not empty a crawl in PostgreSQL; start it over with cobweb reset --store URL --crawl ${o.crawl}, or start another with another --crawl name`,
    );
  }
}

/**
 * Opens the PostgreSQL store for a crawl. `join`: a process that joins a crawl (a
 * bunny) takes the settings the crawl already has; else (cobweb crawl, cobweb server)
 * its own settings and `seeds` become the crawl's.
 */
export async function openSharedStore(
  o: Settings,
  seeds: readonly string[],
  join: boolean,
  say?: (line: string) => void,
): Promise<PostgresFrontier> {
  // The PostgreSQL store's code (and node-postgres) loads only for a crawl that uses it.
  const { PostgresFrontier } = await import('../frontier/postgres/postgres-frontier.js');
  return PostgresFrontier.open(o.store as string, frontierSettingsOf(o), {
    crawl: o.crawl,
    join,
    ...(say === undefined ? {} : { onWait: say }),
    ...(seeds.length > 0 || !join ? { rules: settingsForBunnies(o, seeds) } : {}),
  });
}
