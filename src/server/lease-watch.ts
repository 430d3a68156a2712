import { count } from '../english.js';
import type { Frontier } from '../frontier/types.js';
import type { EventLog } from '../output/crawl-log.js';

/** How often the watch looks at the store's count when nothing made it look. */
const LOOK_EVERY_MS = 5000;

/**
 * Says when leases go back to the queue unfinished: a bunny that went away holding some
 * (its connection closed), or one gone silent past its lease time, whose leases the
 * store takes back at its next lease call. The store counts both (stats().expiredLeases,
 * across restarts); the watch looks at the count after each bunny leaves, and every few
 * seconds for the ones that ran out, and logs what it grew by.
 */
export class LeaseWatch {
  private last: number | null = null;
  private looking: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Pick<Frontier, 'stats'>,
    private readonly crawl: string,
    private readonly log: EventLog,
  ) {}

  /** Takes the count as it is now, then looks again every few seconds. */
  start(): void {
    void this.look();
    this.timer = setInterval(() => void this.look(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  /** Looks now (one look at a time); resolves when it has. */
  look(): Promise<void> {
    this.looking = this.looking.then(() => this.compare()).catch(() => {});
    return this.looking;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async compare(): Promise<void> {
    const now = (await this.store.stats()).expiredLeases;
    const grew = this.last === null ? 0 : now - this.last;
    this.last = now;
    if (grew <= 0) return;
    this.log(
      `${count(grew, 'lease')} went back to the queue unfinished (a bunny left, or went silent, holding ${grew === 1 ? 'it' : 'them'})`,
      'info',
      { event: 'lease-expiry', crawl: this.crawl, leases: grew },
    );
  }
}
