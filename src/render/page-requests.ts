import type { Request } from 'playwright-core';
import { Giveup, type SubresourceGate } from './subresource-gate.js';

/** What a rendered page asked for beyond its own navigation, for its pages.jsonl line. */
export interface SubrequestCounts {
  /** Requests that went out. */
  made: number;
  /** Requests not sent: out of the crawl's scope, a kind not wanted, past the page's cap, or still waiting for their host's turn when the page was done. */
  refused: number;
}

/**
 * One rendered page's requests: each goes out only in its host's turn (the gate), at
 * most `cap` of them; the rest are refused. `end()` when the page is done gives back
 * the turns of requests still under way and stops the waits.
 */
export class PageRequests {
  readonly counts: SubrequestCounts = { made: 0, refused: 0 };
  private readonly giveup: Giveup;
  /** Requests let through and not over yet, by the request that started their chain. */
  private readonly open = new Map<Request, { url: string; startedAt: number }>();

  constructor(
    private readonly gate: SubresourceGate,
    private readonly cap: number,
    deadline: number,
  ) {
    this.giveup = new Giveup(deadline);
  }

  /** Whether `request` may go out now (waiting for its host's turn first). */
  async admit(request: Request): Promise<boolean> {
    if (this.counts.made >= this.cap) return this.refuse();
    const url = request.url();
    // Counted before the wait: requests waiting at once do not get past the cap together.
    this.counts.made++;
    const startedAt = await this.gate.take(url, this.giveup);
    if (startedAt === null) {
      this.counts.made--;
      return this.refuse();
    }
    this.gate.totals.made++;
    this.open.set(request, { url, startedAt });
    return true;
  }

  /** A request not sent, for whatever reason. */
  refuse(): false {
    this.counts.refused++;
    this.gate.totals.refused++;
    return false;
  }

  /** The browser says `request` is over (finished or failed): its host's gap runs from now. */
  over(request: Request): void {
    let first = request;
    for (let from = first.redirectedFrom(); from !== null; from = from.redirectedFrom()) first = from;
    const held = this.open.get(first);
    if (held === undefined) return;
    this.open.delete(first);
    this.gate.done(held.url, held.startedAt);
  }

  /**
   * The requests under way are over, reported or not: a browser that died under the page
   * never says so, and the page's next try must not wait behind turns no one will give back.
   */
  abandon(): void {
    for (const held of this.open.values()) this.gate.done(held.url, held.startedAt);
    this.open.clear();
  }

  /** The page is done: what it still waited for is refused, what it had under way is over. */
  end(): void {
    this.giveup.end();
    this.abandon();
  }
}
