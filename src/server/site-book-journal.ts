import { existsSync, readFileSync, rmSync } from 'node:fs';
import { keyOf, type SiteBook, siteLineOf } from './site-book.js';

/**
 * Takes into `book` the book of sites as servers before `sites.db` kept it, if `file`
 * holds one: `sites.jsonl`, site lines in the log format (a later line for a site
 * replacing an earlier one) and lines of visits (`{"visits":[[url, address], ...]}`),
 * replayed in order in one transaction, then the file is removed. A torn last line (a
 * write cut short by kill -9) is left out.
 */
export function takeInOldJournal(file: string, book: SiteBook): void {
  if (!existsSync(file)) return;
  book.inOneStep(() => replay(file, book));
  rmSync(file);
}

function replay(file: string, book: SiteBook): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop(); // after the last newline: '' or a torn line
  for (const line of lines) {
    const visits = visitsOf(line);
    if (visits !== null) {
      book.visited(visits);
      continue;
    }
    const site = siteLineOf(line);
    if (site !== null) book.put(keyOf(site.address, site.port, site.origin), site);
  }
}

function visitsOf(line: string): { url: string; address: string | null }[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  const visits = (parsed as { visits?: unknown } | null)?.visits;
  if (!Array.isArray(visits)) return null;
  return visits
    .filter((v): v is [string, unknown] => Array.isArray(v) && typeof v[0] === 'string')
    .map(([url, address]) => ({ url, address: typeof address === 'string' ? address : null }));
}
