import { SqliteFrontier } from './sqlite/sqlite-frontier.js';
import type { FrontierSettings, LocalFrontier } from './types.js';

/** A store named on the command line (--store) is not one cobweb can open. */
export class StoreSpecError extends Error {}

export interface OpenOptions {
  /** The store's clock (tests move it by hand). */
  now?: () => number;
}

/**
 * Opens the store a spec names: `sqlite:FILE` (or a plain file path), the embedded
 * store every crawling process on this machine may share.
 */
export async function openFrontier(
  spec: string,
  settings: FrontierSettings,
  options: OpenOptions = {},
): Promise<LocalFrontier> {
  if (spec.startsWith('sqlite:'))
    return new SqliteFrontier(spec.slice('sqlite:'.length), settings, options.now);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new StoreSpecError(`unknown store "${spec}": expected sqlite:FILE`);
  }
  return new SqliteFrontier(spec, settings, options.now);
}
