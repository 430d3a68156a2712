import type { FetchFailure, FetchSuccess } from '../fetch/types.js';
import type { CrawlerId, Lease, RejectedLink, UrlKind } from '../frontier/types.js';
import type { ObservedFields, PageRecord, ReadFields } from '../output/pages-log.js';

/**
 * A pages.jsonl line while page processing fills it in. Its fields are set in the order
 * the line shows them (users diff the file), and `sealed` ends it with the crawler's id:
 * from then on it is a PageRecord, which nothing changes.
 */
export type RecordDraft = ObservedFields & ReadFields;

/** The line of a URL before anything is known of it but where it was found. */
export function blankDraft(at: {
  url: string;
  depth: number;
  via: string | null;
  kind?: UrlKind;
}): RecordDraft {
  const draft: RecordDraft = {
    url: at.url,
    status: null,
    contentType: null,
    bytes: null,
    depth: at.depth,
    title: null,
    // Only a fetched page has links and forms: unknown (null) on a URL never fetched.
    outlinks: null,
    hasForm: null,
    fetchedAt: null,
    durationMs: null,
    via: at.via,
  };
  if (at.kind === 'requisite') draft.requisite = true;
  return draft;
}

/** A fetch that got no response: the error and its message, and the tries it took. */
export function failureDraft(lease: Lease, outcome: FetchFailure): RecordDraft {
  const draft = blankDraft(lease);
  draft.status = outcome.status ?? null;
  draft.fetchedAt = outcome.startedAt.toISOString();
  draft.durationMs = Math.round(outcome.durationMs);
  draft.error = outcome.error;
  draft.detail = outcome.message;
  if (lease.attempt > 1) draft.attempts = lease.attempt;
  return draft;
}

/** A response: what the fetch saw of it; what was read in the page follows. */
export function successDraft(lease: Lease, outcome: FetchSuccess): RecordDraft {
  const draft = blankDraft(lease);
  draft.status = outcome.status;
  draft.contentType = outcome.contentType;
  draft.bytes = outcome.body.length;
  draft.outlinks = 0;
  draft.hasForm = false;
  draft.fetchedAt = outcome.startedAt.toISOString();
  draft.durationMs = Math.round(outcome.durationMs);
  if (lease.attempt > 1) draft.attempts = lease.attempt;
  return draft;
}

/** The line as written: the crawler that wrote it comes last, after what the crawl found. */
export function sealed(draft: RecordDraft, crawler: CrawlerId): PageRecord {
  draft.crawler = crawler;
  return draft;
}

/** The pages.jsonl line for a URL the crawl refused, or gave up on without fetching. */
export function refusedRecord(r: RejectedLink, crawler: CrawlerId): PageRecord {
  const draft = blankDraft(r);
  // These two are reasons of their own; every other refusal is a filter, named in detail.
  if (r.reason === 'too-long' || r.reason === 'host-unreachable') draft.error = r.reason;
  else {
    draft.error = 'filtered';
    draft.detail = r.reason;
  }
  return sealed(draft, crawler);
}

/** The line of a URL an original client visited (STOREURL): it says nothing but when. */
export function clientVisitRecord(lease: Lease, fetchedAt: Date, crawler: CrawlerId): PageRecord {
  const draft = blankDraft(lease);
  draft.fetchedAt = fetchedAt.toISOString();
  return sealed(draft, crawler);
}
