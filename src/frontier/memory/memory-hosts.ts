import { addressBudget, isPlaced } from '../host-row.js';
import { settingsForHost } from '../policy/host-rules.js';
import { type BudgetState, freshBudget, mergeBudgets, readyAt } from '../policy/politeness.js';
import type { FrontierSettings } from '../types.js';
import { rankOf, type UrlEntry } from './url-entry.js';

/** A host: its queue (by rank, policy/queue-rank.ts, then in the order URLs came), and what the crawl decided of it. */
export class MemoryHost {
  /** The politeness budget it counts against: the host itself, or `ip:ADDRESS`. */
  budget: string;
  readonly queue: UrlEntry[] = [];
  /** URLs of the host ever queued: what --max-pages-per-host counts. */
  taken = 0;
  /** Given up on (policy/retirement.ts): takes no URL any more. */
  retired = false;

  constructor(readonly host: string) {
    this.budget = host;
  }

  /** Rank of its first queued URL; undefined with nothing queued. */
  get minRank(): number | undefined {
    const first = this.queue[0];
    return first === undefined ? undefined : rankOf(first);
  }

  /** Queues a URL in (rank, id) order: a URL back from a lease or a retry takes its old place. */
  enqueue(e: UrlEntry): void {
    const q = this.queue;
    const rank = rankOf(e);
    let lo = 0;
    let hi = q.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = q[mid] as UrlEntry;
      const r = rankOf(m);
      if (r < rank || (r === rank && m.id < e.id)) lo = mid + 1;
      else hi = mid;
    }
    q.splice(lo, 0, e);
  }
}

/**
 * Every host and politeness budget of the crawl. The budgets change only through the
 * functions of policy/politeness.ts, as in the other stores; this class only keeps them.
 */
export class MemoryHosts {
  private readonly hosts = new Map<string, MemoryHost>();
  private readonly budgets = new Map<string, BudgetState>();
  /** With --politeness-key ip a host's own budget is provisional until its address is known. */
  private readonly shared: boolean;

  constructor(private readonly settings: FrontierSettings) {
    this.shared = settings.key === 'ip';
  }

  get size(): number {
    return this.hosts.size;
  }

  all(): IterableIterator<MemoryHost> {
    return this.hosts.values();
  }

  host(key: string): MemoryHost {
    let h = this.hosts.get(key);
    if (h === undefined) {
      h = new MemoryHost(key);
      this.hosts.set(key, h);
    }
    return h;
  }

  budget(key: string): BudgetState {
    return this.budgets.get(key) ?? freshBudget(settingsForHost(this.settings, key));
  }

  setBudget(key: string, state: BudgetState): void {
    this.budgets.set(key, state);
  }

  /** Whether the host's budget is what politeness counts against for good (see isPlaced). */
  placed(h: MemoryHost): boolean {
    return isPlaced(h.budget, this.shared);
  }

  /** When the host may next be leased, by its budget's settings (NEVER at its --per-host limit). */
  readyAt(h: MemoryHost): number {
    return readyAt(this.budget(h.budget), settingsForHost(this.settings, h.budget), this.placed(h));
  }

  /**
   * --politeness-key ip: the host was found at `address`, so from now on it shares one
   * budget with every host there; its `inFlight` fetches move along with it.
   */
  moveToAddress(h: MemoryHost, address: string, inFlight: number): void {
    const key = addressBudget(address);
    if (!this.shared || h.budget === key) return;
    const from = this.budget(h.budget);
    this.setBudget(h.budget, { ...from, inFlight: Math.max(0, from.inFlight - inFlight) });
    this.setBudget(key, mergeBudgets(this.budget(key), { ...from, inFlight }));
    h.budget = key;
  }

  /** The hosts that count against the host's budget, itself included. */
  sharing(h: MemoryHost): MemoryHost[] {
    return [...this.hosts.values()].filter((m) => m === h || m.budget === h.budget);
  }
}
