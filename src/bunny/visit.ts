import type { Fetcher } from '../fetch/fetcher.js';
import type { RobotsCache } from '../fetch/robots/robots-cache.js';
import type { FetchOutcome } from '../fetch/types.js';
import type { FetchReport, Lease } from '../frontier/types.js';
import { type PackedExchange, packExchange } from '../output/packed-exchange.js';
import { originOf } from '../url/host.js';
import { type CapturedRequisite, withCaptured } from './captured.js';
import {
  judge,
  type ProcessedPage,
  type ProcessOptions,
  parseWanted,
  processBlocked,
  processDeferred,
  processFetch,
  processUnreachable,
} from './page-processor.js';
import type { ParsePool } from './parse-pool.js';
import { type RenderPart, renderPage, wantsRender } from './render-step.js';
import { type GateSettings, robotsGate } from './robots-gate.js';
import type { SitemapFinder } from './sitemaps.js';

/** One lease's trip through the bunny, up to what must be written: plain data for the crawl loop. */
export interface Visit {
  lease: Lease;
  page: ProcessedPage;
  /** Exchanges to archive: robots.txt requests made for this lease, and the page's final try. */
  warc: PackedExchange[];
  /**
   * --render with --requisites: what the page loaded in the browser, handed to the store
   * as 'captured'; the loop writes those the store says are new (captured.ts).
   */
  captured?: CapturedRequisite[];
}

export interface VisitParts {
  fetcher: Pick<Fetcher, 'fetch' | 'addressOf'>;
  /** null with --ignore-robots. */
  robots: RobotsCache | null;
  gate: GateSettings;
  /** --sitemaps: a new site's sitemaps join the links of its first visit; null without. */
  sitemaps: SitemapFinder | null;
  /** Parses HTML pages (and canonicalizes and filters their links), on its workers. */
  parser: Pick<ParsePool, 'analyze'>;
  /** --render auto|always: pages rendered before they are parsed; null or absent: never. */
  render?: RenderPart | null;
  options: ProcessOptions;
}

/**
 * Told once the page's exchange with its host is over, before the page is parsed: its
 * request slot and the host can serve the next fetch. `bytes`: what the exchange holds.
 */
export type ExchangeOver = (report: FetchReport, bytes: number) => void;

/**
 * robots gate -> fetch -> parse for one lease. It neither leases nor completes: the
 * crawl loop releases the host with `page.report` (or the report `exchangeOver` was
 * told, the same, as soon as the response is in) and hands the rest on.
 */
export async function visit(
  lease: Lease,
  parts: VisitParts,
  startBy: number | null = null,
  exchangeOver?: ExchangeOver,
): Promise<Visit> {
  if (lease.needsAddress === true) {
    const address = await parts.fetcher.addressOf(lease.url);
    if (address !== null) return placed(lease, address);
    // No address: the request below fails at the same lookup, and reaches no server.
  }
  let crawlDelayMs: number | null = null;
  if (parts.robots !== null) {
    if (parts.robots.cached(lease.url) === undefined && late(startBy)) return tooLate(lease);
    const answer = await robotsGate(parts.robots, lease, parts.gate, startBy);
    if (answer.kind === 'late') return tooLate(lease);
    if (answer.kind === 'read') {
      const sitemaps = parts.sitemaps?.linksFor(answer.origin, parts.robots.summaryOf(answer.origin)) ?? null;
      const page = processDeferred(lease, answer.report, sitemaps);
      return { lease, page, warc: archived(answer.requests) };
    }
    const v = answer.verdict;
    if (!v.allowed) {
      // This lease read robots.txt to learn it: that request is what the host saw.
      const page =
        v.failure === undefined
          ? processBlocked(lease, v.reason ?? 'robots', v.retryMs, answer.report, parts.options)
          : processUnreachable(lease, v.failure, answer.report, parts.options);
      return { lease, page, warc: archived(answer.requests) };
    }
    crawlDelayMs = v.crawlDelayMs;
  }
  if (late(startBy)) return tooLate(lease);
  // The fetcher checks the deadline again when the request is about to go out: connecting
  // (or a busy moment of this process) may have taken it past its window.
  const outcome = await parts.fetcher.fetch(lease.url, lease.previous, startBy ?? undefined);
  if (!outcome.ok && outcome.error === 'late') return tooLate(lease);
  const packed = outcome.ok ? packExchange(outcome) : null;
  const judged = judge(lease, outcome, crawlDelayMs, parts.options.retry);
  const wanted = parseWanted(lease, outcome, judged);
  const render = parts.render ?? null;
  const renders = wanted === 'page' && packed !== null && outcome.ok && wantsRender(render, outcome);
  // A page to render keeps its host until the browser is done with it: the page's own
  // requests to its host are part of its turn, so the host's next fetch (from any
  // crawler) waits the gap after them. Any other page lets the host go now.
  if (!renders) exchangeOver?.(judged.report, packed?.buffer.byteLength ?? 0);
  // Rendering serves the browser this response: the host is asked for nothing more
  // than the page's own scripts and data.
  const shown = renders ? await renderPage(render, outcome, packed) : null;
  const analysis =
    wanted === null || packed === null || !outcome.ok
      ? null
      : await parts.parser.analyze(
          {
            url: outcome.url,
            contentType: shown?.contentType ?? outcome.contentType,
            depth: lease.depth,
            firstTry: lease.attempt === 1,
            titleOnly: wanted === 'title',
          },
          shown?.packed ?? packed,
        );
  // Without robots.txt, a site is first met here: its sitemaps join this page's links.
  const sitemaps =
    parts.robots === null ? (parts.sitemaps?.linksFor(originOf(lease.url), undefined) ?? null) : null;
  const processed = processFetch(
    lease,
    outcome,
    judged,
    parts.options,
    sitemaps,
    analysis,
    shown?.packed ?? packed,
    shown?.note ?? null,
  );
  const { page, captured } = withCaptured(lease, processed, shown?.captured ?? [], parts.options.rules);
  const warc = page.record === null || packed === null ? [] : [packed];
  if (page.record !== null && shown?.screenshot) warc.push(shown.screenshot);
  const previous = lease.previous;
  if (page.record?.notModified === true && previous !== undefined) {
    const refersTo = new Date(previous.capturedAt ?? previous.fetchedAt);
    for (const x of warc) x.notModified = { refersToDate: refersTo };
  }
  return captured.length === 0 ? { lease, page, warc } : { lease, page, warc, captured };
}

function late(startBy: number | null): boolean {
  return startBy !== null && Date.now() > startBy;
}

/**
 * The request could not start in its window (this process was busy): starting it now
 * would crowd the host's next request. The URL goes back, no try spent, no request made.
 */
function tooLate(lease: Lease): Visit {
  return { lease, page: processDeferred(lease, { fetchMs: 0, noRequest: true }), warc: [] };
}

/**
 * --politeness-key ip, a host the store has no address for: no request yet. The lease
 * goes back with the address the fetcher would dial, so the store counts the host's
 * requests, the first one included, against that address.
 */
function placed(lease: Lease, address: string): Visit {
  return { lease, page: processDeferred(lease, { fetchMs: 0, noRequest: true, address }), warc: [] };
}

/** The requests worth a WARC record: those that got a response. */
function archived(requests: readonly FetchOutcome[]): PackedExchange[] {
  const out: PackedExchange[] = [];
  for (const r of requests) if (r.ok) out.push(packExchange(r));
  return out;
}
