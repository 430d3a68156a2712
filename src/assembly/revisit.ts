import { type LinkRules, refusal } from '../bunny/links.js';
import type { LinkSettings } from '../data-dir/marker.js';
import { agree, count } from '../english.js';
import type { CrawlerId, FrontierAdmin, LocalFrontier, NewLink, RejectedLink } from '../frontier/types.js';
import type { LogLevel } from '../options/options.js';
import { canonicalize } from '../url/canonicalize.js';
import { type SeedHints, type SeedsAdded, seedLines } from './seed-lines.js';

export type { SeedsAdded };

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

/** The settings that decide what robots.txt refuses: when one changed, its refusals are asked again. */
const ROBOTS_SETTINGS: readonly (keyof LinkSettings)[] = ['ignoreRobots', 'robotsToken'];

const PAGE = 500;

/**
 * A resumed crawl whose rules changed: the URLs refused only by a filter that no
 * longer refuses them are queued again, and so are robots.txt's refusals when
 * --ignore-robots or the User-Agent's robots token changed (the robots gate decides
 * them anew). Returns how many.
 */
export async function reconsiderRefused(
  store: FrontierAdmin,
  rules: LinkRules,
  changed: readonly (keyof LinkSettings)[],
): Promise<number> {
  const robots = changed.some((key) => ROBOTS_SETTINGS.includes(key));
  const refusedFor = [...FILTER_REASONS, ...(robots ? ['robots'] : [])];
  let queued = 0;
  let after = 0;
  for (;;) {
    const page = await store.findStored({ refusedFor }, after, PAGE);
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

/** Seeds as links: depth 0, found on no page. */
export function seedLinks(seeds: readonly string[]): NewLink[] {
  return seeds.map((url) => ({ url, depth: 0, via: null }));
}

/**
 * Adds the seeds. A seed the store knew already is never skipped silently: one an
 * earlier run only refused is queued again at depth 0, since the user asks for it now;
 * one fetched or failed before is counted, for the line saying so. A seed still queued
 * from a run that stopped is simply fetched this run.
 */
export async function addSeeds(
  store: LocalFrontier,
  seeds: readonly string[],
  crawler: CrawlerId,
): Promise<SeedsAdded> {
  // Seeds are taken as given: they define the scope, so the filter does not judge them.
  const { added, records } = await store.add(seedLinks(seeds), [], crawler);
  const result: SeedsAdded = { added, requeued: [], fetched: 0, failed: 0, records };
  const distinct = [...new Set(seeds)];
  if (added === distinct.length) return result;
  for (let i = 0; i < distinct.length; i += PAGE) {
    const among = distinct.slice(i, i + PAGE);
    const met = await store.findStored({ refused: true, failed: true, done: true, among }, 0, among.length);
    const refused = met.filter((l) => l.state === 'refused');
    if (refused.length > 0)
      await store.requeue(
        refused.map((l) => l.id),
        { asSeeds: true },
      );
    result.requeued.push(...refused);
    result.fetched += met.filter((l) => l.state === 'done').length;
    result.failed += met.filter((l) => l.state === 'failed').length;
  }
  return result;
}

/** What a resumed crawl asks of its store again before it starts, and how it says so. */
export interface Revisit {
  seeds: readonly string[];
  crawler: CrawlerId;
  rules: LinkRules;
  /** The link-deciding settings that changed since the last run (openDataDir). */
  changed: readonly (keyof LinkSettings)[];
  retryFailed: boolean;
  /** --recrawl-after: URLs fetched longer ago than this are queued again (then, as they come due, by the store). */
  recrawlAfterMs?: number | undefined;
  /** How the lines name the store and the way to fetch the seeds again. */
  hints: SeedHints;
}

/**
 * Before a crawl (or a server) starts on a folder crawled before: --recrawl-after, --retry-failed, then
 * the seeds, then the refusals the changed rules undo. The order matters: a failed seed
 * that --retry-failed queued is not "not fetched again", and a refused seed is queued
 * at depth 0 before the changed rules could queue it at its old depth. Each step says
 * what it did in one line. Resolves to what became of the seeds, with the records to write.
 */
export async function revisitStore(
  store: LocalFrontier,
  r: Revisit,
  log: (line: string, level: LogLevel) => void,
): Promise<SeedsAdded> {
  // First: a seed due again is then queued, not "fetched before, not fetched again".
  if (r.recrawlAfterMs !== undefined) {
    const due = await store.requeueDue(r.recrawlAfterMs);
    log(
      `--recrawl-after: ${count(due, 'URL')} fetched before ${agree(due, 'is', 'are')} due again (asked for with If-None-Match / If-Modified-Since)`,
      'info',
    );
  }
  if (r.retryFailed) {
    const again = await retryFailed(store);
    log(
      `--retry-failed: ${count(again, 'URL')} that failed ${agree(again, 'is', 'are')} queued again`,
      'info',
    );
  }
  const seeded = await addSeeds(store, r.seeds, r.crawler);
  for (const line of seedLines(seeded, r.hints)) log(line, 'info');
  if (r.changed.length > 0) {
    const again = await reconsiderRefused(store, r.rules, r.changed);
    if (again > 0) {
      log(
        `${count(again, 'URL')} refused under the last run's rules ${agree(again, 'is', 'are')} queued again`,
        'info',
      );
    }
  }
  return seeded;
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
