import type { FetchOutcome, FetchSuccess } from '../fetch/types.js';
import type { Completion, Lease, RejectedLink } from '../frontier/types.js';
import type { PageRecord } from '../output/pages-log.js';
import { type ParsedHtml, parseHtml } from '../parse/html.js';
import { countDistinct, type LinkRules, type RoutedLinks, routeLinks } from './links.js';

export interface ProcessedPage {
  record: PageRecord;
  completion: Completion;
  /** Set for HTML pages, for the modules (a later issue) to read. */
  parsed: ParsedHtml | null;
}

export interface ProcessOptions {
  rules: LinkRules;
  followNofollow: boolean;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** The media type of a Content-Type value, lowercase, without parameters. */
function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * parse -> links: turns one fetch into the pages.jsonl line and the frontier completion.
 * Plain data in, plain data out: it neither fetches nor writes.
 */
export function processFetch(lease: Lease, outcome: FetchOutcome, opts: ProcessOptions): ProcessedPage {
  if (!outcome.ok) {
    return {
      record: {
        url: lease.url,
        status: outcome.status ?? null,
        contentType: null,
        bytes: null,
        depth: lease.depth,
        title: null,
        outlinks: 0,
        hasForm: false,
        fetchedAt: outcome.startedAt.toISOString(),
        durationMs: Math.round(outcome.durationMs),
        via: lease.via,
        error: outcome.error,
        detail: outcome.message,
      },
      completion: {
        url: lease.url,
        host: lease.host,
        outcome: { kind: 'failed', error: outcome.error },
        fetchMs: outcome.durationMs,
        outlinks: [],
        rejected: [],
      },
      parsed: null,
    };
  }

  const type = mediaType(outcome.contentType);
  const parsed =
    outcome.status >= 200 && outcome.status < 300 && type !== null && HTML_TYPES.has(type)
      ? parseHtml(outcome.body, { url: outcome.url, contentType: outcome.contentType })
      : null;
  const record: PageRecord = {
    url: lease.url,
    status: outcome.status,
    contentType: outcome.contentType,
    bytes: outcome.body.length,
    depth: lease.depth,
    title: parsed?.title ?? null,
    outlinks: 0,
    hasForm: parsed?.hasForm ?? false,
    fetchedAt: outcome.startedAt.toISOString(),
    durationMs: Math.round(outcome.durationMs),
    via: lease.via,
  };

  let routed: RoutedLinks = { accepted: [], rejected: [], distinct: 0 };
  if (outcome.status >= 300 && outcome.status < 400) {
    routed = followRedirect(lease, outcome, opts.rules);
    const target = routed.accepted[0]?.url ?? routed.rejected[0]?.url;
    if (target !== undefined) record.location = target;
  } else if (parsed !== null) {
    if (parsed.metaRobots.noindex) record.noindex = true;
    const follow = parsed.metaRobots.nofollow ? [] : followable(parsed, opts.followNofollow);
    routed = routeLinks(follow, parsed.base, lease, opts.rules);
    record.outlinks =
      follow.length === parsed.links.length
        ? routed.distinct
        : countDistinct(
            parsed.links.map((l) => l.href),
            parsed.base,
          );
  }

  return {
    record,
    completion: {
      url: lease.url,
      host: lease.host,
      outcome: { kind: 'done' },
      fetchMs: outcome.durationMs,
      outlinks: routed.accepted,
      rejected: routed.rejected,
    },
    parsed,
  };
}

/** The hrefs the crawl may follow: nofollow links only with --follow-nofollow. */
function followable(parsed: ParsedHtml, followNofollow: boolean): string[] {
  const hrefs: string[] = [];
  for (const link of parsed.links) {
    if (followNofollow || !link.nofollow) hrefs.push(link.href);
  }
  return hrefs;
}

/** A redirect's Location goes down the same canonicalize -> filter -> seen path as a link. */
function followRedirect(lease: Lease, outcome: FetchSuccess, rules: LinkRules): RoutedLinks {
  const location = outcome.headers.location;
  if (location === undefined || location === '') return { accepted: [], rejected: [], distinct: 0 };
  return routeLinks([location], outcome.url, lease, rules, 'redirect');
}

/** The pages.jsonl line for a URL the crawl refused. */
export function refusedRecord(r: RejectedLink): PageRecord {
  const tooLong = r.reason === 'too-long';
  return {
    url: r.url,
    status: null,
    contentType: null,
    bytes: null,
    depth: r.depth,
    title: null,
    outlinks: 0,
    hasForm: false,
    fetchedAt: null,
    durationMs: null,
    via: r.via,
    error: tooLong ? 'too-long' : 'filtered',
    ...(tooLong ? {} : { detail: r.reason }),
  };
}
