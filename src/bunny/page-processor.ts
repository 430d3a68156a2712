import type { FetchFailure, FetchOutcome, FetchSuccess } from '../fetch/types.js';
import type { Completion, FetchReport, Lease, Outcome, RejectedLink, Validators } from '../frontier/types.js';
import type { WirePage } from '../modules/protocol.js';
import type { PackedExchange } from '../output/packed-exchange.js';
import type { PageRecord } from '../output/pages-log.js';
import { parseSitemap } from '../parse/sitemap.js';
import type { LinkRules, RoutedLinks } from './links.js';
import { routeLinks } from './links.js';
import type { PageAnalysis } from './page-analysis.js';
import { parseRetryAfter, type RetrySettings, retryDelay } from './retries.js';

/**
 * A fetched page as the crawl hands it to the modules' step: plain data, and for an HTML
 * page the fetch's packed bytes its body is in (until they move on to the WARC thread).
 */
export interface HookPage {
  page: Omit<WirePage, 'body'>;
  body: PackedExchange | null;
}

export interface ProcessedPage {
  /** The pages.jsonl line; null when the URL will be tried again (only the last try is recorded). */
  record: PageRecord | null;
  completion: Completion;
  /** The page for the modules; null when nothing was fetched (or it will be tried again). */
  page: HookPage | null;
  /** What politeness learns from this fetch: the crawl loop releases the lease with it. */
  report: FetchReport;
}

