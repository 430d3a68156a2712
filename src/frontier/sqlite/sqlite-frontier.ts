import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { MinHeap } from '../heap.js';
import { HostScheduler, type QueuedUrl } from '../host-scheduler.js';
import { connectBackoffMs, gapAfterFetch, MAX_RETRY_AFTER_MS } from '../politeness.js';
import { RecentUrls } from '../recent-urls.js';
import type {
  AddResult,
  Completion,
  FetchReport,
  Frontier,
  FrontierStats,
  Lease,
  NewLink,
  PolitenessSettings,
  RejectedLink,
  SiteFacts,
} from '../types.js';
import { openSchema, URL_KIND, URL_STATE } from './schema.js';

interface HeldLease {
  row: QueuedUrl;
  /** release() already told the scheduler about this fetch. */
  released: boolean;
  expires: number;
}

interface Statements {
  insertQueued: Database.Statement;
  insertRecorded: Database.Statement;
  markLogged: Database.Statement;
  markDone: Database.Statement;
  markFailed: Database.Statement;
  markRetry: Database.Statement;
  markRetired: Database.Statement;
  queuedOfHost: Database.Statement;
  loadAfter: Database.Statement;
  loadFirst: Database.Statement;
  seqOf: Database.Statement;
  siteExists: Database.Statement;
  insertSite: Database.Statement;
}

const ROW_COLUMNS = 'url, host, depth, seq, via, redirects, kind, attempts';

/**
 * The embedded frontier: one SQLite file (WAL), owned by one process.
 *
 * The table is the truth: a URL stays `queued` in it until complete() marks it, so a
 * process that dies loses nothing and the next one starts with every unfinished URL
 * queued again — leases live in memory and are reclaimed at start, not after a timeout.
 * Scheduling (which host's turn it is) lives in memory too, in HostScheduler.
 */
export class SqliteFrontier implements Frontier {
  private readonly db: Database.Database;
  private readonly st: Statements;
  private readonly scheduler: HostScheduler;
  private readonly leases = new Map<string, HeldLease>();
  private readonly recent = new RecentUrls();
  private readonly expiries = new MinHeap<{ url: string; expires: number }>((a, b) => a.expires < b.expires);
  /** Retries waiting for their time; they are queued again when it comes. */
  private readonly delayed = new MinHeap<{ at: number; row: QueuedUrl }>((a, b) => a.at < b.at);
  /** URLs per host in the store, fetched or queued: what --max-pages-per-host counts. */
  private readonly hostTotals = new Map<string, number>();
  private nextSeq = 1;
  private counts = { queued: 0, done: 0, failed: 0, rejected: 0 };
  /** Recorded-but-unlogged rows (by seq) handed to the caller, acknowledged on its next call. */
  private unacknowledged: number[] = [];
  private closed = false;

  constructor(
    file: string,
    private readonly settings: PolitenessSettings,
    private readonly now: () => number = Date.now,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    openSchema(this.db);
    this.st = this.prepare();
    this.scheduler = new HostScheduler(settings, {
      load: (host, after, limit) => this.loadSlice(host, after, limit),
    });
    this.restore();
  }

  async add(links: readonly NewLink[], rejected: readonly RejectedLink[] = []): Promise<AddResult> {
    const queued: QueuedUrl[] = [];
    const result = this.db.transaction(() => {
      this.acknowledgeLogged();
      return this.insertLinks(links, rejected, queued);
    })();
    this.afterInsert(queued);
    return result;
  }

  // One process owns this store, so which bunny leased a URL is never needed here;
  // the server's stores, with remote bunnies, will keep it.
  async lease(n: number, _bunny: string): Promise<Lease[]> {
    const now = this.now();
    this.reclaimExpired(now);
    this.requeueDue(now);
    const rows = this.scheduler.take(n, now);
    const out: Lease[] = [];
    for (const row of rows) {
      const expires = now + this.settings.leaseMs;
      this.leases.set(row.url, { row, released: false, expires });
      this.expiries.push({ url: row.url, expires });
      this.counts.queued--;
      out.push({
        url: row.url,
        host: row.host,
        depth: row.depth,
        via: row.via,
        redirects: row.redirects,
        kind: row.kind === URL_KIND.sitemap ? 'sitemap' : 'page',
        attempt: row.attempts + 1,
      });
    }
    return out;
  }

  release(lease: Lease, report: FetchReport): void {
    const held = this.leases.get(lease.url);
    if (held === undefined || held.released) return;
    held.released = true;
    this.applyReport(held.row.host, report, this.now());
  }

