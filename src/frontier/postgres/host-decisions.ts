import type { RobotsAnswer, RobotsEntry, StoredRobots } from '../../fetch/robots/robots-entry.js';
import {
  afterRobotsRead,
  askRobots,
  heldByAnother,
  type RobotsRow,
  robotsColumnsOf,
  robotsTimesOf,
} from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds } from '../types.js';
import { liveCrawlers } from './crawlers.js';
import type { Tx } from './tx.js';

/** robots(): the crawl's entry for an origin, or the read for this crawler, or 'busy'. */
export async function askRobotsOf(tx: Tx, origin: string, crawler: CrawlerId): Promise<RobotsAnswer> {
  const found = await robotsRowOf(tx, origin);
  // Who is alive is read only when another crawler's read stands in the way.
  const live = heldByAnother(found, crawler, tx.now) ? await liveCrawlers(tx) : new Set<number>();
  const { answer, row } = askRobots(found, crawler, tx.now, tx.settings.leaseMs, (c) => live.has(c));
  if (row !== null) await putRobotsRow(tx, origin, row);
  return answer;
}

/** recordRobots(): what the reader read becomes the crawl's entry (or its read is given back). */
export async function recordRobotsOf(
  tx: Tx,
  origin: string,
  entry: RobotsEntry | null,
  crawler: CrawlerId,
): Promise<StoredRobots | null> {
  const times = robotsTimesOf(tx.settings);
  const { kept, row } = afterRobotsRead(await robotsRowOf(tx, origin), entry, crawler, tx.now, times);
  await putRobotsRow(tx, origin, row);
  return kept;
}

/** crawlSeeds(): adds the seeds' origins and addresses, answers all the crawl has. */
export async function crawlSeedsOf(tx: Tx, add: CrawlSeeds): Promise<CrawlSeeds> {
  if (add.origins.length > 0) {
    await tx.q(
      `INSERT INTO seed_origins (crawl, origin) SELECT $1, o FROM unnest($2::text[]) AS u(o) ON CONFLICT DO NOTHING`,
      [tx.crawl, [...add.origins]],
    );
  }
  if (add.addresses.length > 0) {
    await tx.q(
      `INSERT INTO allowed_addresses (crawl, address) SELECT $1, a FROM unnest($2::text[]) AS u(a)
       ON CONFLICT DO NOTHING`,
      [tx.crawl, [...add.addresses]],
    );
  }
  const origins = await tx.q<{ origin: string }>(
    `SELECT origin FROM seed_origins WHERE crawl = $1 ORDER BY origin`,
    [tx.crawl],
  );
  const addresses = await tx.q<{ address: string }>(
    `SELECT address FROM allowed_addresses WHERE crawl = $1 ORDER BY address`,
    [tx.crawl],
  );
  return { origins: origins.map((r) => r.origin), addresses: addresses.map((r) => r.address) };
}

interface RobotsRecord {
  entry: RobotsEntry | null;
  fetched_at: string;
  expires_at: string;
  read_by: number | null;
  read_until: string;
}

/** The origin's row, locked until the transaction ends: two crawlers asking at once take turns. */
async function robotsRowOf(tx: Tx, origin: string): Promise<RobotsRow | undefined> {
  // The row is made first, so there is always one to lock (a plain SELECT ... FOR UPDATE
  // of a missing row locks nothing, and two first askers would both be told to read).
  await tx.q(`INSERT INTO robots (crawl, origin) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [tx.crawl, origin]);
  const [r] = await tx.q<RobotsRecord>(
    `SELECT entry, fetched_at, expires_at, read_by, read_until FROM robots WHERE crawl = $1 AND origin = $2 FOR UPDATE`,
    [tx.crawl, origin],
  );
  if (r === undefined) return undefined;
  return {
    held:
      r.entry === null
        ? null
        : { entry: r.entry, fetchedAt: Number(r.fetched_at), expiresAt: Number(r.expires_at) },
    readBy: r.read_by,
    readUntil: Number(r.read_until),
  };
}

async function putRobotsRow(tx: Tx, origin: string, row: RobotsRow): Promise<void> {
  await tx.q(
    `UPDATE robots SET entry = $3, fetched_at = $4, expires_at = $5, read_by = $6, read_until = $7
      WHERE crawl = $1 AND origin = $2`,
    [tx.crawl, origin, ...robotsColumnsOf(row)],
  );
}
