import type { PageRecord } from '../output/pages-log.js';

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
 * Counts every pages.jsonl line of this run into one of four kinds, once. The progress
 * line and the summary both read these, so they agree on what an error is: a 4xx or 5xx
 * response, or a URL that failed without a response.
 */
export class RunCounter {
  private readonly counts: RunCounts = { fetched: {}, failed: {}, robots: 0, refused: {} };

  count(record: PageRecord): void {
    const c = this.counts;
    if (record.status !== null) {
      bump(c.fetched, `${Math.floor(record.status / 100)}xx`);
    } else if (record.error === 'robots') {
      c.robots++;
    } else if (record.error === 'filtered' || record.error === 'too-long') {
      bump(c.refused, record.error === 'filtered' ? (record.detail ?? 'filtered') : record.error);
    } else {
      bump(c.failed, record.error ?? 'failed');
    }
  }

  /** URLs that got a response (any status). */
  get fetched(): number {
    return sum(this.counts.fetched);
  }

  /** URLs that failed without a response. */
  get failed(): number {
    return sum(this.counts.failed);
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

function sum(counts: Record<string, number>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}
