import type { FetchFailure, FetchOutcome, FetchSuccess } from '../fetch/types.js';
import type {
  Completion,
  CrawlerId,
  FetchReport,
  Lease,
  LeaseId,
  NewLink,
  Outcome,
  Validators,
} from '../frontier/types.js';
import type { WirePage } from '../modules/protocol.js';
import type { PackedExchange } from '../output/packed-exchange.js';
import type { PageRecord } from '../output/pages-log.js';
import { decodeBody } from '../parse/charset.js';
import { cssUrls } from '../parse/css-urls.js';
import { parseSitemap } from '../parse/sitemap.js';
import type { LinkRules, RoutedLinks } from './links.js';
import { routeLinks } from './links.js';
import type { PageAnalysis } from './page-analysis.js';
import { blankDraft, failureDraft, type RecordDraft, sealed, successDraft } from './page-record.js';
import { followedBy, type PageResult } from './page-result.js';
import type { RenderNote } from './render-step.js';
import { parseRetryAfter, type RetrySettings, retryDelay } from './retries.js';

/**
 * A fetched page as the crawl hands it to the modules' step: plain data, and for an HTML
 * page the fetch's packed bytes its body is in (until they move on to the WARC thread).
 */
export interface HookPage {
  page: Omit<WirePage, 'body'>;
  body: PackedExchange | null;
}

export interface ProcessedPage extends PageResult {
  /** The page for the modules; null when nothing was fetched (or it will be tried again). */
  readonly page: HookPage | null;
  /** What politeness learns from this fetch: the crawl loop releases the lease with it. */
  readonly report: FetchReport;
}

export interface ProcessOptions {
  rules: LinkRules;
  retry: RetrySettings;
  /** The crawler whose lines these are: its id from the store. */
  crawler: CrawlerId;
}

/**
 * A fetch judged once, as soon as its response is in: what politeness learns of it (the
 * host is released with this), and whether the URL is tried again (then it is not parsed).
 */
