import type { PageRecord } from './pages-log.js';

/** What became of the URLs that reached a final outcome this run, as the summary shows it. */
export interface RunCounts {
  /** Got an HTTP response, by status class: { '2xx': 10, '4xx': 1 }. */
  fetched: Record<string, number>;
  /** Failed without a usable answer, by reason: { dns: 1, timeout: 2, 'robots-unavailable': 1 }. */
  failed: Record<string, number>;
  /** Not fetched because the site's robots.txt disallows them. */
  robots: number;
  /** Refused by the crawl's own rules, never fetched, by reason: { scope: 3, depth: 1, 'too-long': 1 }. */
  refused: Record<string, number>;
}

/**
 * Which of the four kinds a pages.jsonl line is, and its key within the kind: the
 * status class of a response, the reason of a failure or a refusal. The summary, the
 * progress line and the console's counters all sort lines by this one rule.
 */
export type LineOutcome =
  | { kind: 'fetched'; key: string }
  | { kind: 'failed'; key: string }
  | { kind: 'robots'; key: 'robots' }
  | { kind: 'refused'; key: string };

export function outcomeOf(record: Pick<PageRecord, 'status' | 'error' | 'detail'>): LineOutcome {
  if (record.status !== null) return { kind: 'fetched', key: `${Math.floor(record.status / 100)}xx` };
  if (record.error === 'robots') return { kind: 'robots', key: 'robots' };
  if (record.error === 'filtered' || record.error === 'too-long') {
    return {
      kind: 'refused',
      key: record.error === 'filtered' ? (record.detail ?? 'filtered') : record.error,
    };
  }
  return { kind: 'failed', key: record.error ?? 'failed' };
}

/**
 * Counts every pages.jsonl line of this run into one of four kinds, once. The progress
 * line and the summary both read these, so they agree on what an error is: a 4xx or 5xx
 * response, or a URL that failed without a response.
 */
export class RunCounter {
  private readonly counts: RunCounts = { fetched: {}, failed: {}, robots: 0, refused: {} };

  count(record: PageRecord): void {
    const c = this.counts;
    const o = outcomeOf(record);
    if (o.kind === 'robots') c.robots++;
    else bump(c[o.kind], o.key);
  }

  /** URLs that got a response (any status). */
  get fetched(): number {
    return sumCounts(this.counts.fetched);
  }

  /** URLs that failed without a response. */
  get failed(): number {
    return sumCounts(this.counts.failed);
  }

  /** 4xx and 5xx responses, and failures: what the progress line and the summary call errors. */
  get errors(): number {
    let n = this.failed;
    for (const [status, count] of Object.entries(this.counts.fetched)) if (status >= '4xx') n += count;
    return n;
  }

  snapshot(): RunCounts {
    const c = this.counts;
    return {
      fetched: { ...c.fetched },
      failed: { ...c.failed },
      robots: c.robots,
      refused: { ...c.refused },
    };
  }
}

function bump(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

/** The whole of a breakdown: every status class, or every reason, added up. */
export function sumCounts(counts: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}
