import type { Fetcher } from '../fetch/fetcher.js';
import type { FetchOutcome } from '../fetch/types.js';
import type { Frontier, Lease } from '../frontier/types.js';
import type { PageRecord, PagesLog } from '../output/pages-log.js';
import type { WarcThread } from '../output/warc-thread.js';
import type { WarcExchange } from '../output/warc-writer.js';
import { type ProcessedPage, refusedRecord } from './page-processor.js';

export interface LoopParts {
  frontier: Frontier;
  fetcher: Fetcher;
  warc: Pick<WarcThread, 'write'>;
  pages: PagesLog;
  process: (lease: Lease, outcome: FetchOutcome) => ProcessedPage;
  onRecord?: ((record: PageRecord) => void) | undefined;
}

export interface LoopSettings {
  bunny: string;
  concurrency: number;
  signal?: AbortSignal | undefined;
}

/** A fetch that is processed and waits to be written and completed. */
interface Finished {
  page: ProcessedPage;
  warc: WarcExchange | null;
}

export type StopReason = 'finished' | 'max-pages' | 'signal';

/** Longest the loop sleeps without news, so a clock jump or a missed wake-up costs at most this. */
const MAX_IDLE_MS = 1000;

/**
 * The bunny: lease -> fetch -> parse -> write -> complete, with up to `concurrency`
 * fetches in flight. Finished fetches are gathered for one turn of the event loop and
 * written together: WARC records (on their own thread), pages.jsonl lines, then one
 * store transaction, so a URL is only marked done once its outputs are in the OS.
 */
export class CrawlLoop {
  inFlight = 0;
  fetched = 0;
  errors = 0;
  readonly outcomes: Record<string, number> = {};
  /** Fetches this run may still start (--max-pages minus what earlier runs did). */
  private budget = 0;
  private pending: Finished[] = [];
  private flushQueued = false;
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
        const room = Math.min(this.settings.concurrency - this.inFlight, this.budget);
        if (!stopping && room > 0) {
          const leases = await frontier.lease(room, this.settings.bunny);
          this.budget -= leases.length;
          for (const lease of leases) {
            this.inFlight++;
            void this.fetchOne(lease);
          }
        }
        if (this.inFlight === 0) {
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
    let done: Finished;
    try {
      const outcome = await this.parts.fetcher.fetch(lease.url);
      const page = this.parts.process(lease, outcome);
      done = {
        page,
        warc: outcome.ok ? { ...outcome.exchange, url: outcome.url, date: outcome.startedAt } : null,
      };
    } catch (err) {
      // A bug must not lose the URL: it is recorded as failed, with why.
      done = { page: internalFailure(lease, err), warc: null };
    }
    this.count(done.page.record);
    this.pending.push(done);
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => {
        this.flushing = this.flushing.then(() => this.flush());
      });
    }
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      // In this order, so a kill at any point loses nothing: WARC records, then the
      // pages.jsonl lines, then the store marks the URLs done.
      const exchanges: WarcExchange[] = [];
      for (const f of batch) if (f.warc !== null) exchanges.push(f.warc);
      await this.parts.warc.write(exchanges);
      const records = batch.map((f) => f.page.record);
      this.parts.pages.append(records);
      const result = await this.parts.frontier.complete(batch.map((f) => f.page.completion));
      const refused = result.newRejected.map(refusedRecord);
      this.parts.pages.append(refused);
      if (this.parts.onRecord !== undefined) {
        for (const r of records) this.parts.onRecord(r);
        for (const r of refused) this.parts.onRecord(r);
      }
    } catch (err) {
      this.fatal = err;
    }
    this.inFlight -= batch.length;
    this.notify();
  }

  private count(record: PageRecord): void {
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

function internalFailure(lease: Lease, err: unknown): ProcessedPage {
  const message = err instanceof Error ? err.message : String(err);
  return {
    record: {
      url: lease.url,
      status: null,
      contentType: null,
      bytes: null,
      depth: lease.depth,
      title: null,
      outlinks: 0,
      hasForm: false,
      fetchedAt: new Date().toISOString(),
      durationMs: null,
      via: lease.via,
      error: 'internal',
      detail: message,
    },
    completion: {
      url: lease.url,
      host: lease.host,
      outcome: { kind: 'failed', error: 'internal' },
      fetchMs: 0,
      outlinks: [],
      rejected: [],
    },
    parsed: null,
  };
}
