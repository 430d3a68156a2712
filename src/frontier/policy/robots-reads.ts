import {
  DEFAULT_ROBOTS_TTL_MS,
  DEFAULT_UNAVAILABLE_RETRY_MS,
  type HeldRobots,
  keptAfterRead,
  type RobotsAnswer,
  type RobotsEntry,
  type RobotsTimes,
  type StoredRobots,
} from '../../fetch/robots/robots-entry.js';
import type { CrawlerId, FrontierSettings } from '../types.js';

/**
 * robots.txt once per crawl: every store keeps, per origin, the entry the crawl holds
 * and who is reading the file now, and changes them only through these functions. A
 * read is held for its reader for a lease time, or until the store finds the reader
 * gone (left, or dead: a crawl resumed after kill -9 reads the file at once).
 */
export interface RobotsRow {
  held: HeldRobots | null;
  /** The crawler reading the file now, or null. */
  readBy: CrawlerId | null;
  /** Epoch ms (the store's clock) until which the read is held for `readBy`. */
  readUntil: number;
}

export function robotsTimesOf(settings: Pick<FrontierSettings, 'robots'>): RobotsTimes {
  return (
    settings.robots ?? { ttlMs: DEFAULT_ROBOTS_TTL_MS, unavailableRetryMs: DEFAULT_UNAVAILABLE_RETRY_MS }
  );
}

/** Whether another crawler's read of the row is held for it now (its liveness aside). */
export function heldByAnother(row: RobotsRow | undefined, crawler: CrawlerId, now: number): boolean {
  return row !== undefined && row.readBy !== null && row.readBy !== crawler && row.readUntil > now;
}

/**
 * robots(): the entry while it holds; else 'busy' while another live crawler's read is
 * held for it; else the read is this crawler's (`row` is then what to store).
 */
export function askRobots(
  row: RobotsRow | undefined,
  crawler: CrawlerId,
  now: number,
  leaseMs: number,
  isLive: (reader: CrawlerId) => boolean,
): { answer: RobotsAnswer; row: RobotsRow | null } {
  if (row?.held != null && row.held.expiresAt > now) {
    return { answer: { kind: 'known', robots: storedOf(row.held, now) }, row: null };
  }
  if (heldByAnother(row, crawler, now) && isLive(row?.readBy as CrawlerId)) {
    return { answer: { kind: 'busy' }, row: null };
  }
  return {
    answer: { kind: 'read' },
    row: { held: row?.held ?? null, readBy: crawler, readUntil: now + leaseMs },
  };
}

/**
 * recordRobots(): what a reader read becomes the crawl's entry (keptAfterRead: an
 * unreachable file keeps the rules read before); null gives the reader's read back.
 */
export function afterRobotsRead(
  row: RobotsRow | undefined,
  entry: RobotsEntry | null,
  crawler: CrawlerId,
  now: number,
  times: RobotsTimes,
): { kept: StoredRobots | null; row: RobotsRow } {
  const held = row?.held ?? null;
  if (entry === null) {
    const mine = row?.readBy === crawler;
    return {
      kept: null,
      row: { held, readBy: mine ? null : (row?.readBy ?? null), readUntil: mine ? 0 : (row?.readUntil ?? 0) },
    };
  }
  const kept = keptAfterRead(held ?? undefined, entry, now, times);
  return { kept: storedOf(kept, now), row: { held: kept, readBy: null, readUntil: 0 } };
}

/**
 * A row as both stores write it: the entry as JSON (null before its first read), when it
 * was read, until when it holds, its reader, until when the read is held.
 */
export function robotsColumnsOf(row: RobotsRow): [string | null, number, number, CrawlerId | null, number] {
  const held = row.held;
  return [
    held === null ? null : JSON.stringify(held.entry),
    held?.fetchedAt ?? 0,
    held?.expiresAt ?? 0,
    row.readBy,
    row.readUntil,
  ];
}

function storedOf(held: HeldRobots, now: number): StoredRobots {
  return { entry: held.entry, validForMs: Math.max(1, held.expiresAt - now) };
}
