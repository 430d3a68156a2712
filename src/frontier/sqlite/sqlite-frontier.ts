import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { fingerprint } from '../../url/fingerprint.js';
import { hostKey } from '../../url/host.js';
import { MinHeap } from '../heap.js';
import { HostScheduler, type QueuedUrl } from '../host-scheduler.js';
import { RecentUrls } from '../recent-urls.js';
import type {
  AddResult,
  Completion,
  Frontier,
  FrontierStats,
  Lease,
  NewLink,
  PolitenessSettings,
  RejectedLink,
} from '../types.js';
import { openSchema, URL_STATE } from './schema.js';

interface HeldLease {
  row: QueuedUrl;
  /** The host was already freed by release(). */
  released: boolean;
  owner: string;
  expires: number;
}

interface Statements {
  insertQueued: Database.Statement;
  insertRejected: Database.Statement;
  markLogged: Database.Statement;
  markDone: Database.Statement;
  markFailed: Database.Statement;
  markRetry: Database.Statement;
  loadAfter: Database.Statement;
  loadFirst: Database.Statement;
  seqOf: Database.Statement;
}

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
  private nextSeq = 1;
  private counts = { queued: 0, done: 0, failed: 0, rejected: 0 };
  /** Rejections (by seq) handed to the caller, marked as logged on its next call. */
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
    this.afterInsert(queued, result);
    return result;
  }

  async lease(n: number, bunny: string): Promise<Lease[]> {
    const now = this.now();
    this.reclaimExpired(now);
    const rows = this.scheduler.take(n, now);
    const out: Lease[] = [];
    for (const row of rows) {
      const expires = now + this.settings.leaseMs;
      this.leases.set(row.url, { row, released: false, owner: bunny, expires });
      this.expiries.push({ url: row.url, expires });
      this.counts.queued--;
      out.push({
        url: row.url,
        host: row.host,
        depth: row.depth,
        via: row.via,
        redirects: row.redirects,
        attempt: row.attempts + 1,
      });
    }
    return out;
  }

  release(lease: Lease, fetchMs: number, hostDelayMs?: number): void {
    const held = this.leases.get(lease.url);
    if (held === undefined || held.released) return;
    held.released = true;
    this.scheduler.finished(held.row.host, fetchMs, hostDelayMs, this.now());
  }

  async complete(batch: readonly Completion[]): Promise<AddResult> {
    const queued: QueuedUrl[] = [];
    const retried: { row: QueuedUrl; afterMs: number }[] = [];
    const result = this.db.transaction(() => {
      this.acknowledgeLogged();
      const total: AddResult = { added: 0, newRejected: [] };
      for (const c of batch) {
        const seq = this.leases.get(c.url)?.row.seq ?? this.seqOf(c.url);
        const o = c.outcome;
        if (o.kind === 'done') this.st.markDone.run(seq);
        else if (o.kind === 'failed') this.st.markFailed.run(o.error, seq);
        else {
          this.st.markRetry.run(o.error, seq);
          const held = this.leases.get(c.url);
          if (held !== undefined) retried.push({ row: held.row, afterMs: o.afterMs });
        }
        const r = this.insertLinks(c.outlinks, c.rejected, queued);
        total.added += r.added;
        for (const x of r.newRejected) total.newRejected.push(x);
      }
      return total;
    })();
    const now = this.now();
    for (const c of batch) {
      const held = this.leases.get(c.url);
      if (held === undefined) continue; // its lease expired and it was queued again; the later completion wins
      this.leases.delete(c.url);
      if (c.outcome.kind === 'done') this.counts.done++;
      else if (c.outcome.kind === 'failed') this.counts.failed++;
      if (!held.released) this.scheduler.finished(c.host, c.fetchMs, c.hostDelayMs, now);
    }
    for (const { row, afterMs } of retried) {
      const again = { ...row, attempts: row.attempts + 1 };
      this.counts.queued++;
      this.scheduler.queued(again, now);
      this.scheduler.holdUntil(row.host, now + afterMs, now);
    }
    this.afterInsert(queued, result);
    return result;
  }

  async unloggedRejections(): Promise<RejectedLink[]> {
    const rows = this.db
      .prepare(`SELECT seq, url, depth, via, error FROM urls WHERE state = ? ORDER BY seq`)
      .all(URL_STATE.rejectedUnlogged) as {
      seq: number;
      url: string;
      depth: number;
      via: string | null;
      error: string | null;
    }[];
    for (const r of rows) this.unacknowledged.push(r.seq);
    return rows.map((r) => ({
      url: r.url,
      depth: Number(r.depth),
      via: r.via,
      reason: r.error ?? 'filtered',
    }));
  }

  nextReadyAt(): number | null {
    const wake = this.scheduler.nextWake();
    const expiry = this.expiries.peek()?.expires ?? null;
    if (wake === null) return expiry;
    if (expiry === null) return wake;
    return Math.min(wake, expiry);
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
        `INSERT OR IGNORE INTO urls (fp, url, host, depth, seq, via, redirects, state) VALUES (?, ?, ?, ?, ?, ?, ?, ${URL_STATE.queued})`,
      ),
      insertRejected: db.prepare(
        `INSERT OR IGNORE INTO urls (fp, url, host, depth, seq, via, state, error) VALUES (?, ?, ?, ?, ?, ?, ${URL_STATE.rejectedUnlogged}, ?)`,
      ),
      markLogged: db.prepare(`UPDATE urls SET state = ${URL_STATE.rejected} WHERE seq = ?`),
      markDone: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.done}, attempts = attempts + 1 WHERE seq = ?`,
      ),
      markFailed: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.failed}, attempts = attempts + 1, error = ? WHERE seq = ?`,
      ),
      markRetry: db.prepare(
        `UPDATE urls SET state = ${URL_STATE.queued}, attempts = attempts + 1, error = ? WHERE seq = ?`,
      ),
      seqOf: db.prepare(`SELECT seq FROM urls WHERE fp = ?`).pluck(),
      loadAfter: db.prepare(
        `SELECT url, host, depth, seq, via, redirects, attempts FROM urls
         WHERE host = ? AND state = ${URL_STATE.queued} AND (depth, seq) > (?, ?)
         ORDER BY depth, seq LIMIT ?`,
      ),
      loadFirst: db.prepare(
        `SELECT url, host, depth, seq, via, redirects, attempts FROM urls
         WHERE host = ? AND state = ${URL_STATE.queued}
         ORDER BY depth, seq LIMIT ?`,
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
      else if (state === URL_STATE.failed) this.counts.failed = n;
      else this.counts.rejected += n;
    }
    const seq = this.db.prepare(`SELECT max(seq) AS s FROM urls`).get() as { s: number | null };
    this.nextSeq = (seq.s ?? 0) + 1;
    const hosts = this.db
      .prepare(
        `SELECT host, count(*) AS n, min(depth) AS d FROM urls WHERE state = ${URL_STATE.queued} GROUP BY host`,
      )
      .all() as { host: string; n: number; d: number }[];
    const now = this.now();
    for (const h of hosts) this.scheduler.restore(h.host, h.n, h.d, now);
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
    for (const l of links) {
      if (this.recent.has(l.url)) continue;
      this.recent.remember(l.url);
      const host = hostKey(l.url);
      const seq = this.nextSeq;
      const fp = fingerprint(l.url);
      const info = this.st.insertQueued.run(fp, l.url, host, l.depth, seq, l.via, l.redirects ?? 0);
      if (info.changes === 1) {
        this.nextSeq++;
        added++;
        queued.push({
          url: l.url,
          host,
          depth: l.depth,
          seq,
          via: l.via,
          redirects: l.redirects ?? 0,
          attempts: 0,
        });
      }
    }
    const newRejected: RejectedLink[] = [];
    for (const r of rejected) {
      if (this.recent.has(r.url)) continue;
      this.recent.remember(r.url);
      const fp = fingerprint(r.url);
      const info = this.st.insertRejected.run(
        fp,
        r.url,
        hostKey(r.url),
        r.depth,
        this.nextSeq,
        r.via,
        r.reason,
      );
      if (info.changes === 1) {
        this.nextSeq++;
        newRejected.push(r);
        this.unacknowledged.push(this.nextSeq - 1);
      }
    }
    return { added, newRejected };
  }

  private afterInsert(queued: readonly QueuedUrl[], result: AddResult): void {
    const now = this.now();
    for (const q of queued) this.scheduler.queued(q, now);
    this.counts.queued += queued.length;
    this.counts.rejected += result.newRejected.length;
  }

  /**
   * The caller has written the rejections it got from the previous call (that is the
   * contract), so they are no longer re-offered after a crash. Runs inside the
   * transaction of the next call, at no extra commit.
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

  private reclaimExpired(now: number): void {
    for (;;) {
      const top = this.expiries.peek();
      if (top === undefined || top.expires > now) return;
      this.expiries.pop();
      const held = this.leases.get(top.url);
      if (held === undefined || held.expires !== top.expires) continue;
      this.leases.delete(top.url);
      this.counts.queued++;
      if (!held.released) this.scheduler.finished(held.row.host, 0, undefined, now);
      this.scheduler.queued({ ...held.row, attempts: held.row.attempts + 1 }, now);
    }
  }
}
