/**
 * An origin's robots.txt as a crawl keeps it for all its crawlers (RFC 9309 section 2.4):
 * one crawler reads the file, the crawl's store keeps what it read, and every crawler
 * parses the same text. Plain data, so it can be stored and sent.
 */
import type { FetchErrorReason, FetchFailure } from '../types.js';
import type { RobotsLoad, RobotsState } from './robots-fetch.js';
import { allowAll, disallowAll, parseRobotsTxt } from './robots-txt.js';

export interface RobotsEntry {
  state: RobotsState;
  /** Status of the last response; null when no response came. */
  status: number | null;
  /** 'parsed': the file's text, as far as the parser reads it (MAX_ROBOTS_BYTES). */
  text: string | null;
  /** 'unavailable' because no answer came at all: why. */
  failure?: RobotsFailure;
}

export interface RobotsFailure {
  error: FetchErrorReason;
  message: string;
  connectFailed?: true;
}

/** An entry and how much longer the crawl holds it. */
export interface StoredRobots {
  entry: RobotsEntry;
  validForMs: number;
}

/**
 * What the crawl says when a crawler needs an origin's rules: here they are; read the
 * file yourself (the crawl now waits for your recordRobots); or another crawler is
 * reading it (come back later, nothing fetched meanwhile).
 */
export type RobotsAnswer = { kind: 'known'; robots: StoredRobots } | { kind: 'read' } | { kind: 'busy' };

/**
 * How long entries hold: a file read, 24 h by default; an unreachable one, until it is
 * tried again: `unavailableRetryMs` after the first failure, then doubling while the file
 * stays unreachable, up to `ttlMs` (keptAfterRead).
 */
export interface RobotsTimes {
  ttlMs: number;
  unavailableRetryMs: number;
}

export const DEFAULT_ROBOTS_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_UNAVAILABLE_RETRY_MS = 60 * 60 * 1000;

/**
 * An entry (or the rules parsed from one) held since `fetchedAt`, good until `expiresAt`
 * (epoch ms of whoever holds it). An unreachable entry's `fetchedAt` is when the file was
 * first found unreachable in the failures in a row it stands for.
 */
export interface HeldRobots<T extends { state: RobotsState } = RobotsEntry> {
  entry: T;
  fetchedAt: number;
  expiresAt: number;
}

/**
 * What a crawl keeps after a read: a file read (or a 4xx) for the TTL; an unreachable
 * one until it is tried again, with yesterday's rules kept meanwhile if there were some
 * (RFC 9309 2.4: better the rules of yesterday than closing a site over one failed refresh).
 *
 * A file that stays unreachable is asked again after as long as it has been unreachable,
 * plus the first delay: the delays double (1, 2, 4, 8... times `unavailableRetryMs`) up
 * to the TTL. Every URL of the host would otherwise ask again each `unavailableRetryMs`
 * for as long as the server fails (RFC 9309 2.3.1.4 leaves the schedule to the crawler;
 * 2.4 caps a cached answer at 24 hours). How long is read from the times kept, so the
 * back-off needs no count of its own in any store: an unreachable entry keeps the time
 * of the first failure; kept rules have been unreachable since they expired.
 */
export function keptAfterRead<T extends { state: RobotsState }>(
  previous: HeldRobots<T> | undefined,
  read: T,
  now: number,
  times: RobotsTimes,
): HeldRobots<T> {
  if (read.state !== 'unavailable') return { entry: read, fetchedAt: now, expiresAt: now + times.ttlMs };
  const since =
    previous === undefined
      ? now
      : previous.entry.state === 'unavailable'
        ? previous.fetchedAt
        : previous.fetchedAt + times.ttlMs;
  const delay = Math.min(
    times.ttlMs,
    Math.max(times.unavailableRetryMs, now - since + times.unavailableRetryMs),
  );
  if (previous !== undefined && previous.entry.state !== 'unavailable') {
    return { entry: previous.entry, fetchedAt: previous.fetchedAt, expiresAt: now + delay };
  }
  return { entry: read, fetchedAt: Math.min(since, now), expiresAt: now + delay };
}

/** The entry to keep of a load. */
export function entryOfLoad(load: RobotsLoad): RobotsEntry {
  const entry: RobotsEntry = { state: load.state, status: load.status, text: load.text ?? null };
  if (load.failure !== undefined) {
    const { error, message, connectFailed } = load.failure;
    entry.failure = { error, message, ...(connectFailed === true ? { connectFailed } : {}) };
  }
  return entry;
}

/** The rules of a kept entry, for `productToken`. */
export function loadOfEntry(entry: RobotsEntry, origin: string, productToken: string): RobotsLoad {
  const robots =
    entry.state === 'parsed'
      ? parseRobotsTxt(entry.text ?? '', productToken)
      : entry.state === 'allow-all'
        ? allowAll()
        : disallowAll();
  const load: RobotsLoad = { state: entry.state, status: entry.status, robots };
  if (entry.text !== null) load.text = entry.text;
  if (entry.failure !== undefined) load.failure = failureOf(entry.failure, `${origin}/robots.txt`);
  return load;
}

function failureOf(f: RobotsFailure, url: string): FetchFailure {
  return {
    ok: false,
    url,
    error: f.error,
    message: f.message,
    ...(f.connectFailed === true ? { connectFailed: true as const } : {}),
    startedAt: new Date(),
    durationMs: 0,
    responseMs: 0,
  };
}

/** Whether a value read from a store or the wire is an entry (the wire checks its own shape). */
export function isRobotsState(v: unknown): v is RobotsState {
  return v === 'parsed' || v === 'allow-all' || v === 'unavailable';
}
