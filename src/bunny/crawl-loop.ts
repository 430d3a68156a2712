import type {
  Completion,
  CrawlEnd,
  CrawlerId,
  Frontier,
  Lease,
  LeaseBatch,
  LeaseId,
  PendingRecord,
  Release,
} from '../frontier/types.js';
import type { ModuleSite } from '../modules/api.js';
import type { PackedExchange } from '../output/packed-exchange.js';
import type { PageRecord } from '../output/pages-log.js';
import type { WarcThread } from '../output/warc-thread.js';
import { CAPTURED, type CapturedRequisite, capturedLine } from './captured.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { ModuleResults, ModuleStep, PreparedPages } from './module-step.js';
import { givenBack, processCrash } from './page-processor.js';
import { refusedRecord } from './page-record.js';
import { withModuleAdditions } from './page-result.js';
import type { ExchangeOver, Visit } from './visit.js';

export interface LoopParts {
  frontier: Frontier;
  /**
   * robots gate -> fetch -> parse for one lease (visit.ts); a request must start by
   * `startBy` (epoch ms, this process's clock), or the lease goes back deferred.
   */
  visit: (lease: Lease, startBy: number | null, exchangeOver: ExchangeOver) => Promise<Visit>;
  warc: Pick<WarcThread, 'write'>;
  /** Module hooks (module-step.ts); null when no module is loaded and no onPage given. */
  modules: ModuleStep | null;
  /** Appends lines to pages.jsonl (synchronously: they are in the OS when it returns). */
  write: (records: readonly PageRecord[]) => void;
  /** Runs before a batch's completion (the cookie jar saves what the batch's responses set). */
  beforeComplete?: () => Promise<void>;
  /** Hears each batch once it is completed (the debug log). */
  onSettled?: ((batch: readonly Visit[]) => void) | undefined;
}

export interface LoopSettings {
  crawler: CrawlerId;
  concurrency: number;
  signal?: AbortSignal | undefined;
}

export type StopReason = CrawlEnd | 'signal';

/** How many finished fetches per --concurrency slot may wait for their outputs to be written. */
const MAX_SETTLING_PER_SLOT = 4;

/**
 * Bytes of fetched exchanges per --concurrency slot the loop may hold before leasing
 * pauses: pages fetched and not yet written (being parsed, waiting for their batch, on
 * their way to the WARC file). The page count above bounds them on pages of usual
 * sizes (about 8 MB of the benchmark's realistic pages at the default 64 slots); this
 * bounds them on big ones, so what a crawl holds follows --concurrency, never the pages
 * it happens to meet (32 MiB at 64 slots).
 */
export const MAX_HELD_BYTES_PER_SLOT = 512 * 1024;

/** A batch is written when it has this many pages, or FLUSH_WAIT_MS after its first (or the store's gatherMs). */
const FLUSH_BATCH = 64;
const FLUSH_WAIT_MS = 5;

/** Longest the loop waits without news; with nothing in flight, lease() long-polls this long. */
const MAX_IDLE_MS = 1000;

/** Free slots wait at most this long to be filled together by one lease call (or the store's gatherMs). */
const LEASE_GATHER_MS = 2;

/**
 * The bunny: lease -> visit -> release -> write -> complete, with up to `concurrency`
 * fetches in flight, each lease extended while its fetch and its writing last. It is the only part of a crawling process that talks to the
 * frontier, and it never guesses: the store says what to fetch and when the crawl is
 * over. Finished fetches are gathered into batches (64, or 5 ms) and written
 * together: WARC records and module hooks (on their own threads), pages.jsonl lines,
 * then one completion call, so a URL is only marked done once its outputs are in the OS.
 */