export interface Judgement {
  report: FetchReport;
  /** ms until the URL is tried again; null when this try is its last (its line is written). */
  retryInMs: number | null;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const NO_LINKS: RoutedLinks = { accepted: [], rejected: [], urls: [] };

/** The media type of a Content-Type value, lowercase, without parameters. */
function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** What a fetch says, judged once: see Judgement. */
export function judge(
  lease: Lease,
  outcome: FetchOutcome,
  crawlDelayMs: number | null,
  retry: RetrySettings,
): Judgement {
  const report = reportOf(outcome, crawlDelayMs);
  return { report, retryInMs: retryDelay(outcome, lease.attempt, retry, report.retryAfterMs) };
}

/** What a fetch tells politeness: its duration, a Retry-After, a failed connection, the address. */
function reportOf(outcome: FetchOutcome, crawlDelayMs: number | null): FetchReport {
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
export function parseWanted(lease: Lease, outcome: FetchOutcome, judged: Judgement): 'page' | 'title' | null {
  if (!outcome.ok || !HTML_TYPES.has(mediaType(outcome.contentType) ?? '')) return null;
  if (lease.kind !== 'page' || (outcome.status >= 300 && outcome.status < 400)) return null;
  if (outcome.status < 200) return null;
  if (judged.retryInMs !== null) return null;
  return outcome.status < 300 ? 'page' : 'title';
}

/**
 * links -> record: turns one fetch, as judged, and what its parse found (`analysis`, as
 * parseWanted asked), into the pages.jsonl line and the frontier completion. `found`:
 * links the visit brings besides the page's (a new site's sitemaps), after them. Plain
 * data in, plain data out: it neither fetches nor writes.
 */
export function processFetch(
  lease: Lease,
  outcome: FetchOutcome,
  judged: Judgement,
  opts: ProcessOptions,
  found: RoutedLinks | null = null,
  analysis: PageAnalysis | null = null,
  packed: PackedExchange | null = null,
  rendered: RenderNote | null = null,
): ProcessedPage {
  const { report, retryInMs } = judged;
  if (retryInMs !== null) {
    const error = outcome.ok ? `http-${outcome.status}` : outcome.error;
    return retry(lease, report, error, retryInMs, found);
  }
  if (!outcome.ok) return failed(lease, report, sealed(failureDraft(lease, outcome), opts.crawler), found);
  const draft = successDraft(lease, outcome);
  // A conditional GET's 304: the stored copy holds; nothing to parse, no links to follow.
  if (outcome.status === 304 && lease.previous !== undefined) {
    draft.notModified = true;
    const record = sealed(draft, opts.crawler);
    // The capture the 304 confirmed stays the one the validators stand for.
    const { fetchedAt: _, ...kept } = lease.previous;
    const validators = { ...kept, ...validatorsOf(outcome.headers) };
    return {
      record,
      completion: completion(lease, { kind: 'done', validators }, record, found),
      page: null,
      report,
    };
  }
  let routed = NO_LINKS;
  let links = '';
  let html = false;
  if (outcome.status >= 300 && outcome.status < 400) {
    routed = followRedirect(lease, outcome, opts.rules);
    const target = routed.accepted[0]?.url ?? routed.rejected[0]?.url;
    if (target !== undefined) draft.location = target;
  } else if (outcome.status >= 200 && outcome.status < 300 && lease.kind === 'sitemap') {
    routed = sitemapLinks(lease, outcome, opts.rules, draft);
    links = routed.urls.join('\n');
  } else if (outcome.status >= 200 && outcome.status < 300 && lease.kind === 'requisite') {
    routed = stylesheetLinks(lease, outcome, opts.rules, draft);
  } else if (analysis !== null && outcome.status >= 200 && outcome.status < 300) {
    html = true;
    if (rendered?.rendered === true) draft.rendered = true;
    else if (rendered !== null) {
      draft.renderError = rendered.error;
      draft.detail = rendered.message;
    }
    if (rendered?.subrequests !== undefined) draft.subrequests = rendered.subrequests;
    routed = pageLinks(lease, analysis, draft);
    links = analysis.links;
  } else if (analysis !== null) {
    // An error page's title says what went wrong ("Gone", "Access denied"); its links are
    // not followed, as a browser user would not be led on by them either.
    draft.title = analysis.title;
  }
  const record = sealed(draft, opts.crawler);
  return {
    record,
    completion: {
      leaseId: lease.id,
      outcome: {
        kind: 'done',
        validators: { ...validatorsOf(outcome.headers), capturedAt: outcome.startedAt.getTime() },
      },
      outlinks: found === null ? routed.accepted : followedBy(routed.accepted, found.accepted),
      rejected: found === null ? routed.rejected : followedBy(routed.rejected, found.rejected),
      hasForm: html && analysis?.hasForm === true,
      record,
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
 * The site did not answer for robots.txt (refused, dns, timeout): the URL fails or is
 * retried with that cause, as if its own fetch had failed. The request that tried the
 * connection was counted against the host already (`report`, when this lease made it);
 * an answer from the cache is not.
 */
export function processUnreachable(
  lease: Lease,
  failure: FetchFailure,
  report: FetchReport | null,
  opts: ProcessOptions,
): ProcessedPage {
  const outcome: FetchFailure = { ...failure, url: lease.url, message: `robots.txt: ${failure.message}` };
  const judged: Judgement = {
    report: report ?? { fetchMs: 0, noRequest: true },
    // A failure carries no Retry-After.
    retryInMs: retryDelay(outcome, lease.attempt, opts.retry, undefined),
  };
  return processFetch(lease, outcome, judged, opts);
}

/**
 * A URL robots.txt keeps us from: not fetched, and recorded as refused. When the site's
 * robots.txt answered 5xx, everything is disallowed until it is read again: the URL is
 * tried again later, then failed. `report`: the robots.txt request this lease made to
 * learn it, if it made one.
 */
export function processBlocked(
  lease: Lease,
  reason: 'robots' | 'robots-unavailable',
  retryAfterMs: number | null,
  report: FetchReport | null,
  opts: ProcessOptions,
): ProcessedPage {
  const released = report ?? { fetchMs: 0, noRequest: true };
  if (reason === 'robots-unavailable' && retryAfterMs !== null && lease.attempt <= opts.retry.retries) {
    return retry(lease, released, reason, retryAfterMs, null);
  }
  const draft = blankDraft(lease);
  draft.error = reason;
  const record = sealed(draft, opts.crawler);
  if (reason === 'robots') {
    return {
      record,
      completion: completion(lease, { kind: 'refused', reason }, record, null),
      page: null,
      report: released,
    };
  }
  return failed(lease, released, record, null);
}

/**
 * The lease's slot went to another request to its host first (its robots.txt): the URL
 * goes back to the queue with no try spent, and the host's gap counts from that request.
 * `found`: links that visit brought (a new site's sitemaps).
 */
export function processDeferred(
  lease: Lease,
  report: FetchReport,
  found: RoutedLinks | null = null,
): ProcessedPage {
  return {
    record: null,
    completion: completion(lease, { kind: 'deferred' }, null, found),
    page: null,
    report,
  };
}

/** A bug must not lose the URL: it is recorded as failed ('internal'), with why. */
export function processCrash(lease: Lease, err: unknown, crawler: CrawlerId): ProcessedPage {
  const draft = blankDraft(lease);
  draft.error = 'internal';
  draft.detail = err instanceof Error ? err.message : String(err);
  return failed(lease, { fetchMs: 0 }, sealed(draft, crawler), null);
}

/**
 * A lease handed back unvisited (a pause, a server's back-off): deferred, no try spent,
 * no request made to its host.
 */
export function givenBack(leaseId: LeaseId): Completion {
  return {
    leaseId,
    outcome: { kind: 'deferred' },
    report: { fetchMs: 0, noRequest: true },
    outlinks: [],
    rejected: [],
  };
}

function retry(
  lease: Lease,
  report: FetchReport,
  error: string,
  afterMs: number,
  found: RoutedLinks | null,
): ProcessedPage {
  return {
    record: null,
    completion: completion(lease, { kind: 'retry', error, afterMs }, null, found),
    page: null,
    report,
  };
}

function failed(
  lease: Lease,
  report: FetchReport,
  record: PageRecord,
  found: RoutedLinks | null,
): ProcessedPage {
  return {
    record,
    completion: completion(lease, { kind: 'failed', error: record.error ?? 'failed' }, record, found),
    page: null,
    report,
  };
}

/** A completion without links of the page's own; the visit's `found` links, if any. */
function completion(
  lease: Lease,
  outcome: Outcome,
  record: PageRecord | null,
  found: RoutedLinks | null,
): Completion {
  const c: Completion = {
    leaseId: lease.id,
    outcome,
    outlinks: found === null ? [] : found.accepted,
    rejected: found === null ? [] : found.rejected,
  };
  if (record !== null) c.record = record;
  return c;
}

/** The page's line from its analysis, and its links as the store takes them (one hop deeper, found here). */
function pageLinks(lease: Lease, analysis: PageAnalysis, draft: RecordDraft): RoutedLinks {
  draft.title = analysis.title;
  draft.hasForm = analysis.hasForm;
  if (analysis.noindex) draft.noindex = true;
  draft.outlinks = analysis.outlinks;
  const depth = lease.depth + 1;
  // After the page's links: within a depth the store leases in the order it was given.
  const requisites = analysis.requisites.map(
    (url): NewLink => ({ url, depth, via: lease.url, redirects: 0, kind: 'requisite' }),
  );
  const pages = analysis.accepted.map(
    (url): NewLink => ({ url, depth, via: lease.url, redirects: 0, kind: 'page' }),
  );
  return {
    accepted: requisites.length === 0 ? pages : [...pages, ...requisites],
    rejected: analysis.rejected.map(({ url, reason }) => ({ url, depth, via: lease.url, reason })),
    urls: [],
  };
}

/**
 * A stylesheet fetched as a requisite: the fonts, images and stylesheets its url()s and
 * @imports name are requisites too (resolved against the stylesheet's own URL, as a
 * browser does). Any other requisite is archived and read no further.
 */
function stylesheetLinks(
  lease: Lease,
  outcome: FetchSuccess,
  rules: LinkRules,
  draft: RecordDraft,
): RoutedLinks {
  if (mediaType(outcome.contentType) !== 'text/css') return NO_LINKS;
  const { text } = decodeBody(outcome.body, outcome.contentType);
  const routed = routeLinks(cssUrls(text), outcome.url, lease, rules, 'requisite');
  draft.outlinks = routed.urls.length;
  return routed;
}

/** The URLs a sitemap lists go down the same path as links; nested sitemaps stay sitemaps. */
function sitemapLinks(
  lease: Lease,
  outcome: FetchSuccess,
  rules: LinkRules,
  draft: RecordDraft,
): RoutedLinks {
  const sitemap = parseSitemap(outcome.body, { url: outcome.url, contentType: outcome.contentType });
  const pages = routeLinks(sitemap.urls, outcome.url, lease, rules);
  const nested = routeLinks(sitemap.sitemaps, outcome.url, lease, rules, 'sitemap');
  const urls = [...pages.urls, ...nested.urls];
  draft.outlinks = urls.length;
  if (sitemap.problems.length > 0) draft.detail = `sitemap: ${sitemap.problems.join('; ')}`;
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
