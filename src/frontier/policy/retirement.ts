import type { FrontierSettings } from '../types.js';

/**
 * A host (or address) that failed to connect --retire-after times in a row is given
 * up on: its queued URLs are recorded as 'host-unreachable', and so are new links to it.
 */
export function shouldRetire(
  failuresInARow: number,
  settings: Pick<FrontierSettings, 'retireAfter'>,
): boolean {
  return failuresInARow >= settings.retireAfter;
}

export const RETIRED_REASON = 'host-unreachable';
