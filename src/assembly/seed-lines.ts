import { agree, count } from '../english.js';
import type { PendingRecord, StoredLink } from '../frontier/types.js';

/** What became of the seeds given to a crawl that has run in its folder before. */
export interface SeedsAdded {
  /** New to the store: queued. */
  added: number;
  /** Refused by an earlier run (scope, depth, robots.txt...): queued again, as seeds. */
  requeued: StoredLink[];
  /** Fetched by an earlier run (a response came): not fetched again. */
  fetched: number;
  /** Failed in an earlier run (no response): not fetched again. */
  failed: number;
  /** Lines to write to pages.jsonl (the store's add() hands them back). */
  records: PendingRecord[];
}

/** How the seed lines name where the earlier runs were, and how to fetch their seeds again. */
export interface SeedHints {
  /** 'in this folder', or the crawl's name in a shared store. */
  where: string;
  /** What starts the crawl over. */
  startOver: string;
  /** What queues the failed URLs again. */
  retry: string;
}

/** A crawl in its --data folder. */
export const FOLDER_HINTS: SeedHints = {
  where: 'in this folder',
  startOver: '--fresh',
  retry: '--retry-failed',
};

/** A crawl on PostgreSQL (--store): --fresh is refused there, a crawl of another name is new. */
export function sharedHints(crawl: string, retry = '--retry-failed'): SeedHints {
  return { where: `in the crawl "${crawl}"`, startOver: 'another --crawl name', retry };
}

/** The lines saying what became of seeds an earlier run met, and how to fetch them again. */
export function seedLines(s: SeedsAdded, h: SeedHints): string[] {
  const lines: string[] = [];
  const n = s.requeued.length;
  if (n > 0) {
    const why = [...new Set(s.requeued.map((l) => l.reason ?? 'refused'))].join(', ');
    lines.push(
      `${count(n, 'seed')} refused by an earlier run ${h.where} (${why}) ${agree(n, 'is', 'are')} queued again as ${agree(n, 'a seed', 'seeds')}`,
    );
  }
  if (s.fetched > 0) {
    lines.push(
      `${count(s.fetched, 'seed')} ${agree(s.fetched, 'was', 'were')} fetched by an earlier run ${h.where} and ${agree(s.fetched, 'is', 'are')} not fetched again (${h.startOver} starts over)`,
    );
  }
  if (s.failed > 0) {
    lines.push(
      `${count(s.failed, 'seed')} failed in an earlier run ${h.where} and ${agree(s.failed, 'is', 'are')} not fetched again (${h.retry} tries ${agree(s.failed, 'it', 'them')} again)`,
    );
  }
  return lines;
}
