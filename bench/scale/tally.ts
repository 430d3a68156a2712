// Every request the scale web answers, counted at the web server: which pages were
// answered (and how often), the gap since the host's previous request, robots.txt
// requests per host. Counts in typed arrays sized by the web, not a log that grows with
// the crawl: 10^6 pages cost a few MB.
import type { Reach } from './reach.js';
import { MOVED, pagePath, Robots, type ScaleWeb } from './shape.js';

export interface GapRule {
  /** The crawler's --delay: the least gap between two requests to a host. */
  delayMs: number;
  /** The crawler's --max-delay: a Crawl-delay above it is capped there. */
  maxDelayMs: number;
  /** Slack for the web's clock and the network between a request's start and its arrival. */
  slackMs: number;
  /**
   * How long the crawl keeps an unreachable (5xx) robots.txt before its first retry: its
   * --retry-delay, at least a minute; then as long as it has been unreachable plus that,
   * so the waits double, up to 24 hours (docs/robots.md). A readable one (2xx, 4xx) keeps
   * 24 hours, longer than any run here: asked again at all, it was asked before it expired.
   */
  robotsRetryMs: number;
}

/** A request to a host, as the tally takes it: a page, robots.txt, or something else. */
export const ROBOTS = -1;
export const OTHER = -2;

export interface ShortGap {
  host: string;
  gapMs: number;
  requiredMs: number;
}

export interface TallyReport {
  requests: number;
  reachable: number;
  /** Reachable pages answered at least once. */
  fetched: number;
  missing: number;
  missingExamples: string[];
  /** Pages answered that are not in the reachable set. */
  unexpected: number;
  unexpectedExamples: string[];
  /** Pages (and moved pages' redirects) answered more than once. */
  twice: number;
  twiceExamples: string[];
  shortGaps: number;
  shortGapExamples: ShortGap[];
  robotsHosts: number;
  robotsMax: number;
  /** Hosts asked for robots.txt more than once. */
  robotsRepeatedHosts: number;
  /** robots.txt requests that came before the host's previous one expired (see GapRule.robotsRetryMs). */
  robotsEarly: number;
  /** Hosts with such a request. */
  robotsEarlyHosts: number;
  robotsEarlyExamples: string[];
  byStatus: Record<string, number>;
  /**
   * The biggest host's pages and the mean gap between its requests: its pages take at
   * least pages x gap, which is what a politeness-bound end of a crawl waits for.
   */
  biggestHost: { pages: number; requests: number; meanGapMs: number };
}

const EXAMPLES = 5;
const ROBOTS_TTL_MS = 24 * 60 * 60_000;

export class Tally {
  private answers: Uint8Array;
  private lastAt: Float64Array;
  private lastWasRobots: Uint8Array;
  private robots: Uint16Array;
  private robotsAt: Float64Array;
  private robotsFirstAt: Float64Array;
  private robotsEarly: Uint16Array;
  requests = 0;
  /** 200s for pages: the crawl's progress, read often. */
  pages = 0;
  private shortGaps = 0;
  private shortGapExamples: ShortGap[] = [];
  private byStatus = new Map<number, number>();
  private biggestFirstAt = Number.NaN;
  private biggestLastAt = Number.NaN;
  private biggestRequests = 0;

  constructor(
    private readonly web: ScaleWeb,
    private readonly reach: Reach,
    private readonly rule: GapRule,
  ) {
    this.answers = new Uint8Array(web.totalPages);
    this.lastAt = new Float64Array(web.o.hosts).fill(Number.NEGATIVE_INFINITY);
    this.lastWasRobots = new Uint8Array(web.o.hosts);
    this.robots = new Uint16Array(web.o.hosts);
    this.robotsAt = new Float64Array(web.o.hosts);
    this.robotsFirstAt = new Float64Array(web.o.hosts);
    this.robotsEarly = new Uint16Array(web.o.hosts);
  }

