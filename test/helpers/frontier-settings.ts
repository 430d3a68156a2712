import type { FrontierSettings } from '../../src/frontier/types.js';

/**
 * The frontier settings of tests, whatever the store (and a server's): one fetch a host at
 * a time, no delay between them, no limit on pages.
 */
export const TEST_SETTINGS: FrontierSettings = {
  perHost: 1,
  delayMs: 0,
  delayFactor: 0,
  maxDelayMs: 30_000,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
  retireAfter: 3,
  key: 'host',
  maxPagesPerHost: Number.POSITIVE_INFINITY,
  leaseMs: 60_000,
  maxPages: Number.POSITIVE_INFINITY,
};
