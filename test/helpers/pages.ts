import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PageRecord } from '../../src/output/pages-log.js';
import { readJsonLines } from './json-lines.js';

export function readPages(file: string): PageRecord[] {
  return readJsonLines<PageRecord>(file);
}

/** How many times each URL appears among the records that were fetched (have a status or a fetch error). */
export function fetchCounts(records: readonly PageRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.fetchedAt === null) continue;
    counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
  }
  return counts;
}

/**
 * Every line a crawl wrote in folder `dir`: pages.jsonl (what was fetched or failed),
 * then refused.jsonl (what was refused without a request), which a crawl that refused
 * nothing does not have.
 */
export function readAllLines(dir: string): PageRecord[] {
  const refused = join(dir, 'refused.jsonl');
  return [...readPages(join(dir, 'pages.jsonl')), ...(existsSync(refused) ? readPages(refused) : [])];
}