  async complete(batch: readonly Completion[]): Promise<AddResult> {
    const queued: QueuedUrl[] = [];
    const retried: { row: QueuedUrl; afterMs: number }[] = [];
    const now = this.now();
    // Politeness first (in memory): it decides whether a host is given up on below.
    for (const c of batch) {
      const held = this.leases.get(c.url);
      if (held !== undefined && !held.released) {
        held.released = true;
        this.applyReport(held.row.host, c.report, now);
      }
    }
    const result = this.db.transaction(() => {
      this.acknowledgeLogged();
      const total: AddResult = { added: 0, newRejected: [] };
      for (const c of batch) {
        const held = this.leases.get(c.url);
        const seq = held?.row.seq ?? this.seqOf(c.url);
        const o = c.outcome;
        if (o.kind === 'done') this.st.markDone.run(seq);
        else if (o.kind === 'failed') this.st.markFailed.run(o.error, seq);
        else {
          this.st.markRetry.run(o.error, seq);
          if (held !== undefined) retried.push({ row: held.row, afterMs: o.afterMs });
        }
        if (held !== undefined) this.leases.delete(c.url);
        if (o.kind === 'done') this.counts.done++;
        else if (o.kind === 'failed') this.counts.failed++;
        const r = this.insertLinks(c.outlinks, c.rejected, queued);
        total.added += r.added;
        for (const x of r.newRejected) total.newRejected.push(x);
        if (c.report.connectFailed === true) this.retireIfDead(c.host, total.newRejected);
      }
      return total;
    })();
    for (const { row, afterMs } of retried) {
      this.counts.queued++;
      this.delayed.push({ at: now + afterMs, row: { ...row, attempts: row.attempts + 1 } });
    }
    this.afterInsert(queued);
    return result;
  }

  async unloggedRejections(): Promise<RejectedLink[]> {
    const rows = this.db
      .prepare(
        `SELECT seq, url, depth, via, error FROM urls WHERE state IN (${URL_STATE.rejectedUnlogged}, ${URL_STATE.failedUnlogged}) ORDER BY seq`,
      )
      .all() as { seq: number; url: string; depth: number; via: string | null; error: string | null }[];
    for (const r of rows) this.unacknowledged.push(r.seq);
    return rows.map((r) => ({ url: r.url, depth: r.depth, via: r.via, reason: r.error ?? 'filtered' }));
  }

  async knownSite(origin: string): Promise<boolean> {
    return this.st.siteExists.get(origin) !== undefined;
  }

  async recordSite(site: SiteFacts): Promise<void> {
    this.st.insertSite.run(site.origin, site.address, site.firstSeen, JSON.stringify(site.info));
  }

  async sites(): Promise<SiteFacts[]> {
    const rows = this.db
      .prepare(`SELECT origin, address, first_seen, info FROM sites ORDER BY first_seen`)
      .all() as {
      origin: string;
      address: string | null;
      first_seen: number;
      info: string;
    }[];
    return rows.map((r) => ({
      origin: r.origin,
      address: r.address,
      firstSeen: r.first_seen,
      info: JSON.parse(r.info) as Record<string, unknown>,
    }));
  }

  nextReadyAt(): number | null {
    let next = this.scheduler.nextWake();
    for (const t of [this.expiries.peek()?.expires, this.delayed.peek()?.at]) {
      if (t !== undefined && (next === null || t < next)) next = t;
    }
    return next;
  }

