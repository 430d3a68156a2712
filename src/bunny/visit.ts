import type { Fetcher } from '../fetch/fetcher.js';
import type { FetchFailure } from '../fetch/types.js';
import type { Frontier, Lease } from '../frontier/types.js';
import type { WarcExchange } from '../output/warc-writer.js';
import { type ProcessedPage, type ProcessOptions, processBlocked, processFetch } from './page-processor.js';

/** What the robots gate says about one URL (src/fetch/robots). */
export interface GateVerdict {
  allowed: boolean;
  reason?: 'robots' | 'robots-unavailable';
  crawlDelayMs: number | null;
  /** The gate just fetched robots.txt from this host: wait this long before the page. */
  waitMs: number;
  /** For 'robots-unavailable': when to try the URL again. */
  retryMs: number | null;
  /** robots.txt got no answer at all: why (the URL is failed or retried with this cause). */
  failure?: FetchFailure;
  /** This check fetched robots.txt over the network itself. */
  fetched: boolean;
}

export type Gate = (lease: Lease) => Promise<GateVerdict>;

/** One URL's trip through the bunny, up to what must be written. */
export interface Visit {
  page: ProcessedPage;
  /** The exchange to archive; null when nothing was fetched or the try will be repeated. */
  warc: WarcExchange | null;
}

export interface VisitParts {
  frontier: Pick<Frontier, 'release'>;
  fetcher: Pick<Fetcher, 'fetch'>;
  /** The robots gate; null with --ignore-robots. */
  gate: Gate | null;
  /** Told of every URL about to be fetched, after the gate (a site's first one starts its sitemaps). */
  onSite: ((url: string) => Promise<void>) | null;
  options: ProcessOptions;
}

const ALLOW: GateVerdict = { allowed: true, crawlDelayMs: null, waitMs: 0, retryMs: null, fetched: false };

/** robots gate -> fetch -> release the host -> parse: DESIGN.md's middle steps for one lease. */
export async function visit(lease: Lease, parts: VisitParts): Promise<Visit> {
  const verdict = parts.gate === null ? ALLOW : await parts.gate(lease);
  if (!verdict.allowed) {
    const page =
      verdict.failure === undefined
        ? processBlocked(lease, verdict.reason ?? 'robots', verdict.retryMs, parts.options)
        : unreachable(lease, verdict.failure, verdict.fetched, parts.options);
    parts.frontier.release(lease, page.report);
    return { page, warc: null };
  }
  if (parts.onSite !== null) await parts.onSite(lease.url);
  // robots.txt was a request to this host too: keep the politeness gap before the page.
  if (verdict.waitMs > 0) await new Promise((r) => setTimeout(r, verdict.waitMs));
  const outcome = await parts.fetcher.fetch(lease.url);
  const page = processFetch(lease, outcome, verdict.crawlDelayMs, parts.options);
  // The exchange is over: the host's next request need not wait for our writing.
  parts.frontier.release(lease, page.report);
  const keep = outcome.ok && page.record !== null;
  return { page, warc: keep ? { ...outcome.exchange, url: outcome.url, date: outcome.startedAt } : null };
}

/**
 * The site did not answer for robots.txt (refused, dns, timeout): the URL fails or is
 * retried with that cause, as if its own fetch had failed. Only the check that tried
 * the connection counts it against the host.
 */
function unreachable(lease: Lease, failure: FetchFailure, fetched: boolean, options: ProcessOptions) {
  const outcome: FetchFailure = { ...failure, url: lease.url, message: `robots.txt: ${failure.message}` };
  const page = processFetch(lease, outcome, null, options);
  if (!fetched) delete page.report.connectFailed;
  return page;
}
