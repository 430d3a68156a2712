import type {
  RobotsAnswer,
  RobotsEntry,
  RobotsTimes,
  StoredRobots,
} from '../../fetch/robots/robots-entry.js';
import { afterRobotsRead, askRobots, type RobotsRow } from '../policy/robots-reads.js';
import type { CrawlerId } from '../types.js';

/** The crawl's decisions about hosts (FrontierHostDecisions) held in memory: robots.txt entries, allowed addresses. */
export class MemoryHostDecisions {
  private readonly robotsRows = new Map<string, RobotsRow>();
  private readonly addresses = new Set<string>();

  robots(origin: string, crawler: CrawlerId, now: number, leaseMs: number): RobotsAnswer {
    const { answer, row } = askRobots(this.robotsRows.get(origin), crawler, now, leaseMs);
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

  allowAddresses(addresses: readonly string[]): string[] {
    for (const a of addresses) this.addresses.add(a);
    return [...this.addresses];
  }
}
