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

/** The lease a crawler gets for a row: every store hands out the same shape. */
export function leaseOf(
  id: LeaseId,
  row: LeasableRow,
  host: string,
  expiresAt: number,
  startBy: number | undefined,
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
    ...(startBy === undefined ? {} : { startBy }),
  };
}
