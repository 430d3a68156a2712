import { readFileSync } from 'node:fs';
import type { PageRecord } from '../../src/output/pages-log.js';

export function readPages(file: string): PageRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as PageRecord);
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
