import type { RobotsAnswer, RobotsEntry, StoredRobots } from '../../fetch/robots/robots-entry.js';
import {
  afterRobotsRead,
  askRobots,
  type RobotsRow,
  robotsColumnsOf,
  robotsTimesOf,
} from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds } from '../types.js';
import { liveCrawlers } from './crawlers.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** robots(): the crawl's entry for an origin, or the read for this crawler, or 'busy'. */
export function askRobotsOf(s: Store, origin: string, crawler: CrawlerId, tx: Tx): RobotsAnswer {
  const isLive = (reader: CrawlerId) => liveCrawlers(s, tx.now).has(reader);
  const { answer, row } = askRobots(robotsRowOf(s, origin), crawler, tx.now, s.settings.leaseMs, isLive);
  if (row !== null) putRobotsRow(s, origin, row);
  return answer;
}

/** recordRobots(): what the reader read becomes the crawl's entry (or its read is given back). */
export function recordRobotsOf(
  s: Store,
  origin: string,
  entry: RobotsEntry | null,
  crawler: CrawlerId,
  tx: Tx,
): StoredRobots | null {
  const times = robotsTimesOf(s.settings);
  const { kept, row } = afterRobotsRead(robotsRowOf(s, origin), entry, crawler, tx.now, times);
  putRobotsRow(s, origin, row);
  return kept;
}

/** crawlSeeds(): adds the seeds' origins and addresses, answers all the crawl has. */
export function crawlSeedsOf(s: Store, add: CrawlSeeds): CrawlSeeds {
  for (const o of add.origins) s.st.addSeedOrigin.run(o);
  for (const a of add.addresses) s.st.allowAddress.run(a);
  return {
    origins: s.st.seedOrigins.pluck().all() as string[],
    addresses: s.st.allowedAddresses.pluck().all() as string[],
  };
}

interface RobotsRecord {
  entry: string | null;
  fetched_at: number;
  expires_at: number;
  read_by: number | null;
  read_until: number;
}

function robotsRowOf(s: Store, origin: string): RobotsRow | undefined {
  const r = s.st.getRobots.get(origin) as RobotsRecord | undefined;
  if (r === undefined) return undefined;
  return {
    held:
      r.entry === null
        ? null
        : { entry: JSON.parse(r.entry) as RobotsEntry, fetchedAt: r.fetched_at, expiresAt: r.expires_at },
    readBy: r.read_by,
    readUntil: r.read_until,
  };
}

function putRobotsRow(s: Store, origin: string, row: RobotsRow): void {
  s.st.putRobots.run(origin, ...robotsColumnsOf(row));
}
