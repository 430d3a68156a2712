import type Database from 'better-sqlite3';
import { type HostRow, isPlaced } from '../host-row.js';
import { type HostRules, settingsForHost } from '../policy/host-rules.js';
import { type BudgetState, freshBudget, type PolitenessSettings, readyAt } from '../policy/politeness.js';

export type { HostRow };

interface Cached<T> {
  row: T;
  dirty: boolean;
}

/**
 * A host's row and the budget its row in the file names (null: no row yet). A host's
 * budget rarely changes, and an update naming the budget column rewrites the host's
 * entry in hosts_budget even when the value is the same: a page more in every commit.
 * `stored` is the row as the file has it (null: not known), so that an unchanged row is
 * not written again.
 */
interface CachedHost extends Cached<HostRow> {
  storedBudget: string | null;
  stored: StoredHost | null;
}

/** A host's columns as last read from or written to the file. */
interface StoredHost {
  queued: number;
  minRank: number;
  taken: number;
  retired: boolean;
  ready: number;
}

/** Past this many hosts a kept table forgets its clean entries (they are read again when wanted). */
const KEPT_HOSTS = 65_536;

/**
 * The hosts and budgets one transaction touches, read once and written back once by
 * flush(): a page with a hundred links to its own host costs one host update, not a
 * hundred. Each host's ready_at is written from its budget, so the ready hosts are
 * found by one index.
 *
 * A store that one process holds keeps one table from transaction to transaction
 * (`kept`): nobody else writes the file, so a host's row and budget are read once, not
 * once a transaction, and a row whose columns did not change is not written again. A
 * transaction that rolls back forgets it all (forget()).
 */
export class HostTable {
  private readonly hosts = new Map<string, CachedHost>();
  private readonly budgets = new Map<string, Cached<BudgetState>>();
  /** What flush() writes: only these, not every entry the table holds. */
  private readonly dirtyHosts = new Set<CachedHost>();
  private readonly dirtyBudgets = new Set<string>();

  constructor(
    private readonly st: HostStatements,
    /** The crawl's, with its host sections: a host's own hold for its budget from the start. */
    private readonly settings: PolitenessSettings & { hosts?: HostRules | undefined },
    /** With --politeness-key ip a budget has several hosts, not all of them read here. */
    private readonly shared: boolean,
  ) {}

  host(key: string): HostRow {
    let c = this.hosts.get(key);
    if (c === undefined) {
      const r = this.st.getHost.get(key) as
        | {
            budget: string;
            queued: number;
            min_rank: number;
            taken: number;
            retired: number;
            ready_at: number;
          }
        | undefined;
      c =
        r === undefined
          ? {
              row: { host: key, budget: key, queued: 0, minRank: 0, taken: 0, retired: false },
              dirty: true,
              storedBudget: null,
              stored: null,
            }
          : {
              row: {
                host: key,
                budget: r.budget,
                queued: r.queued,
                minRank: r.min_rank,
                taken: r.taken,
                retired: r.retired === 1,
              },
              dirty: false,
              storedBudget: r.budget,
              stored: {
                queued: r.queued,
                minRank: r.min_rank,
                taken: r.taken,
                retired: r.retired === 1,
                ready: r.ready_at,
              },
            };
      this.hosts.set(key, c);
      if (c.dirty) this.dirtyHosts.add(c);
    }
    return c.row;
  }

  budget(key: string): BudgetState {
    return this.cachedBudget(key).row;
  }

  /** Whether a budget is what politeness counts against for good (see isPlaced). */
  placed(budget: string): boolean {
    return isPlaced(budget, this.shared);
  }

  /** Marks a host changed (its row is written by flush). */
  touch(host: HostRow): void {
    const c = this.hosts.get(host.host);
    if (c === undefined) return;
    c.dirty = true;
    this.dirtyHosts.add(c);
  }

  setBudget(key: string, state: BudgetState): void {
    const c = this.cachedBudget(key);
    c.row = state;
    c.dirty = true;
    this.dirtyBudgets.add(key);
  }

  /** One more URL of the host is queued, at this rank (policy/queue-rank.ts). */
  queue(host: HostRow, rank: number): void {
    host.minRank = host.queued > 0 ? Math.min(host.minRank, rank) : rank;
    host.queued++;
    this.touch(host);
  }

  /** The hosts that count against one budget (all of them, from the store). */
  membersOf(budget: string): string[] {
    return this.st.hostsOfBudget.all(budget) as string[];
  }

