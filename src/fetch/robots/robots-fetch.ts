/**
 * Fetches an origin's robots.txt and turns the answer into rules, per RFC 9309 section 2.3.1:
 * 2xx parsed, 3xx followed, 4xx "unavailable" (allow all), 5xx and network failures
 * "unreachable" (disallow all).
 */

import { CobwebError } from '../../errors.js';
import type { FetchFailure, FetchOutcome, RequestLimits, Validators } from '../types.js';
import {
  allowAll,
  disallowAll,
  MAX_ROBOTS_BYTES,
  parsedTextOf,
  parseRobotsTxt,
  type RobotsTxt,
} from './robots-txt.js';

/**
 * Fetches one robots.txt URL, a GET that does NOT follow redirects (our Fetcher, through
 * robotsFetchOf); with `startBy`, only if the request can go out by then (else 'late').
 */
export type RobotsFetch = (url: string, startBy?: number) => Promise<FetchOutcome>;

/**
 * The bytes of a robots.txt read: what the parser uses (RFC 9309 2.5 asks for at least
 * 500 KiB), and one more, which tells the parser whether its last line was cut.
 */
export const ROBOTS_READ_BYTES = MAX_ROBOTS_BYTES + 1;

/** What robotsFetchOf needs of the Fetcher. */
export interface RobotsFetcher {
  fetch(
    url: string,
    validators?: Validators,
    startBy?: number,
    limits?: RequestLimits,
  ): Promise<FetchOutcome>;
}

/**
 * The RobotsFetch of a Fetcher: a robots.txt is read up to ROBOTS_READ_BYTES and then
 * cut, so that a 50 MB file costs 500 KiB and is used, not refused as too large (which
 * a 200 would make "unreachable": the whole site closed).
 */
export function robotsFetchOf(fetcher: RobotsFetcher): RobotsFetch {
  const limits: RequestLimits = { readAtMostBytes: ROBOTS_READ_BYTES };
  return (url, startBy) => fetcher.fetch(url, undefined, startBy, limits);
}

export type RobotsState = 'parsed' | 'allow-all' | 'unavailable';

export interface RobotsLoad {
  state: RobotsState;
  /** Status of the last response; null when no response came (network failure). */
  status: number | null;
  robots: RobotsTxt;
  /** 'parsed': the text the rules were parsed from (what the crawl keeps, for its other crawlers). */
  text?: string;
  /** Why robots.txt could not be read, when no answer came at all (refused, dns, timeout...). */
  failure?: FetchFailure;
}

/** RFC 9309 section 2.3.1.2: follow at least five consecutive redirects. */
export const MAX_ROBOTS_REDIRECTS = 5;

const TOO_MANY_REQUESTS = 429;

// Shared by every origin in those states: the cache then holds no rules of its own for them.
const ALLOW_ALL = allowAll();
const DISALLOW_ALL = disallowAll();

/**
 * A robots.txt request could not go out by its lease's deadline (the failure 'late'):
 * nothing was asked of the host, so nothing may be concluded or cached. Whoever waited
 * for that read hears it too.
 */
export class LateStartError extends CobwebError {
  override name = 'LateStartError';
  readonly code = 'COBWEB_LATE_START';
}

/**
 * Fetches `${origin}/robots.txt`, following redirects, and classifies the result. Never
 * rejects, but with LateStartError when its request was not sent for being late.
 */
export async function loadRobotsTxt(
  fetch: RobotsFetch,
  origin: string,
  productToken: string,
): Promise<RobotsLoad> {
  let url = `${origin}/robots.txt`;
  for (let redirects = 0; ; redirects++) {
    let outcome: FetchOutcome;
    try {
      outcome = await fetch(url);
    } catch {
      return unreachable(null);
    }
    if (!outcome.ok) {
      if (outcome.error === 'late') throw new LateStartError(outcome.message);
      // The crawl may not connect there at all: the page fetch will fail the same way and be
      // recorded as 'private-address', which says more than a robots.txt "unavailable".
      if (outcome.error === 'private-address') return unavailable(null);
      // A failure after the head arrived (too-large, a cut body) still has a status that says what
      // the server meant; a 4xx is then unavailable as usual. Anything else could have been a
      // robots.txt we failed to read, which must not open the site.
      const status = outcome.status ?? null;
      if (status !== null && isUnavailable(status)) return unavailable(status);
      return { ...unreachable(status), failure: outcome };
    }
    const status = outcome.status;
    if (status >= 200 && status < 300) {
      // parseRobotsTxt reads no further than MAX_ROBOTS_BYTES, so a body cut there (robotsFetchOf) is whole to it.
      const robots = parseRobotsTxt(outcome.body, productToken);
      return { state: 'parsed', status, robots, text: parsedTextOf(outcome.body) };
    }
    if (status >= 300 && status < 400) {
      // Past five redirects RFC 9309 2.3.1.2 lets us "assume that the robots.txt file is
      // unavailable", the 4xx case; so is a redirect that leads nowhere we can fetch.
      const next = redirects < MAX_ROBOTS_REDIRECTS ? redirectTarget(outcome.headers.location, url) : null;
      if (next === null) return unavailable(status);
      url = next;
      continue;
    }
    return isUnavailable(status) ? unavailable(status) : unreachable(status);
  }
}

/**
 * 4xx means there is no robots.txt for us: allow all, 401 and 403 included (RFC 9309 2.3.1.3).
 * Except 429: the server says it is overloaded, a server condition like 5xx, and reading it as
 * "no rules" would let the crawler loose on a site that just asked it to slow down (Google does the same).
 */
function isUnavailable(status: number): boolean {
  return status >= 400 && status < 500 && status !== TOO_MANY_REQUESTS;
}

function unavailable(status: number | null): RobotsLoad {
  return { state: 'allow-all', status, robots: ALLOW_ALL };
}

function unreachable(status: number | null): RobotsLoad {
  return { state: 'unavailable', status, robots: DISALLOW_ALL };
}

/** The absolute http(s) URL a Location header points to, resolved against the URL that answered. */
function redirectTarget(location: string | undefined, base: string): string | null {
  if (location === undefined || location === '') return null;
  const target = URL.parse(location, base);
  if (target === null || (target.protocol !== 'http:' && target.protocol !== 'https:')) return null;
  target.hash = '';
  return target.href;
}