export class CrawlLoop {
  /** Fetches on the network: what --concurrency bounds (a page being parsed is settling). */
  fetching = 0;
  /** Fetched, their outputs being written, not yet completed in the store. */
  settling = 0;
  /** Bytes of the exchanges of those: what leasing more would add to is bounded. */
  heldBytes = 0;
  fetched = 0;
  errors = 0;
  readonly outcomes: Record<string, number> = {};
  private pending: Visit[] = [];
  /**
   * What the batch being completed captured in the browser, by URL: written when the store
   * hands a capture back as new to the crawl (record()), dropped after the batch.
   */
  private readonly captures = new Map<string, CapturedRequisite>();
  /** Each settling visit's bytes, counted when its fetch ended (they move on from there). */
  private readonly bytesOf = new Map<Visit, number>();
  private releases: Release[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** The last release call, settled by the store's next transaction (awaited only when stopping). */
  private releasing: Promise<void> = Promise.resolve();
  private fatal: unknown = null;
  private wake: (() => void) | null = null;
  private lastLeaseAt = 0;
  /** Slots asked for by lease calls not answered yet: counted as taken. */
  private leasing = 0;
  /**
   * The last answer had fewer URLs than asked: no host is ready before this time (epoch
   * ms; MAX_IDLE_MS on when the store named none), so the loop asks again only then, or
   * once a fetch ends (a host's slot is free) or a completion is stored (new links).
   */
  private nothingReadyUntil: number | undefined = undefined;
  /** The store said the crawl is over; the loop stops once no lease call is out. */
  private ended: CrawlEnd | null = null;
  /** Leases a pause made the loop give back, on their way to the store. */
  private givingBack: Promise<void> = Promise.resolve();
  private paused = false;
  /** Free slots worth a lease call at once: an eighth of --concurrency. */
  private readonly leaseBatch: number;
  /** How long finished pages wait for others to be written with (FLUSH_WAIT_MS, or the store's). */
  private readonly flushWaitMs: number;
  /** How long free slots wait to be filled together (LEASE_GATHER_MS, or the store's). */
  private readonly leaseGatherMs: number;
  /** Extends the leases of fetches in flight and of pages being written. */
  private readonly keeper: LeaseKeeper;

  constructor(
    private readonly parts: LoopParts,
    private readonly settings: LoopSettings,
  ) {
    this.leaseBatch = Math.max(1, Math.floor(settings.concurrency / 8));
    const gather = parts.frontier.gatherMs;
    this.flushWaitMs = Math.max(FLUSH_WAIT_MS, gather?.complete ?? 0);
    this.leaseGatherMs = Math.max(LEASE_GATHER_MS, gather?.lease ?? 0);
    this.keeper = new LeaseKeeper(
      (ids) => parts.frontier.extend(ids),
      (err) => {
        this.fatal ??= err;
        this.notify();
      },
    );
  }

  /** No new leases from now on; the fetches in flight finish and are written. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    // What the store said before the pause no longer holds: leases went back since.
    this.nothingReadyUntil = undefined;
    this.notify();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  async run(): Promise<StopReason> {
    const { signal } = this.settings;
    const onAbort = () => this.notify();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (this.fatal !== null) throw this.fatal;
        this.releaseFinished();
        if (this.ended !== null && this.leasing === 0) {
          // The next run (the next pass, or a bunny that waits for more) asks afresh.
          const ended = this.ended;
          this.ended = null;
          this.nothingReadyUntil = undefined;
          return ended;
        }
        const stopping = signal?.aborted === true;
        if (stopping && this.fetching === 0 && this.settling === 0 && this.leasing === 0) return 'signal';
        const wakeAt = stopping || this.paused ? null : this.leaseMore();
        // With free slots, also wake when the next host's turn comes; when full, only a
        // finished fetch (or a lease call's answer) can change anything.
        await this.waitForNews(wakeAt);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await this.flushing;
      await this.givingBack.catch(() => {});
      this.releaseFinished();
      await this.releasing.catch(() => {});
      this.keeper.stop();
    }
  }

  /**
   * Asks the store for URLs for the free slots, without waiting for its answer: a lease
   * call is a store transaction, answered after the rest of this turn of the event loop,
   * and fetches that end meanwhile free slots that the next call can already ask for.
   * The time to look again, unless news wakes the loop first.
   */
  private leaseMore(): number | null {
    const { concurrency } = this.settings;
    // Writing may fall behind fetching for a while, but not without bound.
    const room =
      this.heldBytes >= MAX_HELD_BYTES_PER_SLOT * concurrency
        ? 0
        : Math.min(
            concurrency - this.fetching - this.leasing,
            MAX_SETTLING_PER_SLOT * concurrency - this.settling - this.fetching - this.leasing,
          );
    if (room <= 0) return null;
    const now = Date.now();
    if (this.nothingReadyUntil !== undefined) {
      if (now < this.nothingReadyUntil) return this.nothingReadyUntil;
      this.nothingReadyUntil = undefined;
    }
    const idle = this.fetching === 0 && this.settling === 0 && this.leasing === 0;
    // Free slots are gathered for a moment and filled together, rather than one call
    // (one transaction) per finished fetch.
    if (!idle && room < this.leaseBatch && now - this.lastLeaseAt < this.leaseGatherMs) {
      return this.lastLeaseAt + this.leaseGatherMs;
    }
    this.lastLeaseAt = now;
    this.leasing += room;
    // Idle, the call is a long poll: the store answers when a host is ready.
    this.parts.frontier
      .lease(room, this.settings.crawler, { waitMs: idle ? MAX_IDLE_MS : 0 })
      .then(
        (batch) => this.leased(room, batch),
        (err: unknown) => {
          this.leasing -= room;
          this.fatal ??= err;
        },
      )
      .finally(() => this.notify());
    return null;
  }

  /** A lease call's answer: its URLs start fetching, and what it says of the rest is kept. */
  private leased(asked: number, batch: LeaseBatch): void {
    this.leasing -= asked;
    if (batch.ended !== null) this.ended = batch.ended;
    // Paused while the call was out (a long poll may wait): what it got goes back, no try spent.
    if (this.paused && batch.leases.length > 0) {
      const back = batch.leases.splice(0);
      this.givingBack = this.givingBack.then(() => this.giveBack(back));
      this.givingBack.catch((err: unknown) => {
        this.fatal ??= err;
        this.notify();
      });
    }
    const received = Date.now();
    // At most MAX_IDLE_MS: URLs added from outside (seeds from the console) ready a host too.
    const idleUntil = received + MAX_IDLE_MS;
    this.nothingReadyUntil =
      batch.leases.length < asked ? Math.min(batch.nextReadyAt ?? idleUntil, idleUntil) : undefined;
    for (const lease of batch.leases) {
      this.fetching++;
      this.keeper.hold(lease, received);
      void this.fetchOne(lease, startByOf(lease, received));
    }
  }

  private async giveBack(leases: readonly Lease[]): Promise<void> {
    const back = leases.map((l) => givenBack(l.id));
    await this.parts.frontier.complete(back, this.settings.crawler);
  }

  /**
   * A completion the store refused (its lease ran out, or a server that was started again
   * did not know it) changes nothing, but the page was fetched and its links are real:
   * they are added as links. Were they not, they could be lost: the page analyzer leaves
   * out the links it sent lately, so the page fetched again would not bring them.
   */
  private async addLinksOfStale(
    completions: readonly Completion[],
    stale: readonly LeaseId[],
  ): Promise<void> {
    if (stale.length === 0) return;
    const refused = new Set(stale);
    const mine = completions.filter((c) => refused.has(c.leaseId));
    const links = mine.flatMap((c) => c.outlinks);
    const rejected = mine.flatMap((c) => c.rejected);
    if (links.length === 0 && rejected.length === 0) return;
    const added = await this.parts.frontier.add(links, rejected, this.settings.crawler);
    await this.record(added.records);
  }

  /**
   * Writes lines the store handed back (refused URLs and the like), then tells it they
   * are written. A requisite captured in the browser that the store found new to the
   * crawl is written here, its WARC records first: the store marked it seen with the
   * page's completion, so no crawler fetches it. One whose capture this process no longer
   * holds (a killed run's, handed back at the start) is written as refused.
   */
  async record(records: readonly PendingRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { crawler } = this.settings;
    const lines: PageRecord[] = [];
    const exchanges: PackedExchange[] = [];
    for (const r of records) {
      const c = r.reason === CAPTURED ? this.captures.get(r.url) : undefined;
      if (c === undefined) lines.push(refusedRecord(r, crawler));
      else {
        // Its bytes move to the WARC thread: written once, whatever else names it.
        this.captures.delete(r.url);
        exchanges.push(c.packed);
        lines.push(capturedLine(r, c, crawler));
      }
    }
    await this.parts.warc.write(exchanges);
    this.parts.write(lines);
    // A store that keeps the crawl's outputs (a server) writes the lines it is given here.
    await this.parts.frontier.acknowledge(
      records.map((r) => r.id),
      lines as unknown as Record<string, unknown>[],
    );
  }

  private async fetchOne(lease: Lease, startBy: number | null): Promise<void> {
    let over = false;
    let held = 0;
    // The exchange is over: the slot takes the next fetch, and the host's next request
    // need not wait for this page's parsing nor its writing.
    const exchangeOver: ExchangeOver = (report, bytes) => {
      if (over) return;
      over = true;
      this.fetching--;
      this.settling++;
      held = bytes;
      this.heldBytes += bytes;
      this.releases.push({ leaseId: lease.id, report });
      // Its host has a free slot now: the store may have a URL to give before the time it said.
      this.nothingReadyUntil = undefined;
      this.notify();
    };
    let done: Visit;
    try {
      done = await this.parts.visit(lease, startBy, exchangeOver);
    } catch (err) {
      // A bug must not lose the URL: it is recorded as failed, with why.
      done = { lease, page: processCrash(lease, err, this.settings.crawler), warc: [] };
    }
    this.count(done.page.record);
    exchangeOver(done.page.report, 0);
    // What the page holds now: its exchange, and any robots.txt exchanges of its visit.
    let bytes = 0;
    for (const x of done.warc) bytes += x.buffer.byteLength;
    for (const c of done.captured ?? []) bytes += c.packed.buffer.byteLength;
    this.heldBytes += bytes - held;
    this.bytesOf.set(done, bytes);
    this.pending.push(done);
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
      }, this.flushWaitMs);
    }
  }

  /**
   * Frees the hosts of every fetch finished since the last call, in one store call,
   * without waiting for it: a store may keep releases for its next transaction (the
   * lease or completion this loop makes next), so waiting here would hold the loop
   * until that transaction, which only comes after the wait. A failure stops the loop.
   */
  private releaseFinished(): void {
    if (this.releases.length === 0) return;
    const batch = this.releases;
    this.releases = [];
    const released = this.parts.frontier.release(batch);
    this.releasing = released;
    released.catch((err: unknown) => {
      this.fatal ??= err;
      this.notify();
    });
  }

  /**
   * Writes a batch of finished fetches. In this order, so a kill at any point loses
   * nothing: WARC records and module hooks (each on its own thread, started at once),
   * then pages.jsonl lines, then the store completes the URLs, batch after batch.
   */
  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    // The pages' bodies are copied for the modules before the bytes move to the WARC thread.
    const prepared = this.parts.modules?.prepare(batch) ?? null;
    const exchanges: PackedExchange[] = [];
    for (const f of batch) exchanges.push(...f.warc);
    const written = this.parts.warc.write(exchanges);
    const hooked = prepared === null ? Promise.resolve(null) : this.runModules(prepared);
    // awaited (and reported) in settle(), maybe after a while
    written.catch(() => {});
    hooked.catch(() => {});
    this.flushing = this.flushing.then(() => this.settle(batch, written, hooked));
  }

  /** Claims the sites new to the crawl (the store says which), then runs the hooks. */
  private async runModules(prepared: PreparedPages): Promise<ModuleResults | null> {
    const modules = this.parts.modules;
    if (modules === null) return null;
    const claimed: ModuleSite[] = [];
    for (const site of modules.newSites(prepared)) {
      const facts = site as unknown as Record<string, unknown>;
      if (await this.parts.frontier.claimSite(site.origin, this.settings.crawler, facts)) claimed.push(site);
    }
    return modules.run(prepared, claimed);
  }

  private async settle(
    batch: readonly Visit[],
    written: Promise<void>,
    hooked: Promise<ModuleResults | null>,
  ): Promise<void> {
    try {
      await written;
      const results = await hooked;
      const records: PageRecord[] = [];
      const completions: Completion[] = [];
      for (const f of batch) {
        // A store that keeps the crawl's outputs (a server) writes the line its completion carries.
        const { record, completion } = withModuleAdditions(f.page, results?.added.get(f));
        if (record !== null) records.push(record);
        completions.push(completion);
      }
      this.parts.write(records);
      const { frontier } = this.parts;
      // A site is recorded only after its hooks ran: a crash in between runs them again, not never.
      for (const site of results?.sites ?? []) await frontier.recordSite(site);
      this.releaseFinished();
      for (const f of batch)
        for (const c of f.captured ?? []) if (!this.captures.has(c.url)) this.captures.set(c.url, c);
      await this.parts.beforeComplete?.();
      const done = await frontier.complete(completions, this.settings.crawler);
      // The pages' links are in the store now: it may have URLs to give at once.
      this.nothingReadyUntil = undefined;
      this.keeper.drop(completions.map((c) => c.leaseId));
      await this.record(done.records);
      await this.addLinksOfStale(completions, done.stale);
      this.parts.onSettled?.(batch);
    } catch (err) {
      this.fatal = err;
    }
    // What the store did not hand back was seen before: another page's capture, or a fetch, holds it.
    this.captures.clear();
    this.settling -= batch.length;
    for (const f of batch) {
      this.heldBytes -= this.bytesOf.get(f) ?? 0;
      this.bytesOf.delete(f);
    }
    this.notify();
  }

  private count(record: PageRecord | null): void {
    if (record === null) return; // to be tried again: counted when it is final
    this.fetched++;
    const key = record.error ?? `${Math.floor((record.status ?? 0) / 100)}xx`;
    this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
    if (record.error !== undefined || (record.status ?? 0) >= 400) this.errors++;
  }

  private waitForNews(wakeAt: number | null): Promise<void> {
    return new Promise((resolve) => {
      const ms = wakeAt === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(0, wakeAt - Date.now()));
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

/**
 * When the lease's request must start. A deadline long past on arrival means the store's
 * clock and ours disagree (a machine without NTP): the window is ignored rather than
 * every lease given back.
 */
function startByOf(lease: Lease, received: number): number | null {
  if (lease.startBy === undefined || lease.startBy < received - CLOCK_SKEW_MS) return null;
  return lease.startBy;
}

const CLOCK_SKEW_MS = 5000;