  flush(): void {
    for (const key of this.dirtyBudgets) {
      const c = this.budgets.get(key) as Cached<BudgetState>;
      const b = c.row;
      this.st.putBudget.run(key, b.inFlight, b.nextAt, b.gapMs, b.failures);
      const own = settingsForHost(this.settings, key);
      if (this.shared) this.st.setReadyOfBudget.run(readyAt(b, own, this.placed(key)), key);
      c.dirty = false;
      // A host's own budget: its row's ready_at follows the budget (an address's hosts
      // had theirs set just now). Hosts not read by this table keep the rows they have.
      const host = this.hosts.get(key);
      if (host !== undefined && host.row.budget === key) this.dirtyHosts.add(host);
    }
    this.dirtyBudgets.clear();
    for (const c of this.dirtyHosts) this.writeHost(c);
    this.dirtyHosts.clear();
  }

  /** Drops the entries with nothing to write, once there are many (a kept table, after its commit). */
  trim(): void {
    if (this.hosts.size + this.budgets.size <= KEPT_HOSTS) return;
    for (const [key, c] of this.hosts) if (!c.dirty) this.hosts.delete(key);
    for (const [key, c] of this.budgets) if (!c.dirty) this.budgets.delete(key);
  }

  /** Forgets every entry: what they say may not be what the file holds (a rollback). */
  forget(): void {
    this.hosts.clear();
    this.budgets.clear();
    this.dirtyHosts.clear();
    this.dirtyBudgets.clear();
  }

  private writeHost(c: CachedHost): void {
    const h = c.row;
    const own = settingsForHost(this.settings, h.budget);
    const ready = readyAt(this.budget(h.budget), own, this.placed(h.budget));
    const was = c.stored;
    c.dirty = false;
    if (
      !this.shared &&
      c.storedBudget === h.budget &&
      was !== null &&
      was.queued === h.queued &&
      was.minRank === h.minRank &&
      was.taken === h.taken &&
      was.retired === h.retired &&
      was.ready === ready
    ) {
      return;
    }
    const retired = h.retired ? 1 : 0;
    if (c.storedBudget === h.budget)
      this.st.updateHost.run(h.queued, h.minRank, h.taken, retired, ready, h.host);
    else this.st.putHost.run(h.host, h.budget, h.queued, h.minRank, h.taken, retired, ready);
    c.storedBudget = h.budget;
    c.stored = { queued: h.queued, minRank: h.minRank, taken: h.taken, retired: h.retired, ready };
  }

  private cachedBudget(key: string): Cached<BudgetState> {
    let c = this.budgets.get(key);
    if (c === undefined) {
      const r = this.st.getBudget.get(key) as
        | { in_flight: number; next_at: number; gap_ms: number; failures: number }
        | undefined;
      c =
        r === undefined
          ? { row: freshBudget(settingsForHost(this.settings, key)), dirty: true }
          : {
              row: { inFlight: r.in_flight, nextAt: r.next_at, gapMs: r.gap_ms, failures: r.failures },
              dirty: false,
            };
      this.budgets.set(key, c);
      if (c.dirty) this.dirtyBudgets.add(key);
    }
    return c;
  }
}

export interface HostStatements {
  getHost: Database.Statement;
  putHost: Database.Statement;
  /** putHost for a host whose row exists and keeps its budget. */
  updateHost: Database.Statement;
  getBudget: Database.Statement;
  putBudget: Database.Statement;
  hostsOfBudget: Database.Statement;
  setReadyOfBudget: Database.Statement;
}

export function prepareHostStatements(db: Database.Database): HostStatements {
  return {
    getHost: db.prepare(
      `SELECT budget, queued, min_rank, taken, retired, ready_at FROM hosts WHERE host = ?`,
    ),
    putHost: db.prepare(
      `INSERT INTO hosts (host, budget, queued, min_rank, taken, retired, ready_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (host) DO UPDATE SET budget = excluded.budget, queued = excluded.queued,
         min_rank = excluded.min_rank, taken = excluded.taken, retired = excluded.retired,
         ready_at = excluded.ready_at`,
    ),
    updateHost: db.prepare(
      `UPDATE hosts SET queued = ?, min_rank = ?, taken = ?, retired = ?, ready_at = ? WHERE host = ?`,
    ),
    getBudget: db.prepare(`SELECT in_flight, next_at, gap_ms, failures FROM budgets WHERE key = ?`),
    putBudget: db.prepare(
      `INSERT INTO budgets (key, in_flight, next_at, gap_ms, failures) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET in_flight = excluded.in_flight, next_at = excluded.next_at,
         gap_ms = excluded.gap_ms, failures = excluded.failures`,
    ),
    hostsOfBudget: db.prepare(`SELECT host FROM hosts WHERE budget = ?`).pluck(),
    setReadyOfBudget: db.prepare(`UPDATE hosts SET ready_at = ? WHERE budget = ?`),
  };
}
