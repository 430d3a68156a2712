import type { Lease, LeaseId, UrlKind } from './types.js';

/** A queued URL's row as a store reads it to lease it. */
export interface LeasableRow {
  url: string;
  depth: number;
  via: string | null;
  redirects: number;
  kind: UrlKind;
  /** Tries spent so far. */
  attempts: number;
}

/** What the host's turn says of a lease: when its request must start, and whether it is a placement lease. */
export interface LeaseTurn {
  /** policy/politeness.ts startDeadline: undefined when the request may start any time. */
  startBy: number | undefined;
  /** False for a host whose address the store does not know yet (--politeness-key ip). */
  placed: boolean;
}

/** The lease a crawler gets for a row: every store hands out the same shape. */
export function leaseOf(
  id: LeaseId,
  row: LeasableRow,
  host: string,
  expiresAt: number,
  turn: LeaseTurn,
): Lease {
  return {
    id,
    url: row.url,
    host,
    depth: row.depth,
    via: row.via,
    redirects: row.redirects,
    kind: row.kind,
    attempt: row.attempts + 1,
    expiresAt,
    ...(turn.startBy === undefined ? {} : { startBy: turn.startBy }),
    ...(turn.placed ? {} : { needsAddress: true }),
  };
}
