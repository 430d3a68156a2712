import { createRequire } from 'node:module';
import type * as ToughCookie from 'tough-cookie';

let loaded: typeof ToughCookie | null = null;

/**
 * tough-cookie, loaded at its first use: most crawls never meet a cookie, and loading it
 * (with its public suffix list) is a noticeable part of a short crawl's start-up. Every
 * caller takes it from here, so a Cookie made by one part of the crawl is the same
 * class the jar knows.
 */
export function toughCookie(): typeof ToughCookie {
  loaded ??= createRequire(import.meta.url)('tough-cookie') as typeof ToughCookie;
  return loaded;
}
