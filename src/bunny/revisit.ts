import type { CrawlerId, Frontier, FrontierAdmin, NewLink, RejectedLink } from '../frontier/types.js';
import { canonicalize } from '../url/canonicalize.js';
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

/** Seed URLs handed to a running crawl, judged: what to queue, what the rules refuse, what is no URL. */
export interface JudgedSeeds {
  links: NewLink[];
  rejected: RejectedLink[];
  invalid: { text: string; reason: string }[];
}

/**
 * Seeds added to a crawl already running (the console's "add seeds"): canonicalized, then
 * judged by the crawl's rules as a seed of depth 0, since the scope was drawn around the
 * first seeds. A refused one is recorded like any refused URL.
 */
export function judgeSeeds(texts: readonly string[], rules: LinkRules): JudgedSeeds {
  const out: JudgedSeeds = { links: [], rejected: [], invalid: [] };
  const met = new Set<string>();
  for (const text of texts) {
    const c = canonicalize(text.trim());
    if (!c.ok) {
      out.invalid.push({ text, reason: c.reason });
      continue;
    }
    if (met.has(c.url)) continue;
    met.add(c.url);
    const reason = refusal(c.url, 0, 0, 'page', rules);
    if (reason === null) out.links.push({ url: c.url, depth: 0, via: null });
    else out.rejected.push({ url: c.url, depth: 0, via: null, reason });
  }
  return out;
}
