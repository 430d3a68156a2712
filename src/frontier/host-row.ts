/** A host's row as one store transaction reads and changes it (both stores keep these facts). */
export interface HostRow {
  host: string;
  /** The politeness budget it counts against: the host itself, or `ip:ADDRESS`. */
  budget: string;
  queued: number;
  /** Rank of its first queued URL (policy/queue-rank.ts; meaningful while queued > 0). */
  minRank: number;
  /** URLs of the host ever queued: what --max-pages-per-host counts. */
  taken: number;
  retired: boolean;
}

const ADDRESS_PREFIX = 'ip:';

/** A budget key as a host's own budget: the key itself, or null for an address's budget. */
export function hostBudget(key: string): string | null {
  return key.startsWith(ADDRESS_PREFIX) ? null : key;
}

/** The budget every host on one address counts against, with --politeness-key ip. */
export function addressBudget(address: string): string {
  return `${ADDRESS_PREFIX}${address}`;
}

/**
 * Whether a budget is what politeness counts against for good: always, but with
 * --politeness-key ip (`shared`) only an address's. A host's own budget is provisional
 * there until the host is placed on its address (policy/politeness.ts, "unplaced").
 */
export function isPlaced(budget: string, shared: boolean): boolean {
  return !shared || budget.startsWith(ADDRESS_PREFIX);
}
