import type { CrawlerId, Frontier, FrontierAdmin } from '../frontier/types.js';
import { type LinkRules, refusal } from './links.js';

/**
 * The refusals a changed rule can undo: the ones decided from the URL and its depth
 * alone, so they can be decided again from what the store kept.
 */
export const FILTER_REASONS = [
  'scope',
  'include',
  'exclude',
  'extension',
  'depth',
  'path-depth',
  'repeated-segment',
  'query-params',
] as const;

const PAGE = 500;

/**
 * A resumed crawl whose rules changed: the URLs refused only by a filter that no
 * longer refuses them are queued again. Returns how many.
 */
export async function reconsiderRefused(store: FrontierAdmin, rules: LinkRules): Promise<number> {
  let queued = 0;
  let after = 0;
  for (;;) {
    const page = await store.findStored({ refusedFor: FILTER_REASONS }, after, PAGE);
    if (page.length === 0) return queued;
    after = page[page.length - 1]?.id ?? after;
    const now = page.filter((l) => refusal(l.url, l.depth, 0, 'page', rules) === null);
    if (now.length > 0) queued += await store.requeue(now.map((l) => l.id));
  }
}

/** --retry-failed: every URL whose fetch failed goes back to the queue, its tries counted afresh. */
export async function retryFailed(store: FrontierAdmin): Promise<number> {
  let queued = 0;
  let after = 0;
  for (;;) {
    const page = await store.findStored({ failed: true }, after, PAGE);
    if (page.length === 0) return queued;
    after = page[page.length - 1]?.id ?? after;
    queued += await store.requeue(page.map((l) => l.id));
  }
}

/** How many of the seeds the store knew already (an earlier run met them): said, never silently skipped. */
export async function addSeeds(
  frontier: Frontier,
  seeds: readonly string[],
  crawler: CrawlerId,
): Promise<Awaited<ReturnType<Frontier['add']>> & { known: number }> {
  // Seeds are taken as given: they define the scope, so the filter does not judge them.
  const result = await frontier.add(
    seeds.map((url) => ({ url, depth: 0, via: null })),
    [],
    crawler,
  );
  return { ...result, known: new Set(seeds).size - result.added };
}