  async stats(): Promise<FrontierStats> {
    return {
      queued: this.counts.queued,
      inFlight: this.leases.size,
      done: this.counts.done,
      failed: this.counts.failed,
      rejected: this.counts.rejected,
      hosts: this.scheduler.hostCount,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.transaction(() => this.acknowledgeLogged())();
    this.db.close();
  }

  private prepare(): Statements {
    const db = this.db;
    return {
      insertQueued: db.prepare(
        `INSERT OR IGNORE INTO urls (fp, url, host, depth, seq, via, redirects, kind, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${URL_STATE.queued})`,
      ),
      insertRecorded: db.prepare(
        `INSERT OR IGNORE INTO urls (fp, url, host, depth, seq, via, state, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      markLogged: db.prepare(
        `UPDATE urls SET state = CASE state WHEN ${URL_STATE.failedUnlogged} THEN ${URL_STATE.failed} ELSE ${URL_STATE.rejected} END WHERE seq = ?`,
      ),
      markDone: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.done}, attempts = attempts + 1 WHERE seq = ?`,
      ),
      markFailed: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.failed}, attempts = attempts + 1, error = ? WHERE seq = ?`,
      ),
      markRetry: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.queued}, attempts = attempts + 1, error = ? WHERE seq = ?`,
      ),
      markRetired: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.failedUnlogged}, error = 'host-unreachable' WHERE seq = ?`,
      ),
      queuedOfHost: db.prepare(
        `SELECT seq, url, depth, via FROM urls WHERE host = ? AND state = ${URL_STATE.queued}`,
      ),
      loadAfter: db.prepare(
        `SELECT ${ROW_COLUMNS} FROM urls
         WHERE host = ? AND state = ${URL_STATE.queued} AND (depth, seq) > (?, ?)
         ORDER BY depth, seq LIMIT ?`,
      ),
      loadFirst: db.prepare(
        `SELECT ${ROW_COLUMNS} FROM urls
         WHERE host = ? AND state = ${URL_STATE.queued}
         ORDER BY depth, seq LIMIT ?`,
      ),
      seqOf: db.prepare(`SELECT seq FROM urls WHERE fp = ?`).pluck(),
      siteExists: db.prepare(`SELECT 1 FROM sites WHERE origin = ?`).pluck(),
      insertSite: db.prepare(
        `INSERT OR IGNORE INTO sites (origin, address, first_seen, info) VALUES (?, ?, ?, ?)`,
      ),
    };
  }

  /** Start-up: every URL not completed is queued again, whoever held it before. */
  private restore(): void {
    const counts = this.db.prepare(`SELECT state, count(*) AS n FROM urls GROUP BY state`).all() as {
      state: number;
      n: number;
    }[];
    for (const { state, n } of counts) {
      if (state === URL_STATE.queued) this.counts.queued = n;
      else if (state === URL_STATE.done) this.counts.done = n;
      else if (state === URL_STATE.failed || state === URL_STATE.failedUnlogged) this.counts.failed += n;
      else this.counts.rejected += n;
    }
    const seq = this.db.prepare(`SELECT max(seq) AS s FROM urls`).get() as { s: number | null };
    this.nextSeq = (seq.s ?? 0) + 1;
    const hosts = this.db
      .prepare(
        `SELECT host, sum(state = ${URL_STATE.queued}) AS q, min(CASE WHEN state = ${URL_STATE.queued} THEN depth END) AS d, count(*) AS n
         FROM urls WHERE state IN (${URL_STATE.queued}, ${URL_STATE.done}, ${URL_STATE.failed}) GROUP BY host`,
      )
      .all() as { host: string; q: number; d: number | null; n: number }[];
    const now = this.now();
    for (const h of hosts) {
      this.hostTotals.set(h.host, h.n);
      if (h.q > 0) this.scheduler.restore(h.host, h.q, h.d ?? 0, now);
    }
  }

  private loadSlice(host: string, after: QueuedUrl | null, limit: number): QueuedUrl[] {
    // A leased URL is still `queued` in the table, but the scheduler's cursor has passed
    // it, so it is never loaded twice.
    return (
      after === null
        ? this.st.loadFirst.all(host, limit)
        : this.st.loadAfter.all(host, after.depth, after.seq, limit)
    ) as QueuedUrl[];
  }

  private insertLinks(
    links: readonly NewLink[],
    rejected: readonly RejectedLink[],
    queued: QueuedUrl[],
  ): AddResult {
    let added = 0;
    const recorded: RejectedLink[] = [];
    for (const l of links) {
      if (this.recent.has(l.url)) continue;
      const host = hostKey(l.url);
      const refusal = this.refusal(host);
      if (refusal !== null) {
        this.record({ url: l.url, depth: l.depth, via: l.via, reason: refusal }, host, recorded);
        continue;
      }
      this.recent.remember(l.url);
      const seq = this.nextSeq;
      const kind = l.kind === 'sitemap' ? URL_KIND.sitemap : URL_KIND.page;
      const redirects = l.redirects ?? 0;
      const info = this.st.insertQueued.run(
        fingerprint(l.url),
        l.url,
        host,
        l.depth,
        seq,
        l.via,
        redirects,
        kind,
      );
      if (info.changes === 1) {
        this.nextSeq++;
        added++;
        this.hostTotals.set(host, (this.hostTotals.get(host) ?? 0) + 1);
        queued.push({ url: l.url, host, depth: l.depth, seq, via: l.via, redirects, kind, attempts: 0 });
      }
    }
    for (const r of rejected) this.record(r, hostKey(r.url), recorded);
    return { added, newRejected: recorded };
  }

  /** Why a new URL of this host is refused by the store itself, or null. */
  private refusal(host: string): string | null {
    if (this.scheduler.isRetired(host)) return 'host-unreachable';
    if ((this.hostTotals.get(host) ?? 0) >= this.settings.maxPagesPerHost) return 'host-budget';
    return null;
  }

  /** Stores a URL that will not be fetched, once, and hands it to the caller to write. */
  private record(r: RejectedLink, host: string, out: RejectedLink[]): void {
    if (this.recent.has(r.url)) return;
    this.recent.remember(r.url);
    const failed = r.reason === 'host-unreachable';
    const state = failed ? URL_STATE.failedUnlogged : URL_STATE.rejectedUnlogged;
    const info = this.st.insertRecorded.run(
      fingerprint(r.url),
      r.url,
      host,
      r.depth,
      this.nextSeq,
      r.via,
      state,
      r.reason,
    );
    if (info.changes !== 1) return;
    this.unacknowledged.push(this.nextSeq);
    this.nextSeq++;
    if (failed) this.counts.failed++;
    else this.counts.rejected++;
    out.push(r);
  }

  private afterInsert(queued: readonly QueuedUrl[]): void {
    const now = this.now();
    for (const q of queued) this.scheduler.queued(q, now);
    this.counts.queued += queued.length;
  }

  /** Feeds one fetch's politeness facts to the scheduler and frees its slot. */
  private applyReport(host: string, report: FetchReport, now: number): void {
    if (report.address != null && this.settings.key === 'ip') {
      this.scheduler.setAddress(host, report.address, now);
    }
    let gap = gapAfterFetch(this.settings, report.fetchMs, report.crawlDelayMs);
    if (report.retryAfterMs !== undefined)
      gap = Math.max(gap, Math.min(report.retryAfterMs, MAX_RETRY_AFTER_MS));
    if (report.connectFailed === true) {
      gap = Math.max(gap, connectBackoffMs(this.settings, this.scheduler.connectFailed(host)));
    } else {
      this.scheduler.connected(host);
    }
    this.scheduler.finished(host, gap, now);
  }

  /**
   * A host that failed to connect --retire-after times in a row is given up on: its
   * queued URLs are failed as 'host-unreachable' and handed back to be recorded.
   * URLs in flight finish on their own.
   */
  private retireIfDead(host: string, out: RejectedLink[]): void {
    if (this.scheduler.isRetired(host)) return;
    if (this.scheduler.connectFailures(host) < this.settings.retireAfter) return;
    for (const h of this.scheduler.retire(host)) {
      const rows = this.st.queuedOfHost.all(h) as {
        seq: number;
        url: string;
        depth: number;
        via: string | null;
      }[];
      for (const r of rows) {
        if (this.leases.has(r.url)) continue;
        this.st.markRetired.run(r.seq);
        this.unacknowledged.push(r.seq);
        this.counts.queued--;
        this.counts.failed++;
        out.push({ url: r.url, depth: r.depth, via: r.via, reason: 'host-unreachable' });
      }
    }
    this.dropDelayedOfRetired();
  }

  private dropDelayedOfRetired(): void {
    const keep: { at: number; row: QueuedUrl }[] = [];
    for (let e = this.delayed.pop(); e !== undefined; e = this.delayed.pop()) {
      if (!this.scheduler.isRetired(e.row.host)) keep.push(e);
      else this.counts.queued--;
    }
    for (const e of keep) this.delayed.push(e);
  }

  /**
   * The caller has written what it got from the previous call (that is the contract),
   * so those rows are no longer re-offered after a crash. Runs inside the transaction
   * of the next call, at no extra commit.
   */
  private acknowledgeLogged(): void {
    if (this.unacknowledged.length === 0) return;
    for (const seq of this.unacknowledged) this.st.markLogged.run(seq);
    this.unacknowledged = [];
  }

  /** The row of a URL completed after its lease expired (the lease map no longer has it). */
  private seqOf(url: string): number {
    return (this.st.seqOf.get(fingerprint(url)) as number | undefined) ?? -1;
  }

  private requeueDue(now: number): void {
    for (;;) {
      const top = this.delayed.peek();
      if (top === undefined || top.at > now) return;
      this.delayed.pop();
      this.scheduler.queued(top.row, now);
    }
  }

  private reclaimExpired(now: number): void {
    for (;;) {
      const top = this.expiries.peek();
      if (top === undefined || top.expires > now) return;
      this.expiries.pop();
      const held = this.leases.get(top.url);
      if (held === undefined || held.expires !== top.expires) continue;
      this.leases.delete(top.url);
      this.counts.queued++;
      if (!held.released) this.scheduler.finished(held.row.host, 0, now);
      this.scheduler.queued({ ...held.row, attempts: held.row.attempts + 1 }, now);
    }
  }
}
