import type { FrontierSettings } from '../types.js';

/**
 * --max-pages-per-host: a host's URLs the crawl takes at most, counting every URL of it
 * queued or finished. Past it, new links to the host are refused ('host-budget').
 */
export function hostBudgetRefusal(
  takenFromHost: number,
  settings: Pick<FrontierSettings, 'maxPagesPerHost'>,
): 'host-budget' | null {
  return takenFromHost >= settings.maxPagesPerHost ? 'host-budget' : null;
}