  /** One request's arrival (performance.now() ms). A page's "answer" is its 200 (or a moved page's 301). */
  arrived(host: number, page: number, at: number): void {
    this.requests++;
    if (host < 0) return;
    // Host 0 is the biggest (sizes fall with the host index).
    if (host === 0) {
      if (this.biggestRequests++ === 0) this.biggestFirstAt = at;
      this.biggestLastAt = at;
    }
    const previous = this.lastAt[host] as number;
    // The Crawl-delay cannot bind the request right after robots.txt: the crawler learns it there.
    const crawlDelay = this.lastWasRobots[host] === 1 ? 0 : this.web.crawlDelayMs(host);
    const required = Math.max(this.rule.delayMs, Math.min(crawlDelay, this.rule.maxDelayMs));
    const gap = at - previous;
    if (gap < required - this.rule.slackMs) {
      this.shortGaps++;
      if (this.shortGapExamples.length < EXAMPLES) {
        this.shortGapExamples.push({
          host: this.web.hostName(host),
          gapMs: Math.round(gap * 10) / 10,
          requiredMs: required,
        });
      }
    }
    this.lastAt[host] = at;
    this.lastWasRobots[host] = page === ROBOTS ? 1 : 0;
    if (page === ROBOTS) this.robotsAsked(host, at);
  }

  private robotsAsked(host: number, at: number): void {
    const before = this.robots[host] as number;
    const last = this.robotsAt[host] as number;
    if (before > 0) {
      const expiry =
        this.web.robots[host] === Robots.ServerError
          ? Math.min(ROBOTS_TTL_MS, last - (this.robotsFirstAt[host] as number) + this.rule.robotsRetryMs)
          : Number.POSITIVE_INFINITY;
      if (at - last < expiry - this.rule.slackMs) {
        this.robotsEarly[host] = Math.min(65_535, (this.robotsEarly[host] as number) + 1);
      }
    } else {
      this.robotsFirstAt[host] = at;
    }
    this.robots[host] = Math.min(65_535, before + 1);
    this.robotsAt[host] = at;
  }

  answered(host: number, page: number, status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    if (host < 0 || page < 0 || (status !== 200 && status !== 301)) return;
    const id = (this.web.offsets[host] as number) + page;
    this.answers[id] = Math.min(255, (this.answers[id] as number) + 1);
    if (status === 200) this.pages++;
  }

  report(): TallyReport {
    const web = this.web;
    const r: TallyReport = {
      requests: this.requests,
      reachable: this.reach.count,
      fetched: 0,
      missing: 0,
      missingExamples: [],
      unexpected: 0,
      unexpectedExamples: [],
      twice: 0,
      twiceExamples: [],
      shortGaps: this.shortGaps,
      shortGapExamples: this.shortGapExamples,
      robotsHosts: 0,
      robotsMax: 0,
      robotsRepeatedHosts: 0,
      robotsEarly: 0,
      robotsEarlyHosts: 0,
      robotsEarlyExamples: [],
      byStatus: Object.fromEntries(this.byStatus),
      biggestHost: {
        pages: web.size(0),
        requests: this.biggestRequests,
        meanGapMs:
          this.biggestRequests < 2
            ? 0
            : Math.round((this.biggestLastAt - this.biggestFirstAt) / (this.biggestRequests - 1)),
      },
    };
    for (let host = 0; host < web.o.hosts; host++) {
      const first = web.offsets[host] as number;
      for (let page = 0; page < web.size(host); page++) {
        const answers = this.answers[first + page] as number;
        const must = this.reach.pages[first + page] === 1;
        const url = `http://${web.hostName(host)}${pagePath(page)}`;
        if (must && answers > 0) r.fetched++;
        if (must && answers === 0 && r.missing++ < EXAMPLES) r.missingExamples.push(url);
        if (answers > 1 && r.twice++ < EXAMPLES) r.twiceExamples.push(url);
        // A moved page's 301 is not in the set of pages; everything else answered must be.
        if (!must && answers > 0 && !web.has(host, MOVED) && r.unexpected++ < EXAMPLES) {
          r.unexpectedExamples.push(url);
        }
      }
      const robots = this.robots[host] as number;
      if (robots > 0) r.robotsHosts++;
      if (robots > 1) r.robotsRepeatedHosts++;
      r.robotsMax = Math.max(r.robotsMax, robots);
      const early = this.robotsEarly[host] as number;
      r.robotsEarly += early;
      if (early > 0 && r.robotsEarlyHosts++ < EXAMPLES) {
        r.robotsEarlyExamples.push(
          `${web.hostName(host)} asked ${robots} times (robots.txt ${web.robotsTxt(host).status})`,
        );
      }
    }
    return r;
  }
}
