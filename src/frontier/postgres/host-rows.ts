import { type HostRow, isPlaced } from '../host-row.js';
import { settingsForHost } from '../policy/host-rules.js';
import { type BudgetState, freshBudget, type PolitenessSettings, readyAt } from '../policy/politeness.js';
import type { FrontierSettings } from '../types.js';
import type { Query } from './database.js';
import { Params, type Part } from './params.js';

export type { HostRow };

interface Cached {
  row: HostRow;
  /** The row's own politeness columns (a host's, or an address's when shared). */
  state: BudgetState;
  dirty: boolean;
}

/** Host rows as they were at some point of a transaction (HostRows.save). */
export type SavedRows = Map<string, Cached>;

/** The columns a host row is read with; the claim statement returns the same. */
export const HOST_COLUMNS = `host, budget, queued, min_rank, taken, retired, in_flight, next_at, gap_ms, failures`;

export interface HostRecord {
  host: string;
  budget: string;
  queued: number;
  min_rank: number;
  taken: number;
  retired: boolean;
  in_flight: number;
  next_at: number;
  gap_ms: number;
  failures: number;
}

const CREATE = `INSERT INTO hosts (crawl, host, budget, shared, gap_ms)
  SELECT $1, u.h, u.h, $3, u.g FROM unnest($2::text[], $4::int[]) AS u(h, g) ORDER BY u.h ON CONFLICT DO NOTHING`;
const LOCK = `SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND host = ANY($2::text[]) ORDER BY host FOR UPDATE`;
const MEMBERS = `SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND budget = $2 AND host <> budget ORDER BY host FOR UPDATE`;
/**
 * The host rows one transaction touches, locked (FOR UPDATE, in key order, so two
 * transactions that want the same hosts take turns instead of deadlocking), read once
 * and written back in one statement by flush(). The row lock is what holds a host's
 * politeness across processes: whoever changes a host's queue or budget holds it.
 */
export class HostRows {
  private readonly rows = new Map<string, Cached>();

  constructor(
    private readonly q: Query,
    private readonly crawl: number,
    /** The crawl's, with its host sections: a host's own hold for its row from the start. */
    private readonly settings: PolitenessSettings & Pick<FrontierSettings, 'key' | 'hosts'>,
  ) {}

  /** Locks these hosts' rows (made if missing) and their budgets' rows, for this transaction. */
  async lock(keys: Iterable<string>): Promise<void> {
    const wanted = this.notLocked(keys);
    if (wanted.length === 0) return;
    // Most hosts exist already: lock them, then make and lock the new ones.
    for (const r of await this.q<HostRecord>(LOCK, [this.crawl, wanted])) this.adopt(r);
    await this.lockNew(wanted);
  }

  /** Of these hosts, the ones not locked yet, each once, in key order (the order they are locked in). */
  notLocked(keys: Iterable<string>): string[] {
    return [...new Set(keys)].filter((k) => !this.rows.has(k)).sort();
  }

  /**
   * After the caller locked the rows of these hosts that exist (LOCK_SQL, or a statement
   * of its own that does the same, its rows adopted): makes and locks the missing ones,
   * then locks the budgets of every host read so far.
   */
  async lockNew(wanted: readonly string[]): Promise<void> {
    const missing = wanted.filter((k) => !this.rows.has(k));
    if (missing.length > 0) {
      const gaps = missing.map((k) => freshBudget(settingsForHost(this.settings, k)).gapMs);
      await this.q(CREATE, [this.crawl, missing, false, gaps]);
      for (const r of await this.q<HostRecord>(LOCK, [this.crawl, missing])) this.adopt(r);
    }
    await this.lockBudgets();
  }

  /** Rows the caller locked itself (the claim statement), taken as they were read. */
  adopt(r: HostRecord): void {
    if (this.rows.has(r.host)) return;
    this.rows.set(r.host, {
      row: {
        host: r.host,
        budget: r.budget,
        queued: r.queued,
        minRank: r.min_rank,
        taken: r.taken,
        retired: r.retired,
      },
      state: { inFlight: r.in_flight, nextAt: r.next_at, gapMs: r.gap_ms, failures: r.failures },
      dirty: false,
    });
  }

  /** The shared budgets (--politeness-key ip) of the hosts read so far, locked after the hosts. */
  async lockBudgets(): Promise<void> {
    const budgets = [...this.rows.values()].map((c) => c.row.budget).filter((b) => !this.rows.has(b));
    if (budgets.length > 0) await this.lockShared(budgets);
  }

