/**
 * Which seen set a crawl gets when it names none, by the crawl's size (docs/seen.md,
 * "Which one to use"): memory, the fastest exact set, up to 10^8 URLs (1.5 GB of RAM
 * there); drum past that, whose RAM stays flat however large the set grows.
 */

/** URLs past which drum is the default. */
export const DRUM_PAST_URLS = 100_000_000;

/**
 * New URLs a fetched page brings, about: 30 links a page, a fifth of them new (the
 * benchmark's stream), so --max-pages of 1.7·10^7 means some 10^8 URLs met.
 */
export const NEW_URLS_PER_PAGE = 6;

export type SeenKindName = 'memory' | 'bloom' | 'lmdb' | 'drum';

/**
 * The seen set for a crawl that did not choose one: drum when it is expected past
 * DRUM_PAST_URLS, by --seen-capacity (the URLs it is sized for) or by --max-pages
 * (times the new URLs a page brings); memory otherwise.
 */
export function defaultSeen(o: {
  maxPages?: number | undefined;
  seenCapacity?: number | undefined;
}): SeenKindName {
  const byPages =
    o.maxPages !== undefined && Number.isFinite(o.maxPages) ? o.maxPages * NEW_URLS_PER_PAGE : 0;
  const expected = Math.max(o.seenCapacity ?? 0, byPages);
  return expected > DRUM_PAST_URLS ? 'drum' : 'memory';
}
