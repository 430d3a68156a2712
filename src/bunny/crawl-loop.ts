import type { AddResult, Frontier, Lease } from '../frontier/types.js';
import type { PageRecord } from '../output/pages-log.js';
import type { WarcThread } from '../output/warc-thread.js';
import type { WarcExchange } from '../output/warc-writer.js';
import { processCrash } from './page-processor.js';
import type { Visit } from './visit.js';

export interface LoopParts {
  frontier: Frontier;
  /** robots gate -> fetch -> parse for one lease (visit.ts). */
  visit: (lease: Lease) => Promise<Visit>;
  warc: Pick<WarcThread, 'write'>;
  /** Module hooks for a batch (module-step.ts); they update its records and completions. */
  modules: ((batch: readonly Visit[]) => Promise<void>) | null;
  /** Appends lines to pages.jsonl (synchronously: they are in the OS when it returns). */
  write: (records: readonly PageRecord[]) => void;
  /** Writes the lines a frontier call hands back (refused URLs and the like). */
  record: (result: AddResult) => void;
}

export interface LoopSettings {
  bunny: string;
  concurrency: number;
  signal?: AbortSignal | undefined;
}

export type StopReason = 'finished' | 'max-pages' | 'signal';

/** How many finished fetches per --concurrency slot may wait for their outputs to be written. */
const MAX_SETTLING_PER_SLOT = 4;

/** A batch is written when it has this many pages, or FLUSH_WAIT_MS after its first. */
const FLUSH_BATCH = 64;
const FLUSH_WAIT_MS = 5;

/** Longest the loop sleeps without news, so a clock jump or a missed wake-up costs at most this. */
const MAX_IDLE_MS = 1000;

/**
 * The bunny: lease -> fetch -> parse -> write -> complete, with up to `concurrency`
 * fetches in flight. Finished fetches are gathered into batches (64, or 5 ms) and
 * written together: WARC records and module hooks (on their own threads), pages.jsonl lines, then one
 * store transaction, so a URL is only marked done once its outputs are in the OS.
 */
export class CrawlLoop {
  /** Fetches on the network: what --concurrency bounds. */
  fetching = 0;
  /** Fetched, their outputs being written, not yet completed in the store. */
  settling = 0;
  fetched = 0;
  errors = 0;
  readonly outcomes: Record<string, number> = {};
  /** Fetches this run may still start (--max-pages minus what earlier runs did). */
  private budget = 0;
  private pending: Visit[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private fatal: unknown = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly parts: LoopParts,
    private readonly settings: LoopSettings,
  ) {}

  async run(budget: number): Promise<StopReason> {
    this.budget = budget;
    const { frontier } = this.parts;
    const signal = this.settings.signal;
    const onAbort = () => this.notify();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (this.fatal !== null) throw this.fatal;
        const stopping = signal?.aborted === true;
        const { concurrency } = this.settings;
        // Writing may fall behind fetching for a while, but not without bound.
        const room = Math.min(
          concurrency - this.fetching,
          MAX_SETTLING_PER_SLOT * concurrency - this.settling - this.fetching,
          this.budget,
        );
        if (!stopping && room > 0) {
          const leases = await frontier.lease(room, this.settings.bunny);
          this.budget -= leases.length;
          for (const lease of leases) {
            this.fetching++;
            void this.fetchOne(lease);
          }
        }
        if (this.fetching === 0 && this.settling === 0) {
          if (stopping) return 'signal';
          if (this.budget <= 0) return 'max-pages';
          const stats = await frontier.stats();
          if (stats.queued === 0 && stats.inFlight === 0) return 'finished';
        }
        // With free slots, also wake when the next host's turn comes; when full, only a
        // finished fetch can change anything.
        await this.waitForNews(room > 0 && !stopping);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await this.flushing;
    }
  }

  private async fetchOne(lease: Lease): Promise<void> {
    let done: Visit;
    try {
      done = await this.parts.visit(lease);
    } catch (err) {
      // A bug must not lose the URL: it is recorded as failed, with why.
      done = { page: processCrash(lease, err), warc: null };
    }
    this.count(done.page.record);
    this.fetching--;
    this.settling++;
    this.pending.push(done);
    // A fetch slot is free: lease again at once, whatever the writing does.
    this.notify();
    // Writing goes by batches: each costs a store commit and a message to each thread,
    // so a few milliseconds of gathering pay for themselves.
    if (this.pending.length >= FLUSH_BATCH) {
      if (this.flushTimer !== null) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      this.flush();
    } else if (this.flushTimer === null) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        this.flush();
      }, FLUSH_WAIT_MS);
    }
  }

  /**
   * Writes a batch of finished fetches. In this order, so a kill at
   * any point loses nothing: WARC records and module hooks (each on its own thread,
   * started at once), then pages.jsonl lines, then the store marks the URLs done,
   * batch after batch.
   */
  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const exchanges: WarcExchange[] = [];
    for (const f of batch) if (f.warc !== null) exchanges.push(f.warc);
    const written = this.parts.warc.write(exchanges);
    const hooked = this.parts.modules === null ? Promise.resolve() : this.parts.modules(batch);
    // awaited (and reported) in settle(), maybe after a while
    written.catch(() => {});
    hooked.catch(() => {});
    this.flushing = this.flushing.then(() => this.settle(batch, written, hooked));
    // Fetch slots are free again: lease more while this batch is written.
    this.notify();
  }

  private async settle(
    batch: readonly Visit[],
    written: Promise<void>,
    hooked: Promise<void>,
  ): Promise<void> {
    try {
      await written;
      await hooked;
      const records: PageRecord[] = [];
      for (const f of batch) if (f.page.record !== null) records.push(f.page.record);
      this.parts.write(records);
      this.parts.record(await this.parts.frontier.complete(batch.map((f) => f.page.completion)));
    } catch (err) {
      this.fatal = err;
    }
    this.settling -= batch.length;
    this.notify();
  }

  private count(record: PageRecord | null): void {
    if (record === null) return; // to be tried again: counted when it is final
    this.fetched++;
    const key = record.error ?? `${Math.floor((record.status ?? 0) / 100)}xx`;
    this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
    if (record.error !== undefined || (record.status ?? 0) >= 400) this.errors++;
  }

  private waitForNews(untilNextHost: boolean): Promise<void> {
    return new Promise((resolve) => {
      const next = untilNextHost ? this.parts.frontier.nextReadyAt() : null;
      const ms = next === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(0, next - Date.now()));
      const timer = setTimeout(() => this.notify(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  private notify(): void {
    this.wake?.();
  }
}