  /** A host locked before (lock, adopt). */
  host(key: string): HostRow {
    return this.cached(key).row;
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  budget(key: string): BudgetState {
    return this.cached(key).state;
  }

  setBudget(key: string, state: BudgetState): void {
    const c = this.cached(key);
    c.state = state;
    c.dirty = true;
  }

  /** Marks a host changed (its row is written by flush). */
  touch(host: HostRow): void {
    this.cached(host.host).dirty = true;
  }

  /** One more URL of the host is queued, at this rank (policy/queue-rank.ts). */
  queue(host: HostRow, rank: number): void {
    host.minRank = host.queued > 0 ? Math.min(host.minRank, rank) : rank;
    host.queued++;
    this.touch(host);
  }

  /** An address's budget row, made if missing and locked. */
  async lockShared(keys: readonly string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((k) => !this.rows.has(k)).sort();
    if (missing.length === 0) return;
    await this.q(CREATE, [this.crawl, missing, true, missing.map(() => freshBudget(this.settings).gapMs)]);
    for (const r of await this.q<HostRecord>(LOCK, [this.crawl, missing])) this.adopt(r);
  }

  /** The hosts that count against a shared budget, locked, besides those already read. */
  async membersOf(budget: string): Promise<string[]> {
    const rows = await this.q<HostRecord>(MEMBERS, [this.crawl, budget]);
    for (const r of rows) this.adopt(r);
    return rows.map((r) => r.host);
  }

  /** These rows as they are now, for restore(). */
  save(keys: Iterable<string>): SavedRows {
    const saved: SavedRows = new Map();
    for (const k of keys) {
      const c = this.cached(k);
      saved.set(k, { row: { ...c.row }, state: c.state, dirty: c.dirty });
    }
    return saved;
  }

  /** The rows back as save() found them (a statement that would have written them did not). */
  restore(saved: SavedRows): void {
    for (const [k, s] of saved) {
      const c = this.cached(k);
      Object.assign(c.row, s.row);
      c.state = s.state;
      c.dirty = s.dirty;
    }
  }

  /** Writes every changed row in one statement. */
  async flush(): Promise<void> {
    const p = new Params();
    const sql = this.writeUpdate(p);
    if (sql !== null) await this.q(sql, p.values);
  }

  /**
   * The UPDATE of every changed row, to run on its own (flush) or in the WITH list of a
   * statement that writes more; the rows count as written from here on.
   */
  writeUpdate(p: Params): Part {
    const pending = this.pendingUpdate(p);
    pending?.written();
    return pending?.sql ?? null;
  }

  /**
   * The UPDATE of every changed row, for a statement whose outcome decides whether it ran:
   * `written()` once it did. ready_at comes from the row's own politeness, as a budget
   * counts (a host row under --politeness-key ip is a host not yet placed on its address
   * while it is its own budget). `claim`: the statement also claims URLs, and the hosts it
   * claims from take their queue from it (a CTE of each one's new head: host, rank; no
   * head, nothing queued) and are written only if it took all it was asked to (`when`).
   */
  pendingUpdate(
    p: Params,
    claim?: { heads: string; claimed: ReadonlySet<string>; when: string },
  ): { sql: string; written: () => void } | null {
    const dirty = [...this.rows.values()].filter((c) => c.dirty);
    if (dirty.length === 0) return null;
    const shared = this.settings.key === 'ip';
    const col = <T>(f: (c: Cached) => T) => p.add(dirty.map(f));
    const heads =
      claim === undefined
        ? { from: '', queued: 'u.queued', minRank: 'u.min_rank', when: '' }
        : {
            from: `LEFT JOIN ${claim.heads} AS head ON head.host = u.host`,
            queued: 'CASE WHEN NOT u.claimed THEN u.queued WHEN head.rank IS NULL THEN 0 ELSE u.queued END',
            minRank: 'CASE WHEN u.claimed THEN coalesce(head.rank, u.min_rank) ELSE u.min_rank END',
            when: `AND (${claim.when})`,
          };
    const sql = `UPDATE hosts AS h SET budget = u.budget, queued = ${heads.queued}, min_rank = ${heads.minRank},
    taken = u.taken, retired = u.retired, ready_at = u.ready_at, in_flight = u.in_flight,
    next_at = u.next_at, gap_ms = u.gap_ms, failures = u.failures
  FROM unnest(${col((c) => c.row.host)}::text[], ${col((c) => c.row.budget)}::text[], ${col((c) => c.row.queued)}::int[],
    ${col((c) => c.row.minRank)}::int[], ${col((c) => c.row.taken)}::int[], ${col((c) => c.row.retired)}::bool[],
    ${col((c) => readyAt(c.state, settingsForHost(this.settings, c.row.host), isPlaced(c.row.host, shared)))}::int8[],
    ${col((c) => c.state.inFlight)}::int[], ${col((c) => c.state.nextAt)}::int8[], ${col((c) => c.state.gapMs)}::int[],
    ${col((c) => c.state.failures)}::int[], ${col((c) => claim?.claimed.has(c.row.host) === true)}::bool[])
    AS u(host, budget, queued, min_rank, taken, retired, ready_at, in_flight, next_at, gap_ms, failures, claimed)
  ${heads.from}
  WHERE h.crawl = ${p.add(this.crawl)} AND h.host = u.host ${heads.when}`;
    return {
      sql,
      written: () => {
        for (const c of dirty) c.dirty = false;
      },
    };
  }

  private cached(key: string): Cached {
    const c = this.rows.get(key);
    if (c === undefined) throw new Error(`host row ${key} was not locked in this transaction`);
    return c;
  }
}
