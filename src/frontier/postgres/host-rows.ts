import { type HostRow, isPlaced } from '../host-row.js';
import { type BudgetState, freshBudget, type PolitenessSettings, readyAt } from '../policy/politeness.js';
import type { FrontierSettings } from '../types.js';
import type { Query } from './database.js';

export type { HostRow };

interface Cached {
  row: HostRow;
  /** The row's own politeness columns (a host's, or an address's when shared). */
  state: BudgetState;
  dirty: boolean;
}

/** The columns a host row is read with; the claim statement returns the same. */
export const HOST_COLUMNS = `host, budget, queued, min_depth, taken, retired, in_flight, next_at, gap_ms, failures`;

export interface HostRecord {
  host: string;
  budget: string;
  queued: number;
  min_depth: number;
  taken: number;
  retired: boolean;
  in_flight: number;
  next_at: number;
  gap_ms: number;
  failures: number;
}

const CREATE = `INSERT INTO hosts (crawl, host, budget, shared, gap_ms)
  SELECT $1, h, h, $3, $4 FROM unnest($2::text[]) AS h ORDER BY h ON CONFLICT DO NOTHING`;
const LOCK = `SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND host = ANY($2::text[]) ORDER BY host FOR UPDATE`;
const MEMBERS = `SELECT ${HOST_COLUMNS} FROM hosts WHERE crawl = $1 AND budget = $2 AND host <> budget ORDER BY host FOR UPDATE`;
const WRITE = `UPDATE hosts AS h SET budget = u.budget, queued = u.queued, min_depth = u.min_depth,
    taken = u.taken, retired = u.retired, ready_at = u.ready_at, in_flight = u.in_flight,
    next_at = u.next_at, gap_ms = u.gap_ms, failures = u.failures
  FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::bool[], $8::int8[],
              $9::int[], $10::int8[], $11::int[], $12::int[])
    AS u(host, budget, queued, min_depth, taken, retired, ready_at, in_flight, next_at, gap_ms, failures)
  WHERE h.crawl = $1 AND h.host = u.host`;

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
    private readonly settings: PolitenessSettings & Pick<FrontierSettings, 'key'>,
  ) {}

  /** Locks these hosts' rows (made if missing) and their budgets' rows, for this transaction. */
  async lock(keys: Iterable<string>): Promise<void> {
    const wanted = [...new Set(keys)].filter((k) => !this.rows.has(k)).sort();
    if (wanted.length === 0) return;
    // Most hosts exist already: lock them, then make and lock the new ones.
    for (const r of await this.q<HostRecord>(LOCK, [this.crawl, wanted])) this.adopt(r);
    const missing = wanted.filter((k) => !this.rows.has(k));
    if (missing.length > 0) {
      await this.q(CREATE, [this.crawl, missing, false, freshBudget(this.settings).gapMs]);
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
        minDepth: r.min_depth,
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

  /** One more URL of the host is queued, at this depth. */
  queue(host: HostRow, depth: number): void {
    host.minDepth = host.queued > 0 ? Math.min(host.minDepth, depth) : depth;
    host.queued++;
    this.touch(host);
  }

  /** An address's budget row, made if missing and locked. */
  async lockShared(keys: readonly string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((k) => !this.rows.has(k)).sort();
    if (missing.length === 0) return;
    await this.q(CREATE, [this.crawl, missing, true, freshBudget(this.settings).gapMs]);
    for (const r of await this.q<HostRecord>(LOCK, [this.crawl, missing])) this.adopt(r);
  }

  /** The hosts that count against a shared budget, locked, besides those already read. */
  async membersOf(budget: string): Promise<string[]> {
    const rows = await this.q<HostRecord>(MEMBERS, [this.crawl, budget]);
    for (const r of rows) this.adopt(r);
    return rows.map((r) => r.host);
  }

  /**
   * Writes every changed row in one statement; ready_at from the row's own politeness,
   * as a budget counts (a host row under --politeness-key ip is a host not yet placed on
   * its address while it is its own budget).
   */
  async flush(): Promise<void> {
    const dirty = [...this.rows.values()].filter((c) => c.dirty);
    if (dirty.length === 0) return;
    const shared = this.settings.key === 'ip';
    const col = <T>(f: (c: Cached) => T) => dirty.map(f);
    await this.q(WRITE, [
      this.crawl,
      col((c) => c.row.host),
      col((c) => c.row.budget),
      col((c) => c.row.queued),
      col((c) => c.row.minDepth),
      col((c) => c.row.taken),
      col((c) => c.row.retired),
      col((c) => readyAt(c.state, this.settings, isPlaced(c.row.host, shared))),
      col((c) => c.state.inFlight),
      col((c) => c.state.nextAt),
      col((c) => c.state.gapMs),
      col((c) => c.state.failures),
    ]);
    for (const c of dirty) c.dirty = false;
  }

  private cached(key: string): Cached {
    const c = this.rows.get(key);
    if (c === undefined) throw new Error(`host row ${key} was not locked in this transaction`);
    return c;
  }
}