export interface ProcessOptions {
  rules: LinkRules;
  retry: RetrySettings;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const NO_LINKS: RoutedLinks = { accepted: [], rejected: [], urls: [] };

/** The media type of a Content-Type value, lowercase, without parameters. */
function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** What a fetch tells politeness: its duration, a Retry-After, a failed connection, the address. */
export function reportOf(outcome: FetchOutcome, crawlDelayMs: number | null): FetchReport {
  const report: FetchReport = { fetchMs: outcome.responseMs };
  if (crawlDelayMs !== null) report.crawlDelayMs = crawlDelayMs;
  if (outcome.ok) {
    report.address = outcome.exchange.remoteAddress;
    if (outcome.status === 429 || outcome.status === 503) {
      const ms = parseRetryAfter(outcome.headers['retry-after'], Date.now());
      if (ms !== undefined) report.retryAfterMs = ms;
    }
  } else if (outcome.connectFailed === true) {
    // The server never answered: counts toward retiring the host.
    report.connectFailed = true;
  }
  return report;
}

/**
 * What of a fetch is to be parsed: a 2xx HTML page ('page'), an error page whose title
 * says what went wrong ('title'), or nothing. A URL to be tried again is not parsed.
 */
export function parseWanted(
  lease: Lease,
  outcome: FetchOutcome,
  opts: ProcessOptions,
): 'page' | 'title' | null {
  if (!outcome.ok || !HTML_TYPES.has(mediaType(outcome.contentType) ?? '')) return null;
  if (lease.kind === 'sitemap' || (outcome.status >= 300 && outcome.status < 400)) return null;
  if (outcome.status < 200) return null;
  const report = reportOf(outcome, null);
  if (retryDelay(outcome, lease.attempt, opts.retry, report.retryAfterMs) !== null) return null;
  return outcome.status < 300 ? 'page' : 'title';
}

/**
 * links -> record: turns one fetch, and what its parse found (`analysis`, as
 * parseWanted asked), into the pages.jsonl line and the frontier completion. Plain data
 * in, plain data out: it neither fetches nor writes.
 */
export function processFetch(
  lease: Lease,
  outcome: FetchOutcome,
  crawlDelayMs: number | null,
  opts: ProcessOptions,
  analysis: PageAnalysis | null = null,
  packed: PackedExchange | null = null,
): ProcessedPage {
  const report = reportOf(outcome, crawlDelayMs);
  const again = retryDelay(outcome, lease.attempt, opts.retry, report.retryAfterMs);
  if (again !== null) {
    const error = outcome.ok ? `http-${outcome.status}` : outcome.error;
    return retry(lease, report, error, again);
  }
  if (!outcome.ok) return failed(lease, report, failureRecord(lease, outcome));
  const record = successRecord(lease, outcome);
  // A conditional GET's 304: the stored copy holds; nothing to parse, no links to follow.
  if (outcome.status === 304 && lease.previous !== undefined) {
    record.notModified = true;
    // The capture the 304 confirmed stays the one the validators stand for.
    const { fetchedAt: _, ...kept } = lease.previous;
    const validators = { ...kept, ...validatorsOf(outcome.headers) };
    return { record, completion: completion(lease, { kind: 'done', validators }), page: null, report };
  }
  let routed = NO_LINKS;
  let links = '';
  let html = false;
  if (outcome.status >= 300 && outcome.status < 400) {
    routed = followRedirect(lease, outcome, opts.rules);
    const target = routed.accepted[0]?.url ?? routed.rejected[0]?.url;
    if (target !== undefined) record.location = target;
  } else if (outcome.status >= 200 && outcome.status < 300 && lease.kind === 'sitemap') {
    routed = sitemapLinks(lease, outcome, opts.rules, record);
    links = routed.urls.join('\n');
  } else if (analysis !== null && outcome.status >= 200 && outcome.status < 300) {
    html = true;
    routed = pageLinks(lease, analysis, record);
    links = analysis.links;
  } else if (analysis !== null) {
    // An error page's title says what went wrong ("Gone", "Access denied"); its links are
    // not followed, as a browser user would not be led on by them either.
    record.title = analysis.title;
  }
  return {
    record,
    completion: {
      leaseId: lease.id,
      outcome: {
        kind: 'done',
        validators: { ...validatorsOf(outcome.headers), capturedAt: outcome.startedAt.getTime() },
      },
      outlinks: routed.accepted,
      rejected: routed.rejected,
      hasForm: html && analysis?.hasForm === true,
    },
    page: {
      page: {
        url: lease.url,
        status: outcome.status,
        headers: outcome.headers,
        contentType: outcome.contentType,
        facts: html ? (analysis?.facts ?? null) : null,
        links,
        depth: lease.depth,
        referrer: lease.via,
      },
      body: html ? packed : null,
    },
    report,
  };
}

/**
 * A URL robots.txt keeps us from: not fetched, and recorded as refused. When the site's
 * robots.txt answered 5xx, everything is disallowed until it is read again: the URL is
 * tried again later, then failed.
 */
export function processBlocked(
  lease: Lease,
  reason: 'robots' | 'robots-unavailable',
  retryAfterMs: number | null,
  opts: ProcessOptions,
): ProcessedPage {
  const report: FetchReport = { fetchMs: 0, noRequest: true };
  if (reason === 'robots-unavailable' && retryAfterMs !== null && lease.attempt <= opts.retry.retries) {
    return retry(lease, report, reason, retryAfterMs);
  }
  const record = blankRecord(lease);
  record.error = reason;
  if (reason === 'robots') {
    return { record, completion: completion(lease, { kind: 'refused', reason }), page: null, report };
  }
  return failed(lease, report, record);
}

/**
 * The lease's slot went to another request to its host first (its robots.txt): the URL
 * goes back to the queue with no try spent, and the host's gap counts from that request.
 */
export function processDeferred(lease: Lease, report: FetchReport): ProcessedPage {
  return { record: null, completion: completion(lease, { kind: 'deferred' }), page: null, report };
}

/** A bug must not lose the URL: it is recorded as failed ('internal'), with why. */
export function processCrash(lease: Lease, err: unknown): ProcessedPage {
  const record = blankRecord(lease);
  record.error = 'internal';
  record.detail = err instanceof Error ? err.message : String(err);
  return failed(lease, { fetchMs: 0 }, record);
}

function retry(lease: Lease, report: FetchReport, error: string, afterMs: number): ProcessedPage {
  return {
    record: null,
    completion: completion(lease, { kind: 'retry', error, afterMs }),
    page: null,
    report,
  };
}

function failed(lease: Lease, report: FetchReport, record: PageRecord): ProcessedPage {
  return {
    record,
    completion: completion(lease, { kind: 'failed', error: record.error ?? 'failed' }),
    page: null,
    report,
  };
}

function completion(lease: Lease, outcome: Outcome): Completion {
  return { leaseId: lease.id, outcome, outlinks: [], rejected: [] };
}

/** The line of a URL before anything is known of it but where it was found. */
function blankRecord(at: { url: string; depth: number; via: string | null }): PageRecord {
  return {
    url: at.url,
    status: null,
    contentType: null,
    bytes: null,
    depth: at.depth,
    title: null,
    outlinks: 0,
    hasForm: false,
    fetchedAt: null,
    durationMs: null,
    via: at.via,
  };
}

function failureRecord(lease: Lease, outcome: FetchFailure): PageRecord {
  const record = blankRecord(lease);
  record.status = outcome.status ?? null;
  record.fetchedAt = outcome.startedAt.toISOString();
  record.durationMs = Math.round(outcome.durationMs);
  record.error = outcome.error;
  record.detail = outcome.message;
  if (lease.attempt > 1) record.attempts = lease.attempt;
  return record;
}

function successRecord(lease: Lease, outcome: FetchSuccess): PageRecord {
  const record = blankRecord(lease);
  record.status = outcome.status;
  record.contentType = outcome.contentType;
  record.bytes = outcome.body.length;
  record.fetchedAt = outcome.startedAt.toISOString();
  record.durationMs = Math.round(outcome.durationMs);
  if (lease.attempt > 1) record.attempts = lease.attempt;
  return record;
}

/** The page's line from its analysis, and its links as the store takes them (one hop deeper, found here). */
function pageLinks(lease: Lease, analysis: PageAnalysis, record: PageRecord): RoutedLinks {
  record.title = analysis.title;
  record.hasForm = analysis.hasForm;
  if (analysis.noindex) record.noindex = true;
  record.outlinks = analysis.outlinks;
  const depth = lease.depth + 1;
  return {
    accepted: analysis.accepted.map((url) => ({ url, depth, via: lease.url, redirects: 0, kind: 'page' })),
    rejected: analysis.rejected.map(({ url, reason }) => ({ url, depth, via: lease.url, reason })),
    urls: [],
  };
}

/** The URLs a sitemap lists go down the same path as links; nested sitemaps stay sitemaps. */
function sitemapLinks(
  lease: Lease,
  outcome: FetchSuccess,
  rules: LinkRules,
  record: PageRecord,
): RoutedLinks {
  const sitemap = parseSitemap(outcome.body, { url: outcome.url, contentType: outcome.contentType });
  const pages = routeLinks(sitemap.urls, outcome.url, lease, rules);
  const nested = routeLinks(sitemap.sitemaps, outcome.url, lease, rules, 'sitemap');
  const urls = [...pages.urls, ...nested.urls];
  record.outlinks = urls.length;
  if (sitemap.problems.length > 0) record.detail = `sitemap: ${sitemap.problems.join('; ')}`;
  return {
    accepted: [...pages.accepted, ...nested.accepted],
    rejected: [...pages.rejected, ...nested.rejected],
    urls,
  };
}

/** A redirect's Location goes down the same canonicalize -> filter -> seen path as a link. */
function followRedirect(lease: Lease, outcome: FetchSuccess, rules: LinkRules): RoutedLinks {
  const location = outcome.headers.location;
  if (location === undefined || location === '') return NO_LINKS;
  return routeLinks([location], outcome.url, lease, rules, 'redirect');
}

/** The validators a response's headers name, for a later conditional GET. */
function validatorsOf(headers: Record<string, string>): Validators {
  const etag = headers.etag;
  const lastModified = headers['last-modified'];
  return {
    ...(etag === undefined ? {} : { etag }),
    ...(lastModified === undefined ? {} : { lastModified }),
  };
}

/** The pages.jsonl line for a URL the crawl refused, or gave up on without fetching. */
export function refusedRecord(r: RejectedLink): PageRecord {
  const record = blankRecord(r);
  // These two are reasons of their own; every other refusal is a filter, named in detail.
  if (r.reason === 'too-long' || r.reason === 'host-unreachable') record.error = r.reason;
  else {
    record.error = 'filtered';
    record.detail = r.reason;
  }
  return record;
}
