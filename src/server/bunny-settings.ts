import { type HostRules, mostPerHost } from '../frontier/policy/host-rules.js';
import type { JsonObject } from '../protocol/index.js';
import type { ScopeMode } from '../url/filter.js';

/**
 * What a server tells its bunnies in WELCOME: the settings that decide which links a
 * crawl follows and how a fetch's outcome is judged. They are the crawl's, so every
 * bunny filters links and retries alike; how to fetch (User-Agent, timeouts,
 * concurrency) stays each bunny's own.
 */
export interface BunnySettings {
  seeds: string[];
  scope: ScopeMode;
  include: string[];
  exclude: string[];
  skipExtensions: string[];
  /** --skip-substring: a link containing any of these is refused (reason `substring`). */
  skipSubstrings: string[];
  maxPathSegments: number;
  maxSegmentRepeats: number;
  maxQueryParams: number;
  maxDepth: number;
  maxRedirects: number;
  followNofollow: boolean;
  /** --requisites: absent from a server older than the key (none then). */
  requisites?: boolean;
  /** --render: absent from a server older than the key (never then). */
  render?: 'never' | 'auto' | 'always';
  /**
   * The server hands a bunny back the captured requisites new to the crawl, and writes the
   * lines their ACK brings (docs/protocol.md, "Captured requisites"). Absent from an older
   * server, which would write them as refused: its bunnies fetch requisites instead.
   */
  capturesBack?: true;
  retries: number;
  retryDelayMs: number;
  maxDelayMs: number;
  /**
   * --per-host: the fetches in flight to one host; a rendering bunny's pages' own
   * requests keep to it too (absent from an older server: the bunny's own).
   */
  perHost?: number;
  /**
   * The most of a host's URLs the server leases at once: --per-host, or a host section's
   * above it. A bunny opens as many connections to one host (absent from an older server:
   * `perHost`, or the bunny's own).
   */
  connectionsPerHost?: number;
  /** --delay and --delay-factor: a rendering bunny spaces its pages' own requests by them (absent from an older server: the bunny's). */
  delayMs?: number;
  delayFactor?: number;
  ignoreRobots: boolean;
  sitemaps: boolean;
}

export interface BunnySettingsSource {
  scope: ScopeMode;
  include?: readonly RegExp[] | undefined;
  exclude?: readonly RegExp[] | undefined;
  skipExtensions: readonly string[];
  skipSubstrings?: readonly string[] | undefined;
  maxPathSegments: number;
  maxSegmentRepeats: number;
  maxQueryParams: number;
  maxDepth: number;
  maxRedirects: number;
  followNofollow?: boolean | undefined;
  requisites?: boolean | undefined;
  render?: 'never' | 'auto' | 'always' | undefined;
  retries: number;
  retryDelayMs: number;
  maxDelayMs: number;
  perHost?: number | undefined;
  /** The crawl's host sections: a section's perHost above the crawl's widens connectionsPerHost. */
  hosts?: HostRules | undefined;
  delayMs?: number | undefined;
  delayFactor?: number | undefined;
  ignoreRobots: boolean;
  sitemaps: boolean;
}

/** The server's side: its options as JSON (regular expressions as their source). */
export function settingsForBunnies(o: BunnySettingsSource, seeds: readonly string[]): JsonObject {
  const s: BunnySettings = {
    seeds: [...seeds],
    scope: o.scope,
    include: (o.include ?? []).map((r) => r.source),
    exclude: (o.exclude ?? []).map((r) => r.source),
    skipExtensions: [...o.skipExtensions],
    skipSubstrings: [...(o.skipSubstrings ?? [])],
    maxPathSegments: o.maxPathSegments,
    maxSegmentRepeats: o.maxSegmentRepeats,
    maxQueryParams: o.maxQueryParams,
    maxDepth: o.maxDepth,
    maxRedirects: o.maxRedirects,
    followNofollow: o.followNofollow === true,
    requisites: o.requisites === true,
    render: o.render ?? 'never',
    capturesBack: true,
    retries: o.retries,
    retryDelayMs: o.retryDelayMs,
    maxDelayMs: o.maxDelayMs,
    ...(o.perHost === undefined
      ? {}
      : { perHost: o.perHost, connectionsPerHost: mostPerHost(o.perHost, o.hosts) }),
    ...(o.delayMs === undefined ? {} : { delayMs: o.delayMs }),
    ...(o.delayFactor === undefined ? {} : { delayFactor: o.delayFactor }),
    ignoreRobots: o.ignoreRobots,
    sitemaps: o.sitemaps,
  };
  return s as unknown as JsonObject;
}

/** The bunny's side: what WELCOME carried, checked, back as options; null when it is not that. */
export function bunnySettingsFrom(
  json: JsonObject,
): (BunnySettingsSource & { seeds: string[]; capturesBack: boolean; connectionsPerHost?: number }) | null {
  const s = json as Partial<BunnySettings>;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  const whole = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (
    !strings(s.seeds) ||
    !['host', 'domain', 'any'].includes(String(s.scope)) ||
    !strings(s.include) ||
    !strings(s.exclude) ||
    !strings(s.skipExtensions) ||
    !(s.skipSubstrings === undefined || strings(s.skipSubstrings)) ||
    ![s.maxPathSegments, s.maxSegmentRepeats, s.maxQueryParams, s.maxDepth, s.maxRedirects].every(whole) ||
    ![s.retries, s.retryDelayMs, s.maxDelayMs].every(whole)
  ) {
    return null;
  }
  try {
    return {
      seeds: s.seeds,
      scope: s.scope as ScopeMode,
      include: s.include.map((r) => new RegExp(r)),
      exclude: s.exclude.map((r) => new RegExp(r)),
      skipExtensions: s.skipExtensions,
      // a server older than the key sends none
      skipSubstrings: s.skipSubstrings ?? [],
      maxPathSegments: s.maxPathSegments as number,
      maxSegmentRepeats: s.maxSegmentRepeats as number,
      maxQueryParams: s.maxQueryParams as number,
      maxDepth: s.maxDepth as number,
      maxRedirects: s.maxRedirects as number,
      followNofollow: s.followNofollow === true,
      requisites: s.requisites === true,
      render: s.render === 'auto' || s.render === 'always' ? s.render : 'never',
      capturesBack: s.capturesBack === true,
      retries: s.retries as number,
      retryDelayMs: s.retryDelayMs as number,
      maxDelayMs: s.maxDelayMs as number,
      ...(whole(s.perHost) && s.perHost >= 1 ? { perHost: Math.floor(s.perHost) } : {}),
      ...(whole(s.connectionsPerHost) && s.connectionsPerHost >= 1
        ? { connectionsPerHost: Math.floor(s.connectionsPerHost) }
        : {}),
      ...(whole(s.delayMs) ? { delayMs: s.delayMs } : {}),
      ...(whole(s.delayFactor) ? { delayFactor: s.delayFactor } : {}),
      ignoreRobots: s.ignoreRobots === true,
      sitemaps: s.sitemaps === true,
    };
  } catch {
    return null;
  }
}
