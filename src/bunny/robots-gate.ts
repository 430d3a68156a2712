import { LateStartError, type RobotsCache, type RobotsVerdict } from '../fetch/robots/robots-cache.js';
import type { FetchFailure, FetchOutcome } from '../fetch/types.js';
import { backoffMs } from '../frontier/policy/backoff.js';
import type { FetchReport, Lease } from '../frontier/types.js';
import { originOf } from '../url/host.js';

export interface GateSettings {
  maxDelayMs: number;
  /** How long a URL waits when its site's robots.txt could not be read. */
  retryDelayMs: number;
}

/** What the robots gate says about one leased URL. */
export type GateAnswer =
  /**
   * The URL may be fetched or not. `report` and `requests` are set when this lease read
   * robots.txt to find out (a request to the host, to be released and archived).
   */
  | { kind: 'verdict'; verdict: GateVerdict; report: FetchReport | null; requests: FetchOutcome[] }
  /**
   * The site's robots.txt had to be read first. That was this lease's request to the
   * host: the page waits for its next turn (and the gap after this request).
   */
  | { kind: 'read'; origin: string; report: FetchReport; requests: FetchOutcome[] }
  /**
   * robots.txt had to be read, and its request could not go out by the lease's deadline,
   * or another crawler of the crawl is reading it: no request was made.
   */
  | { kind: 'late' };

export interface GateVerdict {
  allowed: boolean;
  reason?: 'robots' | 'robots-unavailable';
  /** Crawl-delay, capped at --max-delay. */
  crawlDelayMs: number | null;
  /** For 'robots-unavailable': when to try the URL again. */
  retryMs: number | null;
  /** robots.txt got no answer at all: why (the URL is failed or retried with this cause). */
  failure?: FetchFailure;
}

/**
 * The robots gate (RFC 9309, cached per origin): answers from the cache, or from the
 * crawl's entry (its store's), or reads the origin's robots.txt as the lease's own
 * request when the crawl gives this crawler the read. That read goes through the same
 * scheduler as a page fetch, so the host's gap follows it and no slot ever sleeps.
 */
export async function robotsGate(
  robots: RobotsCache,
  lease: Lease,
  settings: GateSettings,
  startBy: number | null = null,
): Promise<GateAnswer> {
  const known = robots.cached(lease.url);
  if (known !== undefined) {
    return { kind: 'verdict', verdict: verdictOf(known, lease, settings), report: null, requests: [] };
  }
  const origin = originOf(lease.url);
  let requests: FetchOutcome[];
  try {
    ({ requests } = await robots.refresh(origin, startBy ?? undefined));
  } catch (err) {
    if (err instanceof LateStartError) return { kind: 'late' };
    throw err;
  }
  const v = robots.cached(lease.url);
  if (requests.length === 0) {
    // No request of this lease's: the crawl knew the rules (another crawler read them),
    // or this process's other lease read them meanwhile. The page goes on to its fetch.
    if (v === undefined) return { kind: 'late' };
    return { kind: 'verdict', verdict: verdictOf(v, lease, settings), report: null, requests: [] };
  }
  const crawlDelayMs = capDelay(robots.summaryOf(origin)?.crawlDelayMs ?? null, settings);
  const report = reportOfRequests(requests, crawlDelayMs);
  // A URL robots.txt keeps us from needs no request of its own: it is answered now.
  if (v !== undefined && !v.allowed) {
    return { kind: 'verdict', verdict: verdictOf(v, lease, settings), report, requests };
  }
  return { kind: 'read', origin, report, requests };
}

function verdictOf(v: RobotsVerdict, lease: Lease, settings: GateSettings): GateVerdict {
  const verdict: GateVerdict = {
    allowed: v.allowed,
    crawlDelayMs: capDelay(v.crawlDelayMs, settings),
    retryMs: v.reason === 'robots-unavailable' ? backoffMs(settings.retryDelayMs, lease.attempt) : null,
  };
  if (v.reason !== undefined) verdict.reason = v.reason;
  if (v.failure !== undefined) verdict.failure = v.failure;
  return verdict;
}

function capDelay(ms: number | null, settings: GateSettings): number | null {
  return ms === null ? null : Math.min(ms, settings.maxDelayMs);
}

/** What the robots.txt requests taught politeness: their time, the address, a failed connection. */
function reportOfRequests(requests: readonly FetchOutcome[], crawlDelayMs: number | null): FetchReport {
  const report: FetchReport = { fetchMs: 0 };
  for (const r of requests) report.fetchMs += r.responseMs;
  if (crawlDelayMs !== null) report.crawlDelayMs = crawlDelayMs;
  const last = requests[requests.length - 1];
  if (last?.ok === true) report.address = last.exchange.remoteAddress;
  else if (last?.ok === false && last.connectFailed === true) report.connectFailed = true;
  return report;
}
