import { addressBudget, isPlaced } from '../host-row.js';
import { settingsForHost } from '../policy/host-rules.js';
import { type BudgetState, freshBudget, mergeBudgets, NEVER, readyAt } from '../policy/politeness.js';
import type { FrontierSettings } from '../types.js';
import { MinHeap } from './min-heap.js';
import { keyOf, rankOf, rankOfKey, type UrlEntry } from './url-entry.js';

/** Where a host waits in the ready index: its queue's rank, and when its budget lets it be leased. */
interface Slot {
  host: MemoryHost;
  rank: number;
  at: number;
  /** The host's creation order: hosts ready at one time go in the order they came. */
  order: number;
}

/**
 * A host: its queue (by rank, policy/queue-rank.ts, then in the order URLs came), and
 * what the crawl decided of it. The queue is in two parts: the URLs in memory, and those
 * a store keeps on disk (`rest`, the workbench's URL files), of which memory holds only
 * their place (keyOf: rank and id); the engine brings the first of them back before it
 * leases (MemoryFrontier.headOf).
 */
export class MemoryHost {
  /** The politeness budget it counts against: the host itself, or `ip:ADDRESS`. */
  budget: string;
  readonly queue: UrlEntry[] = [];
  /** The places of its queued URLs kept on disk, in order, from `restFrom` on. */
  rest: number[] = [];
  restFrom = 0;
  /** URLs of the host ever queued: what --max-pages-per-host counts. */
  taken = 0;
  /** Given up on (policy/retirement.ts): takes no URL any more. */
  retired = false;
  /** Its entry in the ready index, if it has one; any other entry of it there is stale. */
  slot: Slot | null = null;

  constructor(
    readonly host: string,
    readonly order: number,
  ) {
    this.budget = host;
  }

  /** URLs queued, in memory and on disk. */
  get queued(): number {
    return this.queue.length + this.rest.length - this.restFrom;
  }

  /** The place of its first URL on disk; undefined with none there. */
  get firstOnDisk(): number | undefined {
    return this.rest[this.restFrom];
  }

  /** Rank of its first queued URL; undefined with nothing queued. */
  get minRank(): number | undefined {
    const first = this.queue[0];
    const disk = this.firstOnDisk;
    if (disk === undefined) return first === undefined ? undefined : rankOf(first);
    return first === undefined || disk < keyOf(first) ? rankOfKey(disk) : rankOf(first);
  }

  /** The first place on disk is taken back into memory: the next one is first. */
  shiftRest(): number | undefined {
    const key = this.rest[this.restFrom];
    if (key === undefined) return undefined;
    this.restFrom++;
    // The consumed start is dropped now and then, not at every URL (an array's shift copies it).
    if (this.restFrom >= 1024 && this.restFrom * 2 >= this.rest.length) {
      this.rest = this.rest.slice(this.restFrom);
      this.restFrom = 0;
    }
    return key;
  }

  /** Places of URLs now kept on disk join those there, in order. */
  addRest(keys: number[]): void {
    if (keys.length === 0) return;
    const old = this.rest.length > this.restFrom ? this.rest.slice(this.restFrom) : [];
    keys.sort((a, b) => a - b);
    this.rest = old.length === 0 ? keys : mergeSorted(old, keys);
    this.restFrom = 0;
  }

  /** Queues a URL in (rank, id) order: a URL back from a lease or a retry takes its old place. */
  enqueue(e: UrlEntry): void {
    const q = this.queue;
    const rank = rankOf(e);
    const last = q[q.length - 1];
    // Most URLs come in order (new links have the highest id): no search.
    if (last === undefined || rankOf(last) < rank || (rankOf(last) === rank && last.id < e.id)) {
      q.push(e);
      return;
    }
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

/** Two ascending lists as one. */
function mergeSorted(a: number[], b: number[]): number[] {
  if ((a.at(-1) as number) < (b[0] as number)) return a.concat(b);
  const out = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length)
    out[k++] = (a[i] as number) <= (b[j] as number) ? (a[i++] as number) : (b[j++] as number);
  while (i < a.length) out[k++] = a[i++] as number;
  while (j < b.length) out[k++] = b[j++] as number;
  return out;
}

const isStale = (s: Slot): boolean => s.host.slot !== s;
const slotBefore = (a: Slot, b: Slot): boolean => a.at < b.at || (a.at === b.at && a.order < b.order);

/**
 * Every host and politeness budget of the crawl, and the ready index a lease call reads:
 * per rank, a heap of the hosts with URLs queued at that rank by when they may next be
 * leased, so that a lease call costs what it hands out, not the number of hosts. Hosts
 * at their --per-host limit are left out until a fetch ends. The budgets change only
 * through the functions of policy/politeness.ts, as in the other stores; this class
 * keeps them and moves the hosts they hold in the index.
 */
export class MemoryHosts {
  private readonly hosts = new Map<string, MemoryHost>();
  private readonly budgets = new Map<string, BudgetState>();
  /**
   * The hosts counting against each budget key, with --politeness-key ip (a host's own
   * budget is its name otherwise, and the host is found by it: no set per host).
   */
  private readonly members = new Map<string, Set<MemoryHost>>();
  private readonly byRank = new Map<number, MinHeap<Slot>>();
  /** The ranks byRank holds, lowest first. */
  private ranks: number[] = [];
  private slots = 0;
  /** With --politeness-key ip a host's own budget is provisional until its address is known. */
  private readonly shared: boolean;

