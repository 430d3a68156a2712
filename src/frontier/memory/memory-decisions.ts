import type {
  RobotsAnswer,
  RobotsEntry,
  RobotsTimes,
  StoredRobots,
} from '../../fetch/robots/robots-entry.js';
import { afterRobotsRead, askRobots, type RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId, CrawlSeeds } from '../types.js';

/** The crawl's decisions about hosts (FrontierHostDecisions) held in memory: robots.txt entries, the seeds' origins and addresses. */
export class MemoryHostDecisions {
  private readonly robotsRows = new Map<string, RobotsRow>();
  private readonly origins = new Set<string>();
  private readonly addresses = new Set<string>();

  robots(
    origin: string,
    crawler: CrawlerId,
    now: number,
    leaseMs: number,
    isLive: (reader: CrawlerId) => boolean,
  ): RobotsAnswer {
    const { answer, row } = askRobots(this.robotsRows.get(origin), crawler, now, leaseMs, isLive);
    if (row !== null) this.robotsRows.set(origin, row);
    return answer;
  }

  recordRobots(
    origin: string,
    entry: RobotsEntry | null,
    crawler: CrawlerId,
    now: number,
    times: RobotsTimes,
  ): StoredRobots | null {
    const { kept, row } = afterRobotsRead(this.robotsRows.get(origin), entry, crawler, now, times);
    this.robotsRows.set(origin, row);
    return kept;
  }

  crawlSeeds(add: CrawlSeeds): CrawlSeeds {
    for (const o of add.origins) this.origins.add(o);
    for (const a of add.addresses) this.addresses.add(a);
    return this.seeds();
  }

  seeds(): CrawlSeeds {
    return { origins: [...this.origins], addresses: [...this.addresses] };
  }

  robotsRow(origin: string): RobotsRow | undefined {
    return this.robotsRows.get(origin);
  }

  allRobots(): IterableIterator<[string, RobotsRow]> {
    return this.robotsRows.entries();
  }

  /** A robots.txt row as a journal read it back. */
  restoreRobots(origin: string, row: RobotsRow): void {
    this.robotsRows.set(origin, row);
  }
}
