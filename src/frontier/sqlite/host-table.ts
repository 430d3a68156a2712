import type Database from 'better-sqlite3';
import { type HostRow, isPlaced } from '../host-row.js';
import { type HostRules, settingsForHost } from '../policy/host-rules.js';
import { type BudgetState, freshBudget, type PolitenessSettings, readyAt } from '../policy/politeness.js';

export type { HostRow };

/**
 * A host's row as a table keeps it: the row its callers change, and its columns as the
 * file has them, so that an unchanged row is not written again. One object a host, not a
 * row and a copy: a kept table holds thousands (KEPT_GENERATION).
 */
class KeptHost implements HostRow {
  dirty: boolean;
  /**
   * The budget column the file has (null: no row yet, and the columns below not known).
   * A host's budget rarely changes, and an update naming the budget column rewrites the
   * host's entry in hosts_budget even when the value is the same: a page more in every
   * commit.
   */
  storedBudget: string | null = null;
  storedQueued = 0;
  storedMinRank = 0;
  storedTaken = 0;
  storedRetired = false;
  storedReady = 0;

  constructor(
    readonly host: string,
    public budget: string,
    public queued: number,
    public minRank: number,
    public taken: number,
    public retired: boolean,
    /** ready_at as the file has it; undefined: no row yet. */
    ready: number | undefined,
  ) {
    this.dirty = ready === undefined;
    if (ready !== undefined) this.stored(ready);
  }

  /** Whether the file has this row as it is, ready_at `ready` included. */
  unchanged(ready: number): boolean {
    return (
      this.storedBudget === this.budget &&
      this.storedQueued === this.queued &&
      this.storedMinRank === this.minRank &&
      this.storedTaken === this.taken &&
      this.storedRetired === this.retired &&
      this.storedReady === ready
    );
  }

  /** The file has the row as it is now. */
  stored(ready: number): void {
    this.storedBudget = this.budget;
    this.storedQueued = this.queued;
    this.storedMinRank = this.minRank;
    this.storedTaken = this.taken;
    this.storedRetired = this.retired;
    this.storedReady = ready;
  }
}

/**
 * Hosts (and as many budgets) a kept table's young generation holds before it ages: the
 * table holds at most two generations, 6 MB at some 190 bytes an entry. A crawl of 10^5
 * hosts reaches the bound early, so what the table holds stops growing then (at 65,536
 * entries forgotten all at once, it was still growing past the first 10^5 pages of such
 * a crawl); a host used in either generation stays, and one forgotten is read again with
 * two indexed reads.
 */
export const KEPT_GENERATION = 8192;

/**
 * A map in two generations: when the young one fills, it becomes the old one and the old
 * one is forgotten; an entry read from the old one moves to the young one. Recently used
 * entries stay, as in an LRU, for two lookups at most.
 */
class TwoGenerations<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  get(key: string): V | undefined {
    const found = this.young.get(key);
    if (found !== undefined) return found;
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.young.set(key, old);
    }
    return old;
  }

  set(key: string, value: V): void {
    this.young.set(key, value);
    this.old.delete(key);
  }

  /** Ages once the young generation holds `limit`; of the forgotten ones, what `keep` says stays. */
  age(limit: number, keep: (key: string, value: V) => boolean): void {
    if (this.young.size < limit) return;
    const gone = this.old;
    this.old = this.young;
    this.young = new Map();
    for (const [key, value] of gone) if (keep(key, value)) this.young.set(key, value);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}

export class HostTable {
  private readonly hosts = new TwoGenerations<KeptHost>();
  private readonly budgets = new TwoGenerations<BudgetState>();
  /** What flush() writes: only these, not every entry the table holds. */
  private readonly dirtyHosts = new Set<KeptHost>();
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
          ? new KeptHost(key, key, 0, 0, 0, false, undefined)
          : new KeptHost(key, r.budget, r.queued, r.min_rank, r.taken, r.retired === 1, r.ready_at);
      this.hosts.set(key, c);
      if (c.dirty) this.dirtyHosts.add(c);
    }
    return c;
  }

  budget(key: string): BudgetState {
    let b = this.budgets.get(key);
    if (b === undefined) {
      const r = this.st.getBudget.get(key) as
        | { in_flight: number; next_at: number; gap_ms: number; failures: number }
        | undefined;
      if (r === undefined) {
        b = freshBudget(settingsForHost(this.settings, key));
        this.dirtyBudgets.add(key);
      } else b = { inFlight: r.in_flight, nextAt: r.next_at, gapMs: r.gap_ms, failures: r.failures };
      this.budgets.set(key, b);
    }
    return b;
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
    this.budgets.set(key, state);
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
      const b = this.budgets.get(key) as BudgetState;
      this.st.putBudget.run(key, b.inFlight, b.nextAt, b.gapMs, b.failures);
      const own = settingsForHost(this.settings, key);
      if (this.shared) this.st.setReadyOfBudget.run(readyAt(b, own, this.placed(key)), key);
      // A host's own budget: its row's ready_at follows the budget (an address's hosts
      // had theirs set just now). Hosts not read by this table keep the rows they have.
      const host = this.hosts.get(key);
      if (host !== undefined && host.budget === key) this.dirtyHosts.add(host);
    }
    this.dirtyBudgets.clear();
    for (const c of this.dirtyHosts) this.writeHost(c);
    this.dirtyHosts.clear();
  }

  /** Forgets the entries least lately used, once there are many (a kept table, after its commit); never one with something to write. */
  trim(): void {
    this.hosts.age(KEPT_GENERATION, (_, host) => host.dirty);
    this.budgets.age(KEPT_GENERATION, (key) => this.dirtyBudgets.has(key));
  }

  /** Forgets every entry: what they say may not be what the file holds (a rollback). */
  forget(): void {
    this.hosts.clear();
    this.budgets.clear();
    this.dirtyHosts.clear();
    this.dirtyBudgets.clear();
  }

  private writeHost(h: KeptHost): void {
    const own = settingsForHost(this.settings, h.budget);
    const ready = readyAt(this.budget(h.budget), own, this.placed(h.budget));
    h.dirty = false;
    if (!this.shared && h.unchanged(ready)) return;
    const retired = h.retired ? 1 : 0;
    if (h.storedBudget === h.budget)
      this.st.updateHost.run(h.queued, h.minRank, h.taken, retired, ready, h.host);
    else this.st.putHost.run(h.host, h.budget, h.queued, h.minRank, h.taken, retired, ready);
    h.stored(ready);
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