  constructor(
    private readonly settings: FrontierSettings,
    /** Told of every budget that changed (the workbench store journals them). */
    private readonly budgetChanged: (key: string, state: BudgetState) => void = () => {},
  ) {
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
      h = new MemoryHost(key, this.hosts.size);
      this.hosts.set(key, h);
      this.join(h, key);
    }
    return h;
  }

  budget(key: string): BudgetState {
    return this.budgets.get(key) ?? freshBudget(settingsForHost(this.settings, key));
  }

  /** Every budget that was ever set, for a snapshot. */
  allBudgets(): IterableIterator<[string, BudgetState]> {
    return this.budgets.entries();
  }

  setBudget(key: string, state: BudgetState): void {
    this.budgets.set(key, state);
    this.budgetChanged(key, state);
    const members = this.members.get(key);
    if (members !== undefined) for (const m of members) this.place(m);
    else {
      const own = this.hosts.get(key);
      if (own !== undefined && own.budget === key) this.place(own);
    }
  }

  /** Whether the host's budget is what politeness counts against for good (see isPlaced). */
  placed(h: MemoryHost): boolean {
    return isPlaced(h.budget, this.shared);
  }

  /** When the host may next be leased, by its budget's settings (NEVER at its --per-host limit). */
  readyAt(h: MemoryHost): number {
    return readyAt(this.budget(h.budget), settingsForHost(this.settings, h.budget), this.placed(h));
  }

  /** Queues a URL of the host and moves the host in the index if its rank changed. */
  enqueue(h: MemoryHost, e: UrlEntry): void {
    const before = h.minRank;
    h.enqueue(e);
    if (h.minRank !== before) this.place(h);
  }

  /** Puts the host where it now belongs in the ready index: its rank, its time (out, with nothing to lease). */
  place(h: MemoryHost): void {
    const rank = h.minRank;
    const at = rank === undefined || h.retired ? NEVER : this.readyAt(h);
    if (at === NEVER || rank === undefined) {
      h.slot = null;
      return;
    }
    const old = h.slot;
    if (old !== null && old.rank === rank && old.at === at) return;
    const slot: Slot = { host: h, rank, at, order: h.order };
    h.slot = slot;
    this.heapAt(rank).push(slot);
    // Stale entries sink out as they reach the top; one that waits long (a host moved
    // to a later time) is swept out with the rest when they outnumber the hosts.
    if (++this.slots > 4 * this.hosts.size + 10_000) this.rebuild();
  }

  /** The lowest rank above `than` with hosts waiting (a claim moves hosts to later ranks as it goes). */
  rankAfter(than: number): number | undefined {
    for (const r of this.ranks) if (r > than) return r;
    return undefined;
  }

  /** Takes out of the index the host first ready at `rank`, if one is ready by `now`; place() puts it back. */
  nextReady(rank: number, now: number): MemoryHost | undefined {
    const heap = this.byRank.get(rank);
    const top = heap?.top(isStale);
    if (heap === undefined || top === undefined) {
      this.dropRank(rank);
      return undefined;
    }
    if (top.at > now) return undefined;
    heap.pop();
    this.slots--;
    top.host.slot = null;
    return top.host;
  }

  /** The earliest time some host with URLs queued may be leased; null if none will be before a fetch ends. */
  nextReadyAt(): number | null {
    let next: number | null = null;
    for (const rank of [...this.ranks]) {
      const top = this.byRank.get(rank)?.top(isStale);
      if (top === undefined) this.dropRank(rank);
      else if (next === null || top.at < next) next = top.at;
    }
    return next;
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
    this.assignBudget(h, key);
    this.setBudget(key, mergeBudgets(this.budget(key), { ...from, inFlight }));
  }

  /** Makes `key` the budget the host counts against; no budget's state changes (a journal read back uses it alone). */
  assignBudget(h: MemoryHost, key: string): void {
    if (h.budget === key) return;
    this.members.get(h.budget)?.delete(h);
    h.budget = key;
    this.join(h, key);
  }

  /** A budget as a journal read it back (no one is told). */
  restoreBudget(key: string, state: BudgetState): void {
    this.budgets.set(key, state);
  }

  /** The hosts that count against the host's budget, itself included. */
  sharing(h: MemoryHost): MemoryHost[] {
    return [...(this.members.get(h.budget) ?? [h])];
  }

  private join(h: MemoryHost, key: string): void {
    if (!this.shared) return;
    let set = this.members.get(key);
    if (set === undefined) {
      set = new Set();
      this.members.set(key, set);
    }
    set.add(h);
  }

  /** The heap of hosts waiting at `rank`, made (and the rank listed) if it has none. */
  private heapAt(rank: number): MinHeap<Slot> {
    let heap = this.byRank.get(rank);
    if (heap === undefined) {
      heap = new MinHeap(slotBefore);
      this.byRank.set(rank, heap);
      let i = this.ranks.length;
      while (i > 0 && (this.ranks[i - 1] as number) > rank) i--;
      this.ranks.splice(i, 0, rank);
    }
    return heap;
  }

  private dropRank(rank: number): void {
    const heap = this.byRank.get(rank);
    if (heap !== undefined && heap.size > 0) return;
    this.byRank.delete(rank);
    this.ranks = this.ranks.filter((r) => r !== rank);
  }

  /** The index made again from the hosts' own slots, without the stale entries. */
  private rebuild(): void {
    this.byRank.clear();
    this.ranks = [];
    this.slots = 0;
    for (const h of this.hosts.values()) {
      const s = h.slot;
      if (s === null) continue;
      this.heapAt(s.rank).push(s);
      this.slots++;
    }
  }
}
